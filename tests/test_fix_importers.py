"""``determinism-fix`` seeds a run, never an import: a module it fixed, imported by a script
that seeded first, leaves that script's random streams exactly as they were (RULES.md,
"Seeding, in the run, never at import time")."""

import subprocess
import sys
import textwrap
from pathlib import Path

from run_support import fresh_environment

EVALUATE = textwrap.dedent('''\
    """An evaluation module with a run of its own; training scripts import it."""
    import argparse
    import random


    def evaluate(episodes):
        return [random.random() for _ in range(episodes)]


    if __name__ == "__main__":
        parser = argparse.ArgumentParser()
        parser.add_argument("--seed", type=int, default=3)
        args = parser.parse_args()
        print(evaluate(2))
    ''')

# The importer: seeds, (maybe) imports the fixed module, draws from every global RNG.
DRAWS = textwrap.dedent('''\
    import random, sys
    random.seed(11)
    try:
        import numpy
        numpy.random.seed(11)
    except ImportError:
        numpy = None
    if sys.argv[1] == "import":
        import evaluate
    print(random.random(), numpy.random.rand() if numpy is not None else "")
    ''')


def python(args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=str(cwd), env=fresh_environment(), capture_output=True,
                          text=True, timeout=120)


def test_importing_a_fixed_module_leaves_the_importers_streams_alone(tmp_path):
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / "evaluate.py").write_text(EVALUATE)
    (tmp_path / "draws.py").write_text(DRAWS)
    fixed = python(["-m", "flake8_determinism.fix", "evaluate.py"], tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    source = (tmp_path / "evaluate.py").read_text()
    assert "    random.seed(args.seed)\n" in source  # the run is seeded, with its own --seed
    without = python(["draws.py", "none"], tmp_path)
    with_import = python(["draws.py", "import"], tmp_path)
    assert without.returncode == 0 and with_import.returncode == 0, (without.stderr, with_import.stderr)
    assert with_import.stdout == without.stdout
    # ... and its own run is reproducible.
    runs = {python(["evaluate.py"], tmp_path).stdout for _ in range(2)}
    assert len(runs) == 1 and runs != {""}
