"""benchmarks/real_runs.py: the pin check, the adaptation, verify before and after the fix,
on a tiny case of our own (the real cases need their pinned copies, kept outside the repo)."""

import importlib
import importlib.util
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

SCRIPT = importlib.util.spec_from_file_location("real_runs_main", ROOT / "benchmarks" / "real_runs.py")
runner = importlib.util.module_from_spec(SCRIPT)
SCRIPT.loader.exec_module(runner)
cases_package = importlib.import_module("real_runs")

TRAIN = 'import random\n\nif __name__ == "__main__":\n    for step in range(3):\n        print("loss", random.random())\n'


def test_blob_ids_are_gits():
    assert cases_package.blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object


def test_replace_fails_loudly_when_the_pin_moved(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    with pytest.raises(AssertionError):
        cases_package.replace(path, "y = 2", "y = 3")
    cases_package.replace(path, "x = 1", "x = 2")
    assert path.read_text() == "x = 2\n"


def test_every_case_names_its_pin_and_adaptation():
    names = []
    for case in runner.cases():
        names.append(case.__name__)
        assert "/" in case.REPO and len(case.COMMIT) == 40 and case.FILES, case.__name__
        assert all(len(blob) == 40 for blob in case.FILES.values()), case.__name__
        assert callable(case.adapt) and case.COMMAND and isinstance(case.WORKDIR, str), case.__name__
        assert case.__doc__, case.__name__
    assert len(names) >= 8


def fake_case(blob):
    case = types.ModuleType("real_runs.tiny")
    case.REPO, case.COMMIT, case.FILES = "someone/tiny", "0" * 40, {"train.py": blob}
    case.WORKDIR, case.COMMAND = ".", ("train.py",)
    case.adapt = lambda root: cases_package.replace(root / "train.py", "range(3)", "range(4)")
    return case


def test_an_unseeded_script_diverges_before_and_reproduces_after(tmp_path, capsys):
    pinned = tmp_path / "pinned"
    pinned.mkdir()
    (pinned / "train.py").write_text(TRAIN)
    case = fake_case(cases_package.blob_id(TRAIN.encode()))
    out = tmp_path / "out"
    out.mkdir()
    assert runner.run_case(case, pinned, 2, out)
    line = capsys.readouterr().out
    assert "before: diverges" in line and "after: reproducible" in line, line
    assert "+    random.seed(SEED)" in (out / "fix.diff").read_text()
    assert (pinned / "train.py").read_text() == TRAIN  # the pinned copy is never changed


def test_a_copy_that_is_not_the_pinned_file_is_refused(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN + "# edited\n")
    with pytest.raises(SystemExit, match="is not someone/tiny"):
        runner.run_case(fake_case(cases_package.blob_id(TRAIN.encode())), tmp_path, 2, tmp_path)
