import sys
from pathlib import Path

# Lets tests import the shared helpers in this folder (fixture_support).
sys.path.insert(0, str(Path(__file__).parent))
