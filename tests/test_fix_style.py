"""What ``determinism-fix`` inserts passes the style checks the file passed: pycodestyle (through
the real flake8, its default 79 columns) and isort's order (``ruff check --select I``), on every
codemod fixture's output against its input."""

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "fix"
CASES = sorted(p.name[: -len(".in.py")] for p in FIXTURES.glob("*.in.py"))
# A line the codemod lengthens inside a comprehension: wrapping there would not be black's
# layout, so it is left long (fix/wrapping.py).
KNOWN = {"listings": Counter({"E501": 1})}


def codes(command, path: Path) -> Counter:
    done = subprocess.run(command + [path.name], cwd=str(path.parent), capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return Counter(line.split()[1] for line in done.stdout.splitlines() if line.count(":") >= 3)


def pycodestyle(path: Path) -> Counter:
    return codes([sys.executable, "-m", "flake8", "--isolated", "--select=E,W", "--format=%(path)s:%(row)d:%(col)d: "
                  "%(code)s"], path)


def isort_order(path: Path) -> Counter:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.fail("ruff is a test dependency (pip install -e '.[test]')")
    return codes([ruff, "check", "--isolated", "--select", "I", "--output-format", "concise"], path)


@pytest.mark.torch  # the test extra (ruff comes with it), not torch itself
@pytest.mark.parametrize("name", CASES)
def test_inserted_code_adds_no_style_problem(name, tmp_path):
    before, after = tmp_path / "before" / "x.py", tmp_path / "after" / "x.py"
    for path, suffix in ((before, ".in.py"), (after, ".out.py")):
        path.parent.mkdir()
        path.write_text((FIXTURES / (name + suffix)).read_text())
    for check in (pycodestyle, isort_order):
        added = check(after) - check(before) - KNOWN.get(name, Counter())
        assert not added, "%s: %s adds %s" % (name, check.__name__, dict(added))


PROJECTS = Path(__file__).parent / "fixtures" / "fix_projects"
PROJECT_FILES = sorted(
    (project[: -len(".out")], str(path.relative_to(PROJECTS / project)))
    for project in (p.name for p in PROJECTS.glob("*.out"))
    for path in (PROJECTS / project).rglob("*.py")
)


@pytest.mark.torch  # the test extra (ruff comes with it), not torch itself
@pytest.mark.parametrize("name,relative", PROJECT_FILES)
def test_project_fixes_add_no_style_problem(name, relative, tmp_path):
    """The same on every file of the fixture projects (``tests/test_fix_projects.py``)."""
    before, after = tmp_path / "before" / "x.py", tmp_path / "after" / "x.py"
    for path, suffix in ((before, ".in"), (after, ".out")):
        path.parent.mkdir()
        path.write_text((PROJECTS / (name + suffix) / relative).read_text())
    for check in (pycodestyle, isort_order):
        added = check(after) - check(before)
        assert not added, "%s/%s: %s adds %s" % (name, relative, check.__name__, dict(added))
