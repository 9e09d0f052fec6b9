"""Packaging facts a fresh install relies on."""

import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
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


def _declared_requirements() -> dict:
    """name -> its version specifiers in setup.cfg (``{">=": "1.1", "<": "2"}``)."""
    from configparser import ConfigParser

    config = ConfigParser()
    config.read(str(ROOT / "setup.cfg"))
    requirements = {}
    for line in config["options"]["install_requires"].split():
        name, specifiers = re.fullmatch(r"([\w.-]+)(.*)", line).groups()
        requirements[name] = dict(re.fullmatch(r"([<>=!~]+)(.+)", s).groups() for s in specifiers.split(","))
    return requirements


def _declared_floors() -> dict:
    return {name: specifiers.get(">=") for name, specifiers in _declared_requirements().items()}


def test_ci_runs_the_tests_on_the_declared_floors():
    # The floors are proven, not guessed: .ci/run installs exactly them for a run of the core tests.
    floors = _declared_floors()
    assert set(floors) == {"flake8", "libcst"} and all(floors.values())
    ci = (ROOT / ".ci" / "run").read_text()
    for name, version in floors.items():
        assert '"%s==%s"' % (name, version) in ci, (name, version)


def test_libcst_is_bounded_above_the_installed_major():
    # positions.py leans on libcst's private codegen state (with a public fallback), and libcst's
    # trees are what every rule reads: a new major is taken on purpose, not by a fresh install.
    from importlib.metadata import version

    ceiling = _declared_requirements()["libcst"].get("<")
    installed = int(version("libcst").split(".")[0])
    assert ceiling is not None and int(ceiling.split(".")[0]) == installed + 1, (ceiling, installed)


@pytest.mark.slow
def test_the_sdist_carries_its_tests_and_they_run(tmp_path):
    """An sdist built as a release would be: every tracked file in it, and its tests run from it."""
    out = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-c", "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))", str(out)],
        cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    archive = out / built.stdout.strip().splitlines()[-1]
    with tarfile.open(str(archive)) as tar:
        tar.extractall(str(tmp_path))
    unpacked = tmp_path / archive.name[:-len(".tar.gz")]
    if (ROOT / ".git").exists():
        tracked = subprocess.run(["git", "ls-files"], cwd=str(ROOT), capture_output=True, text=True, check=True)
        missing = [f for f in tracked.stdout.split() if f != ".gitignore" and not (unpacked / f).exists()]
        assert missing == []
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "-m", "not slow",
                          "tests/test_fixtures.py", "tests/test_notebooks.py", "tests/test_fix_cli.py"],
                         cwd=str(unpacked), capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:]
    collected = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only"],
                               cwd=str(unpacked), capture_output=True, text=True, timeout=300)
    assert collected.returncode == 0 and " error" not in collected.stdout.splitlines()[-1], collected.stdout[-2000:]
