"""Packaging facts a fresh install relies on."""

import subprocess
import sys
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]


def test_every_source_folder_is_a_package():
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "flake8_determinism").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert folders <= set(find_packages(str(ROOT), include=["flake8_determinism", "flake8_determinism.*"]))


def test_plugin_import_does_not_load_libcst():
    # Files that the pre-check skips must not pay libcst's import (~175 ms).
    code = "import sys, flake8_determinism.plugin; print(any(m.startswith('libcst') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_linter_never_imports_torch():
    code = (
        "import sys\nfrom flake8_determinism.checker import check_source\n"
        "check_source(open(%r).read())\nprint('torch' in sys.modules)" % str(ROOT / "examples" / "train_example.py")
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_sarif_reporter_import_is_cheap():
    # flake8 imports every report plugin on every run, whatever --format says: no libcst, no rule table.
    code = (
        "import sys, flake8_determinism.sarif\n"
        "print(sorted(m for m in sys.modules if m.startswith(('libcst', 'flake8_determinism.rules'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_metadata_names_its_license_file_and_links():
    from configparser import ConfigParser

    config = ConfigParser()
    config.read(str(ROOT / "setup.cfg"))
    metadata = config["metadata"]
    assert (ROOT / metadata["license_files"].strip()).read_text().startswith("MIT License")
    urls = dict(line.split(" = ", 1) for line in metadata["project_urls"].strip().splitlines())
    assert set(urls) == {"Source", "Issues", "Documentation"}
    classifiers = metadata["classifiers"].split()
    assert "MIT" in classifiers and "Flake8" in classifiers
