"""benchmarks/reliability.py: clean on a fixed subset of torch's sources, and each check can fail.

``test_torch_subset`` needs the installed torch's sources and fails without them; where
there is no torch it is deselected by its marker (``-m "not torch"``, as .ci/run does) or name.
"""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_determinism import benchmark, checker
from flake8_determinism.fix import cli, transform
from flake8_determinism.plugin import DeterminismChecker
from flake8_determinism.settings import Settings

pytestmark = pytest.mark.slow  # the slow tier (corpus-style runs of the reliability script)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "reliability.py"
EVERY = 10  # of torch 2.13's 2,285 files: 229; both modes 54-63 s with -j 2 on the 2-core machine

_spec = importlib.util.spec_from_file_location("reliability", SCRIPT)
reliability = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reliability)

SUMMARY = re.compile(r"^(\d+) files: (\d+) tracebacks, (\d+) unparsable outputs, (\d+) unstable; ", re.MULTILINE)


@pytest.mark.torch
@pytest.mark.parametrize("mode", ["default", "strict"])
def test_torch_subset(mode):
    torch_dir = benchmark.installed_torch_sources()
    assert torch_dir is not None, "torch is not installed: this test lints its sources (deselect: -m 'not torch')"
    command = [sys.executable, str(SCRIPT), "--every", str(EVERY), "-j", "2"] + (["--strict"] * (mode == "strict"))
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-3000:]
    files, tracebacks, unparsable, unstable = map(int, SUMMARY.search(done.stdout).groups())
    assert files == len(reliability.python_files(torch_dir, EVERY)) > 200
    assert (tracebacks, unparsable, unstable) == (0, 0, 0)
    if mode == "strict":  # torch is a library: only strict mode has fixes for it, for the second pass to check
        assert re.search(r"the codemod would change [1-9]", done.stdout), done.stdout


# A script (the ``__main__`` block): the codemod seeds it.
TRAINING = (
    "import random\nimport torch\n\nx = random.random()\ny = torch.randn(3)\n"
    "if __name__ == '__main__':\n    print(x)\n"
)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text(TRAINING)
    (tmp_path / "deep.py").write_text(TRAINING + "z = " + "f(" * 70 + ")" * 70 + "\n")  # guard refuses it
    (tmp_path / "broken.py").write_text("def (:\n")
    (tmp_path / "latin.py").write_bytes(b"x = '\xff'\n")  # not UTF-8, no coding line
    return tmp_path


def run(tree):
    results = reliability.run(tree, reliability.python_files(tree), Settings())
    return {r.path: r for r in results}, reliability.report(results, 1.0)


def test_clean_tree_is_counted(tree):
    results, (text, status) = run(tree)
    assert status == 0, text
    assert "4 files: 0 tracebacks, 0 unparsable outputs, 0 unstable; 1 skipped, 2 not Python;" in text
    assert results["pkg/train.py"].changed  # fixed, and the real second pass left it alone
    assert results["deep.py"].skipped
    assert results["broken.py"].not_python and results["latin.py"].not_python
    assert "worst" in text and "peak RSS" in text


def _fix_that(misbehaves):
    """A ``fix_source`` that rejects what does not parse, as the real one does, then misbehaves."""
    def fix(source, *args, **kwargs):
        checker.parse_ast(source)
        return misbehaves(source)
    return fix


def _appends(text):
    return lambda source: transform.FileFix(source + text, [], [], [], True)


def _raise(*args, **kwargs):
    raise KeyError("planted")


# Of the 4 files, 2 reach the codemod (train.py, deep.py: the fakes know no guard), 3 the
# plugin (all but broken.py) and 3 the CLI's reading (all but latin.py, which no UTF-8 decodes).
@pytest.mark.parametrize("target, name, fake, expect", [
    (transform, "fix_source", _fix_that(_appends("def (:\n")), "0 tracebacks, 2 unparsable outputs, 0 unstable"),
    (transform, "fix_source", _fix_that(_appends("x = 1\n")), "0 tracebacks, 0 unparsable outputs, 2 unstable"),
    # fix_source raises in fix_file too: 2 tracebacks from each
    (transform, "fix_source", _fix_that(_raise), "4 tracebacks, 0 unparsable outputs, 0 unstable"),
    (DeterminismChecker, "run", _raise, "3 tracebacks, 0 unparsable outputs, 0 unstable"),
    (cli, "read_source", _raise, "3 tracebacks, 0 unparsable outputs, 0 unstable"),
])
def test_each_failure_is_counted(tree, monkeypatch, target, name, fake, expect):
    monkeypatch.setattr(target, name, fake)
    _, (text, status) = run(tree)
    assert status == 1
    assert "4 files: %s;" % expect in text, text
    crashed = not expect.startswith("0 ")
    assert ("TRACEBACK" in text) == ("KeyError: 'planted'" in text) == crashed
    assert ("UNPARSABLE" in text) == ("2 unparsable" in expect) and ("UNSTABLE" in text) == ("2 unstable" in expect)
