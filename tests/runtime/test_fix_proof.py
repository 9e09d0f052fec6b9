"""Proof on real runs that ``determinism-fix`` makes unseeded scripts reproducible.

For each realistic script in ``fixproof/`` (unseeded torch training with a
worker DataLoader, module-level training, a seeding helper that forgets torch,
NumPy + scikit-learn, a directory listing and a set of strings) this test:

1. runs a copy twice in fresh interpreters and checks the outputs differ
   (so there is something to fix);
2. lints it and checks the linter reports at least the expected codes;
3. checks ``--check`` reports that a change would be made and changes nothing;
4. fixes it in place with ``python -m flake8_determinism.fix``;
5. checks the fixed copy still compiles, prints the same output in two fresh
   interpreters, no longer reports any code the codemod is documented to fix,
   and that ``--check`` now finds nothing to change (idempotence).

Every subprocess runs in the copy's folder (outside ``tests/``, so the linter
treats it as a script, not a test module, and no project configuration
applies) with ``PYTHONHASHSEED`` removed from the environment, so string
hashing is randomised as in a real run.
"""

import importlib.util
import re
import shutil
import subprocess
import sys
from collections import namedtuple
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import pytest

from run_support import fresh_environment

pytestmark = pytest.mark.slow  # the slow tier (real interpreters run flagged and fixed programs)

FIXPROOF = Path(__file__).parent / "fixproof"

# The codes determinism-fix is documented to fix (shared/RULES.md, "determinism-fix").
FIXABLE = frozenset(
    {"DET100", "DET101", "DET102", "DET103", "DET104", "DET106", "DET107", "DET108", "DET201", "DET202",
     "DET205", "DET206", "DET207", "DET301", "DET302", "DET303"}
)

TIMEOUT = 180  # seconds per subprocess: torch imports are slow on a loaded machine
DIFFER_ATTEMPTS = 3  # pairs of runs tried before concluding the original is reproducible

Case = namedtuple("Case", "script expected unsafe needs data_dir")


def case(script, expected, unsafe=False, needs=(), data_dir=False):
    """One script of fixproof/: the codes the linter must report on it, whether the fix
    needs ``--unsafe-fixes``, the modules it imports beyond the test extra, and whether
    it reads a data directory (given as its first argument)."""
    return pytest.param(Case(script, tuple(expected), unsafe, tuple(needs), data_dir), id=script[:-3])


CASES = [
    # One report per cause: a run that seeds nothing gets DET100 naming every RNG it uses
    # (not DET101/102/104 as well); dropout is part of that cause (DET401 is strict); none
    # of these runs can use CUDA, so DET303 is quiet.
    case("torch_train.py", ["DET100"]),  # its loader is one of DET100's causes (DET202 is strict there)
    case("module_level.py", ["DET100"]),
    case("helper_forgets_torch.py", ["DET104"]),
    case("numpy_sklearn.py", ["DET100", "DET108"], needs=["sklearn"]),
    # list(set(<strings from a function>)): sorted() over elements whose type the codemod
    # cannot see is an unsafe fix.
    case("listing_and_set.py", ["DET206", "DET207"], unsafe=True, data_dir=True),
]

# The samples of listing_and_set.py: "<class>_<n>.txt", eight classes (8! orders of the set).
CLASSES = ["cat", "dog", "bird", "fish", "frog", "lion", "wolf", "bear"]
SAMPLES = ["%s_%d.txt" % (c, i) for c in CLASSES for i in range(3)]

_FINDING = re.compile(r"^.*?:(\d+):(\d+): (DET\d{3}) ")


def run(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=str(cwd), env=fresh_environment(), capture_output=True, text=True, timeout=TIMEOUT
    )


def run_script(script: Path, argument: Optional[Path]) -> str:
    """Stdout of one fresh run of ``script``; fails the test with its stderr if it fails."""
    args = [script.name] + ([str(argument)] if argument is not None else [])
    result = run(args, script.parent)
    assert result.returncode == 0, "%s failed (rc %d):\n%s" % (script.name, result.returncode, result.stderr)
    assert result.stdout.strip(), "%s printed nothing" % script.name
    return result.stdout


def lint(script: Path) -> List[Tuple[int, str]]:
    """(line, code) of each DET finding flake8 reports on ``script``."""
    result = run(["-m", "flake8", "--select=DET", script.name], script.parent)
    assert result.returncode in (0, 1) and not result.stderr.strip(), (
        "flake8 failed (rc %d):\n%s%s" % (result.returncode, result.stdout, result.stderr)
    )
    findings = []
    for line in result.stdout.splitlines():
        match = _FINDING.match(line)
        assert match, "unexpected flake8 output line: %r" % line
        findings.append((int(match.group(1)), match.group(3)))
    return findings


def fix(script: Path, *options: str) -> subprocess.CompletedProcess:
    """``python -m flake8_determinism.fix OPTIONS script``; fails the test on a crash (a
    missing module exits 1, like "a change would be made", so it is told apart here)."""
    result = run(["-m", "flake8_determinism.fix", *options, script.name], script.parent)
    assert "Traceback (most recent call last)" not in result.stderr and "No module named" not in result.stderr, (
        "determinism-fix %s crashed (rc %d):\n%s" % (" ".join(options), result.returncode, result.stderr))
    return result


def make_data_dirs(root: Path) -> Tuple[Path, Path]:
    """Two directories with the same files and contents, created in opposite orders: on
    file systems that list in creation order (tmpfs) their listings differ; on hashed
    directories (ext4) they may not, and the set of strings makes the runs differ."""
    dirs = (root / "data_a", root / "data_b")
    for folder, order in zip(dirs, (SAMPLES, SAMPLES[::-1])):
        folder.mkdir()
        for name in order:
            (folder / name).write_text(name[: -len(".txt")] + ";\n")
    return dirs


def two_runs(script: Path, data_dirs: Optional[Tuple[Path, Path]]) -> Tuple[str, str]:
    first, second = data_dirs if data_dirs else (None, None)
    return run_script(script, first), run_script(script, second)


@pytest.mark.parametrize("case", CASES)
def test_fix_makes_runs_reproducible(case, tmp_path):
    for module in case.needs:
        if importlib.util.find_spec(module) is None:
            pytest.skip("%s is not installed (test extra)" % module)

    work = tmp_path / "work"
    work.mkdir()
    script = work / case.script
    shutil.copyfile(FIXPROOF / case.script, script)
    data_dirs = make_data_dirs(tmp_path) if case.data_dir else None
    unsafe = ["--unsafe-fixes"] if case.unsafe else []

    # 1. The original is really nondeterministic.
    for _ in range(DIFFER_ATTEMPTS):
        first, second = two_runs(script, data_dirs)
        if first != second:
            break
    else:
        pytest.fail("%s printed the same output in %d pairs of runs:\n%s" % (case.script, DIFFER_ATTEMPTS, first))

    # 2. The linter sees the problem.
    before = lint(script)
    codes_before = {code for _, code in before}
    missing = set(case.expected) - codes_before
    assert not missing, "flake8 no longer reports %s on %s; it reports %s" % (sorted(missing), case.script, before)

    # 3. --check: exit 1 (a change would be made), the file untouched.
    original = script.read_bytes()
    check = fix(script, "--check", *unsafe)
    assert check.returncode == 1, "--check on the original: rc %d\n%s%s" % (
        check.returncode, check.stdout, check.stderr)
    assert script.read_bytes() == original, "--check changed the file"

    # 4. Fix in place: 0 when nothing is left to report, 1 when problems remain, never 2.
    fixed = fix(script, *unsafe)
    assert fixed.returncode in (0, 1), "determinism-fix failed (rc %d):\n%s%s" % (
        fixed.returncode, fixed.stdout, fixed.stderr)
    source = script.read_text()
    assert script.read_bytes() != original, "determinism-fix changed nothing"
    compile(source, str(script), "exec")  # still valid Python

    # 5. The fixed copy is reproducible ...
    first, second = two_runs(script, data_dirs)
    assert first == second, "fixed %s still differs between runs:\n--- run 1\n%s--- run 2\n%s--- fixed source\n%s" % (
        case.script, first, second, source)

    # ... the linter no longer reports what the codemod fixes ...
    after = lint(script)
    left = [(line, code) for line, code in after if code in FIXABLE]
    assert not left, "fixable findings left on fixed %s: %s\n--- fixed source\n%s" % (case.script, left, source)
    expected_rc = 1 if after else 0
    assert fixed.returncode == expected_rc, "determinism-fix rc %d, but flake8 reports %s after it" % (
        fixed.returncode, after)

    # ... and a second pass has nothing to change.
    again = fix(script, "--check", *unsafe)
    assert again.returncode == 0, "--check after the fix: rc %d\n%s%s" % (again.returncode, again.stdout, again.stderr)
    assert script.read_text() == source
