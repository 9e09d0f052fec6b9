"""The ``determinism-fix`` command end to end (shared/RULES.md, "determinism-fix").

Every test runs ``python -m flake8_determinism.fix`` in a fresh folder under
``tmp_path`` that holds its own ``setup.cfg`` with a ``[flake8]`` section, so
flake8's configuration discovery stops there and reads only what the test wrote.
Paths are given relative to that folder (no ``tests/`` directory in them: the
linter would treat the scripts as test modules).

Covered: exit statuses (in place, ``--check``, ``--diff``, errors), the summary
line, ``# noqa``, flake8's configuration and ``--select``/``--ignore``, stdin,
untouched lines, an unwritable directory, idempotence and ``-j``.  Bad input
(unparsable and undecodable files, encodings, BOM, line endings, tabs, empty and
huge files, read-only files, symlinks, vanishing and changing files, a killed
run) is in ``tests/test_bad_input.py``, for the plugin and the codemod alike.
"""

import difflib
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, NamedTuple, Optional

import pytest

from run_support import fresh_environment

TIMEOUT = 120  # seconds per run: generous for a loaded machine

# ------------------------------------------------------------------ example sources

# DET104 only: a run that never seeds torch, whose one use is a shuffling DataLoader (fixed by
# the seeding block and the loader's generator=).
LOADER = """\
import torch
from torch.utils.data import DataLoader

ds = list(range(10))
loader = DataLoader(ds, shuffle=True){noqa}
for batch in loader:
    print(batch)
"""
LOADER_LINE = "loader = DataLoader(ds, shuffle=True)"

# DET105 only, in an entry module (module-level work): not fixable.
TIME_SEED = """\
import time

import torch

torch.manual_seed(int(time.time()))
x = torch.rand(3)
print(x)
"""

# DET208 only: setting PYTHONHASHSEED inside the program: not fixable.
HASH_SEED_IN_PROGRAM = """\
import os

os.environ["PYTHONHASHSEED"] = "0"
print(list({"a", "b"}))  # the output depends on string hashes
"""

# DET204 only: an RNG object on a Dataset: not fixable.
DATASET_RNG = """\
import random

from torch.utils.data import Dataset


class DS(Dataset):
    def __init__(self):
        self.rng = random.Random(0)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.rng.random()


print(DS()[0])
"""

# A module-level torch training script on the GPU: DET100 (the seeding block, with deterministic mode).
TRAINING = """\
import torch

model = torch.nn.Linear(2, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.ones(4, 2)).sum()
loss.backward()
opt.step()
"""

# DET301 and DET104 in one file (for --select/--ignore).
BENCHMARK_AND_LOADER = """\
import torch
from torch.utils.data import DataLoader

torch.backends.cudnn.benchmark = True
loader = DataLoader(list(range(4)), shuffle=True)
print(list(loader))
"""

CLEAN = """\
import os

print(os.sep)
"""

# Torch training with a worker DataLoader over a Dataset holding an unseeded RNG object
# (DET100, DET103, DET201, DET104, DET303 fixed; DET204 left).
TORCH_TRAIN = """\
\"\"\"Train a tiny model.\"\"\"
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng()

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor([self.rng.random()], dtype=torch.float32)


def main():
    loader = DataLoader(Noisy(), batch_size=2, num_workers=2, shuffle=True)
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in loader:
        optimizer.zero_grad()
        loss = model(batch).pow(2).mean()
        loss.backward()
        optimizer.step()
    print(loss.item())


if __name__ == "__main__":
    main()
"""

NUMPY_SCRIPT = """\
import numpy as np

# Module-level numpy work.
data = np.random.rand(5)
noise = np.random.normal(0.0, 1.0, size=5)
print((data + noise).sum())
"""

LISTING = """\
import glob
import os


def main():
    names = os.listdir(".")
    chosen = names[0] if names else None
    print(chosen)
    paths = glob.glob("*.txt")
    first = paths[0] if paths else None
    print(first)


if __name__ == "__main__":
    main()
"""

BENCHMARK = """\
import torch

torch.backends.cudnn.benchmark = True
x = torch.ones(2, 2)
print(x @ x)
"""

UNCALLED_HELPER = """\
import random


def set_seed(seed):
    random.seed(seed)


def main():
    print(random.random())


if __name__ == "__main__":
    main()
"""


# ------------------------------------------------------------------ helpers


class Result(NamedTuple):
    rc: int
    out: str
    err: str
    raw_out: bytes


def fix(cwd: Path, *args: str, stdin: Optional[bytes] = None) -> Result:
    """Run the codemod in ``cwd``; never a traceback, whatever the outcome."""
    proc = subprocess.run(
        [sys.executable, "-m", "flake8_determinism.fix", *args],
        cwd=str(cwd), input=stdin if stdin is not None else b"", stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=TIMEOUT, env=fresh_environment(),
    )
    result = Result(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"),
                    proc.stdout)
    assert "Traceback" not in result.out + result.err, result
    return result


def project(tmp_path: Path, files: Dict[str, object], config: str = "[flake8]\n", name: str = "proj") -> Path:
    """A folder with ``setup.cfg`` (``config``) and ``files`` (text or bytes, written as is)."""
    root = tmp_path / name
    root.mkdir()
    (root / "setup.cfg").write_text(config)
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
    return root


def snapshot(root: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def stderr_lines(result: Result):
    return [line for line in result.err.splitlines() if line.strip()]


def summary(result: Result) -> str:
    lines = [line for line in result.out.splitlines() if line.strip()]
    assert lines, result
    return lines[-1]


def leftovers(directory: Path):
    return [p.name for p in directory.iterdir() if p.name.startswith(".determinism-fix-") or p.suffix == ".tmp"]


# ------------------------------------------------------------------ 1. exit statuses


def test_in_place_exits_0_when_everything_is_fixed_or_clean(tmp_path):
    root = project(tmp_path, {"loader.py": LOADER.format(noqa=""), "clean.py": CLEAN})
    result = fix(root, "loader.py", "clean.py")
    assert result.rc == 0, result
    assert "generator=torch.Generator().manual_seed(torch.initial_seed())" in (root / "loader.py").read_text()
    assert (root / "clean.py").read_text() == CLEAN
    # Nothing left: a second run is clean too, and says so.
    again = fix(root, "loader.py", "clean.py")
    assert again.rc == 0 and again.out.strip().endswith("No problems found in 2 files."), again


@pytest.mark.parametrize("source, code", [
    pytest.param(TIME_SEED, "DET105", id="DET105"),
    pytest.param(HASH_SEED_IN_PROGRAM, "DET208", id="DET208"),
    pytest.param(DATASET_RNG, "DET204", id="DET204"),
])
def test_in_place_exits_1_when_problems_remain(tmp_path, source, code):
    root = project(tmp_path, {"script.py": source})
    result = fix(root, "script.py")
    assert result.rc == 1, result
    assert (root / "script.py").read_text() == source  # nothing it could fix, nothing changed
    assert code in result.out, result
    assert stderr_lines(result) == [], result


def test_left_problems_are_listed_as_flake8_lists_them(tmp_path):
    root = project(tmp_path, {"script.py": TIME_SEED})
    result = fix(root, "script.py")
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "DET", "script.py"], cwd=str(root),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT, text=True)
    expected = flake8.stdout.splitlines()
    assert expected and all(line.startswith("script.py:5:1: DET105 ") for line in expected), flake8
    reported = [line for line in result.out.splitlines() if "DET105" in line]
    assert reported == expected, result


@pytest.mark.parametrize("mode", ["--check", "--diff"])
def test_check_and_diff_exit_status_and_change_nothing(tmp_path, mode):
    files = {"loader.py": LOADER.format(noqa=""), "clean.py": CLEAN, "left.py": TIME_SEED}
    root = project(tmp_path, files)
    before = snapshot(root)

    nothing = fix(root, mode, "clean.py", "left.py")  # left.py has a problem but no fix: nothing would change
    assert nothing.rc == 0, nothing
    assert "+++" not in nothing.out

    change = fix(root, mode, "loader.py", "clean.py")
    assert change.rc == 1, change
    assert snapshot(root) == before  # byte for byte
    if mode == "--diff":
        assert "--- loader.py" in change.out and "+++ loader.py" in change.out, change
        added = [line for line in change.out.splitlines() if line.startswith("+") and not line.startswith("+++")]
        assert any("generator=torch.Generator().manual_seed(torch.initial_seed())" in line for line in added), change
        assert "clean.py" not in change.out
    else:
        assert "loader.py" in change.out and "clean.py" not in change.out, change


def test_nonexistent_path_is_an_error_with_one_line(tmp_path):
    root = project(tmp_path, {})
    result = fix(root, "missing.py")
    assert result.rc == 2, result
    lines = stderr_lines(result)
    assert len(lines) == 1 and "missing.py" in lines[0], result
    assert not (root / "missing.py").exists()


@pytest.mark.parametrize("args, option", [
    (["--determinism-torch-version", "banana"], "determinism-torch-version"),
    (["-j", "0"], "-j"),
])
def test_bad_option_is_an_error_with_one_line(tmp_path, args, option):
    root = project(tmp_path, {"loader.py": LOADER.format(noqa="")})
    result = fix(root, *args, "loader.py")
    assert result.rc == 2, result
    lines = stderr_lines(result)
    assert len(lines) == 1 and option in lines[0], result
    assert (root / "loader.py").read_text() == LOADER.format(noqa="")  # nothing done


def test_bad_value_in_the_configuration_is_an_error_with_one_line(tmp_path):
    root = project(tmp_path, {"loader.py": LOADER.format(noqa="")},
                   config="[flake8]\ndeterminism-torch-version = banana\n")
    result = fix(root, "loader.py")
    assert result.rc == 2, result
    lines = stderr_lines(result)
    assert len(lines) == 1 and "determinism-torch-version" in lines[0] and "banana" in lines[0], result


def test_one_bad_file_among_good_ones(tmp_path):
    bad = b"def f(:\n    pass\n"
    root = project(tmp_path, {"a.py": LOADER.format(noqa=""), "b.py": bad, "c.py": TRAINING})
    result = fix(root, "a.py", "b.py", "c.py")
    assert result.rc == 2, result
    lines = stderr_lines(result)
    assert len(lines) == 1 and "b.py" in lines[0], result
    assert (root / "b.py").read_bytes() == bad
    assert "generator=torch.Generator().manual_seed(torch.initial_seed())" in (root / "a.py").read_text()
    assert "torch.use_deterministic_algorithms(True, warn_only=True)" in (root / "c.py").read_text()


# ------------------------------------------------------------------ 2. summary line


def test_summary_line_counts(tmp_path):
    root = project(tmp_path, {
        "train.py": TRAINING,  # DET100 (its fix turns deterministic mode on too): 1 fixed
        "left.py": TIME_SEED,  # DET105: 1 left
        "loader.py": LOADER.format(noqa=""),  # DET104: 1 fixed
        "clean.py": CLEAN,  # nothing
    })
    result = fix(root, "train.py", "left.py", "loader.py", "clean.py")
    assert result.rc == 1, result
    assert summary(result) == "Found 3 problems (2 fixed, 1 left for you) in 3 files.", result

    single = project(tmp_path, {"loader.py": LOADER.format(noqa="")}, name="single")
    result = fix(single, "loader.py")
    assert summary(result) == "Found 1 problem (1 fixed, 0 left for you) in 1 file.", result


# ------------------------------------------------------------------ 3. noqa


def test_noqa_is_honoured(tmp_path):
    files = {
        "named.py": LOADER.format(noqa="  # noqa: DET104"),
        "bare.py": LOADER.format(noqa="  # noqa"),
        "whole.py": "# flake8: noqa\n" + LOADER.format(noqa=""),
        "other.py": LOADER.format(noqa="  # noqa: E501"),
    }
    root = project(tmp_path, files)
    result = fix(root, ".")
    assert result.rc == 0, result
    for name in ("named.py", "bare.py", "whole.py"):
        assert (root / name).read_bytes() == files[name].encode(), name
    other = (root / "other.py").read_text()
    assert "loader = DataLoader(ds, shuffle=True, generator=torch.Generator().manual_seed(torch.initial_seed()))" \
        "  # noqa: E501" in other, other


# ------------------------------------------------------------------ 4. flake8 configuration


def test_extend_ignore_in_setup_cfg(tmp_path):
    root = project(tmp_path, {"loader.py": LOADER.format(noqa="")}, "[flake8]\nextend-ignore = DET104\n")
    result = fix(root, "loader.py")
    assert result.rc == 0, result
    assert (root / "loader.py").read_text() == LOADER.format(noqa="")


def test_per_file_ignores_and_extend_exclude(tmp_path):
    source = LOADER.format(noqa="")
    config = "[flake8]\nextend-exclude = skipme\nper-file-ignores =\n    sub/*.py: DET104\n"
    root = project(tmp_path, {"top.py": source, "sub/inner.py": source, "skipme/skipped.py": source}, config)
    result = fix(root, ".")
    assert result.rc == 0, result
    assert "generator=" in (root / "top.py").read_text()  # the ignore is for sub/ only
    assert (root / "sub" / "inner.py").read_text() == source
    assert (root / "skipme" / "skipped.py").read_text() == source
    assert "skipped.py" not in result.out + result.err


@pytest.mark.parametrize("version, cublas", [("2.8", True), ("2.13", False)])
def test_torch_version_from_setup_cfg(tmp_path, version, cublas):
    root = project(tmp_path, {"train.py": TRAINING}, "[flake8]\ndeterminism-torch-version = %s\n" % version)
    result = fix(root, "train.py")
    assert result.rc == 0, result
    fixed = (root / "train.py").read_text()
    assert "torch.use_deterministic_algorithms(True, warn_only=True)" in fixed
    assert ("CUBLAS_WORKSPACE_CONFIG" in fixed) is cublas, fixed
    if cublas:  # set before deterministic algorithms are switched on
        assert fixed.index("CUBLAS_WORKSPACE_CONFIG") < fixed.index("use_deterministic_algorithms")


def test_select_and_ignore_on_the_command_line(tmp_path):
    # (Not ``select.py``: ``python -m`` puts the folder first on sys.path, where it would shadow
    # the standard library's ``select`` that multiprocessing imports.)
    root = project(tmp_path, {"selected.py": BENCHMARK_AND_LOADER, "ignored.py": BENCHMARK_AND_LOADER})

    result = fix(root, "--select", "DET1", "selected.py")
    assert result.rc == 0, result
    selected = (root / "selected.py").read_text()
    assert "generator=torch.Generator().manual_seed(torch.initial_seed())" in selected
    assert "torch.backends.cudnn.benchmark = True" in selected  # DET301 not selected (DET104 is)

    result = fix(root, "--ignore", "DET104", "ignored.py")
    assert result.rc == 0, result
    ignored = (root / "ignored.py").read_text()
    assert "torch.backends.cudnn.benchmark = False" in ignored
    assert "loader = DataLoader(list(range(4)), shuffle=True)\n" in ignored  # DET104 ignored
    assert "generator=" not in ignored


# ------------------------------------------------------------------ 5. stdin


def test_stdin_to_stdout(tmp_path):
    source = LOADER.format(noqa="")
    root = project(tmp_path, {"loader.py": source})
    expected = fix(root, "loader.py")
    assert expected.rc == 0
    fixed = (root / "loader.py").read_bytes()
    assert fixed != source.encode()

    result = fix(root, "-", stdin=source.encode())
    assert result.rc == 0, result
    assert result.raw_out == fixed, result  # the fixed code and nothing else

    left = fix(root, "-", stdin=TIME_SEED.encode())
    assert left.rc == 1, left  # the in-place rule: a problem remains
    assert left.raw_out == TIME_SEED.encode(), left


# ------------------------------------------------------------------ 6. byte preservation


def test_lines_outside_the_edit_are_identical(tmp_path):
    source = """\
#!/usr/bin/env python
# -*- coding: utf-8 -*-
\"\"\"A loader script.

With a docstring.
\"\"\"
# A comment between docstring and imports.
import torch  # the framework
from torch.utils.data import DataLoader
\x20\x20\x20
# Data: a list.
ds = list(range(10))  # ten items


loader = DataLoader(ds, shuffle=True)  # the loader
# Iterate.
for batch in loader:

    print(batch)  # shows the order
# Trailing comment, no newline at the end"""
    root = project(tmp_path, {"loader.py": source})
    assert fix(root, "loader.py").rc == 0
    fixed = (root / "loader.py").read_text()
    old, new = source.splitlines(True), fixed.splitlines(True)
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += old[i1:i2]
            added += new[j1:j2]
    assert removed == ["loader = DataLoader(ds, shuffle=True)  # the loader\n"], (removed, added)
    # The grown call passes 79 columns: wrapped one argument per line; its comment stays with it.
    assert "".join(added).endswith(
        "loader = DataLoader(\n    ds,\n    shuffle=True,\n    generator=torch.Generator().manual_seed(torch.initial_seed()),\n"
        ")  # the loader\n"), added
    assert fixed.endswith("# Trailing comment, no newline at the end")


# ------------------------------------------------------------------ 7. atomic write


def test_unwritable_directory_is_an_error_and_the_file_is_intact(tmp_path, monkeypatch, capsys):
    source = LOADER.format(noqa="")
    root = project(tmp_path, {"ro/loader.py": source})
    if os.geteuid() != 0:
        os.chmod(root / "ro", 0o555)
        try:
            result = fix(root, "ro/loader.py")
        finally:
            os.chmod(root / "ro", 0o755)
        rc, err = result.rc, result.err
    else:
        # root writes into a read-only directory anyway: make the rename fail as it would there,
        # running the command in this process.
        from flake8_determinism.fix import cli

        def refuse(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.chdir(root)
        monkeypatch.setattr(os, "replace", refuse)
        monkeypatch.setattr(os, "rename", refuse)
        rc = cli.main(["ro/loader.py"])
        captured = capsys.readouterr()
        err = captured.err
        assert "Traceback" not in captured.out + err
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2, err
    assert len(lines) == 1 and "loader.py" in lines[0], err
    assert (root / "ro" / "loader.py").read_text() == source
    assert leftovers(root / "ro") == []


# ------------------------------------------------------------------ 8. idempotence


IDEMPOTENCE_SCRIPTS = {
    "train.py": TORCH_TRAIN,
    "numpy_script.py": NUMPY_SCRIPT,
    "listing.py": LISTING,
    "autotune.py": BENCHMARK,
    "helper.py": UNCALLED_HELPER,
}


def test_idempotent(tmp_path):
    """One run fixes each script as expected; a second run changes nothing; --check agrees.
    (All five in one folder: three runs instead of fifteen.)"""
    root = project(tmp_path, IDEMPOTENCE_SCRIPTS)
    names = sorted(IDEMPOTENCE_SCRIPTS)
    first = fix(root, *names)
    assert first.rc in (0, 1), first
    once = {name: (root / name).read_bytes() for name in names}
    for name in names:
        assert once[name] != IDEMPOTENCE_SCRIPTS[name].encode(), (name, first)  # there was something to fix
        compile(once[name], name, "exec")

    train = once["train.py"].decode()
    # The run is seeded in the __main__ block first; the loader then takes the run's seed.
    assert "        worker_init_fn=seed_worker,\n        generator=torch.Generator().manual_seed(torch.initial_seed()),\n" in train
    assert train.count("def seed_worker(") == 1
    assert "np.random.default_rng(SEED)" in train
    listing = once["listing.py"].decode()
    assert 'sorted(os.listdir("."))' in listing and 'sorted(glob.glob("*.txt"))' in listing
    assert "torch.backends.cudnn.benchmark = False" in once["autotune.py"].decode()
    helper = once["helper.py"].decode()
    assert "set_seed(SEED)" in helper and "random.seed(SEED)" not in helper  # the helper is called
    numpy_script = once["numpy_script.py"].decode()
    assert numpy_script.index("np.random.seed(SEED)") < numpy_script.index("np.random.rand(5)")

    second = fix(root, *names)
    assert second.rc in (0, 1), second
    for name in names:
        assert (root / name).read_bytes() == once[name], (name, second)
    check = fix(root, "--check", *names)
    assert check.rc == 0, check


# ------------------------------------------------------------------ 9. -j


def test_parallel_jobs_give_the_same_result(tmp_path):
    files = {
        "train.py": TORCH_TRAIN, "numpy_script.py": NUMPY_SCRIPT, "listing.py": LISTING,
        "autotune.py": BENCHMARK, "helper.py": UNCALLED_HELPER, "mixed.py": BENCHMARK_AND_LOADER,
        "left.py": TIME_SEED, "clean.py": CLEAN, "sub/loader.py": LOADER.format(noqa=""),
    }
    serial = project(tmp_path, files, name="serial")
    parallel = project(tmp_path, files, name="parallel")
    one = fix(serial, "-j", "1", ".")
    two = fix(parallel, "-j", "2", ".")
    assert one.rc == two.rc == 1, (one, two)
    assert snapshot(serial) == snapshot(parallel)
    assert snapshot(serial) != {name: content.encode() for name, content in files.items()}
    assert one.out == two.out
    assert stderr_lines(one) == stderr_lines(two) == []


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    """``determinism-fix --diff . | head``: the pipe closes while it writes."""
    source = "import os\n\nfiles = os.listdir('data')\nfirst = files[0]\n"
    for index in range(300):  # more diff than a pipe buffers
        (tmp_path / ("m%03d.py" % index)).write_text(source)
    process = subprocess.Popen([sys.executable, "-m", "flake8_determinism.fix", "--diff", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=fresh_environment())
    process.stdout.readline()
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert "Traceback" not in error and "BrokenPipeError" not in error, error


# ------------------------------------------------------------------ line length of the project's formatter

LONG_CALL = '''from sklearn.ensemble import RandomForestClassifier

if __name__ == "__main__":
    forest = RandomForestClassifier(n_estimators=100, max_depth=8)
    print(forest.fit([[0], [1]], [0, 1]).predict([[1]]))
'''


@pytest.mark.parametrize("pyproject,wrapped", [
    ("", True),  # flake8's 79 columns
    ("[tool.black]\nline-length = 120\n", False),
    ("[tool.ruff]\nline-length = 120\n\n[tool.ruff.lint]\nselect = ['E']\n", False),
    ("[tool.isort]\nline-length = 120\n", True),  # not a formatter's
])
def test_added_arguments_wrap_at_the_formatters_line_length(tmp_path, pyproject, wrapped):
    root = project(tmp_path, {"lib.py": LONG_CALL, "pyproject.toml": pyproject})
    assert fix(root, "lib.py").rc in (0, 1)
    text = (root / "lib.py").read_text()
    assert "random_state=SEED" in text
    assert ("max_depth=8, random_state=SEED)" not in text) == wrapped, text


# Unseeded: DET100, whose fix also turns deterministic mode on (the run trains on the GPU).
GPU_TRAIN = '''import torch

if __name__ == "__main__":
    model = torch.nn.Conv2d(3, 8, 3).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 3, 8, 8).cuda()).sum().backward()
    opt.step()
'''


@pytest.mark.parametrize("requirements,warn_only", [
    ("torch>=1.7.0,!=1.12.0\n", False),  # yolov7's: use_deterministic_algorithms has no warn_only before 1.11
    ("torch >= 2.1\nnumpy\n", True),
    ("", True),
])
def test_deterministic_algorithms_only_where_the_declared_torch_has_warn_only(tmp_path, requirements, warn_only):
    # The script lives below the folder holding the requirements (PyTorch-GAN's implementations/*/).
    root = project(tmp_path, {"models/gan/train.py": GPU_TRAIN, "requirements.txt": requirements})
    fix(root, "models/gan/train.py")
    text = (root / "models" / "gan" / "train.py").read_text()
    assert "torch.backends.cudnn.deterministic = True" in text
    assert ("use_deterministic_algorithms(True, warn_only=True)" in text) == warn_only, text


@pytest.mark.parametrize("dockerfile,warn_only", [
    ("FROM nvcr.io/nvidia/pytorch:20.12-py3\n", False),  # StyleGAN2-ADA's: NGC 20.12 ships torch 1.8
    ("FROM pytorch/pytorch:1.7.1-cuda11.0-cudnn8-runtime\n", False),
    ("FROM nvcr.io/nvidia/pytorch:23.10-py3\n", True),
])
def test_the_torch_a_dockerfile_pins_is_the_declared_floor(tmp_path, dockerfile, warn_only):
    root = project(tmp_path, {"train.py": GPU_TRAIN, "Dockerfile": dockerfile})
    fix(root, "train.py")
    text = (root / "train.py").read_text()
    assert ("use_deterministic_algorithms(True, warn_only=True)" in text) == warn_only, text


def test_files_are_processed_and_reported_in_sorted_order(tmp_path):
    """Created in another order (the file system's listing order follows it on many file
    systems), the files come out sorted by path, as flake8 reports them."""
    names = ["zeta.py", "alpha.py", "sub/beta.py", "mid.py"]
    draw = "import random\nx = random.random()\n"  # a library module: reported, not fixed
    root = project(tmp_path, {name: draw for name in names})
    result = fix(root, ".")
    shown = [line.split(":", 1)[0] for line in result.out.splitlines() if "DET101" in line]
    assert shown == sorted(shown) and len(shown) == len(names), result.out


# ------------------------------------------------------------------ --statistics, --output-format

# DET104 (fixed) and DET105 (left) in one script, the left one below the inserted block.
FIXED_AND_LEFT = LOADER.format(noqa="") + "\nimport random\nimport time\n\nrandom.seed(int(time.time()))\n"


def _statistics_rows(out: str) -> dict:
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0].startswith(("DET", "total")):
            rows[parts[0]] = [int(part) for part in parts[1:]]
    return rows


def test_statistics_count_alike_in_diff_check_and_in_place(tmp_path):
    root = project(tmp_path, {"train.py": FIXED_AND_LEFT})
    counts = [_statistics_rows(fix(root, flag, "--statistics", "train.py").out) for flag in ("--diff", "--check")]
    written = fix(root, "--statistics", "train.py")
    counts.append(_statistics_rows(written.out))
    assert counts[0] == counts[1] == counts[2]
    assert counts[2]["DET104"] == [1, 1, 0, 0] and counts[2]["DET105"] == [1, 0, 1, 0]
    assert counts[2]["total"] == [2, 1, 1, 0]
    assert written.rc == 1  # something is left, as without --statistics


def test_a_problem_the_fixes_reveal_counts_as_found():
    # A fix can leave a problem the file did not have (seeding a run can make a message that
    # needs a seeded run true): it counts as found, so found = fixed + left, never negative.
    from types import SimpleNamespace as Fake

    from flake8_determinism.fix.cli import _counts, _found_and_fixed

    def problem(code, message):
        return Fake(finding=Fake(code=code, message=message))

    seeding = problem("DET100", "DET100 training run seeds no RNG")
    revealed = problem("DET210", "DET210 this run seeds MindSpore, but ... at train.py:9")
    result = Fake(found=[seeding], left=[revealed], unsafe=[revealed])
    assert _found_and_fixed(_counts(result)) == (2, 1)
    assert _counts(result) == {"DET100": [1, 0, 0], "DET210": [1, 1, 1]}
    moved = Fake(found=[problem("DET105", "DET105 at line 3")], left=[problem("DET105", "DET105 at line 9")],
                 unsafe=[])
    assert _found_and_fixed(_counts(moved)) == (1, 0)  # the same problem, moved by an edit above it


def test_json_output_points_into_the_file_as_it_stands(tmp_path):
    import json

    root = project(tmp_path, {"train.py": FIXED_AND_LEFT})
    checked = fix(root, "--check", "--output-format", "json", "train.py")
    data = json.loads(checked.out)
    assert checked.rc == 1 and data["mode"] == "check" and data["files_changed"] == 1
    (left,) = data["findings"]
    assert left["code"] == "DET105" and left["fix"] == "none"
    lines = (root / "train.py").read_text().splitlines()
    assert lines[left["line"] - 1].startswith("random.seed(int(time.time()))")  # unchanged file
    assert data["statistics"]["DET104"] == {"found": 1, "fixed": 1, "left": 0, "unsafe": 0}
    assert "would be changed" in checked.err  # the summary, on stderr
    written = json.loads(fix(root, "--output-format", "json", "train.py").out)
    (left,) = written["findings"]
    fixed_lines = (root / "train.py").read_text().splitlines()
    assert fixed_lines[left["line"] - 1].startswith("random.seed(int(time.time()))")  # in the fixed file


def test_github_annotations_for_what_is_left(tmp_path):
    root = project(tmp_path, {"train.py": FIXED_AND_LEFT})
    out = fix(root, "--diff", "--output-format", "github", "train.py").out.splitlines()
    assert "::notice file=train.py::determinism-fix would change this file" in out
    (warning,) = [line for line in out if line.startswith("::warning")]
    assert warning.startswith("::warning file=train.py,line=12,col=1,title=DET105::random.seed() takes")
    assert "--- train.py" in out  # --diff still prints the diff; the annotations come after it


# DET109 only: seeding that runs only when --seed is given (its fix is unsafe).
OPTIONAL_SEED = """\
import argparse
import random

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=None)
args = parser.parse_args()
if args.seed is not None:
    random.seed(args.seed)
print(random.random())
"""


def test_the_summary_counts_a_problem_left_with_an_unsafe_fix_once(tmp_path):
    root = project(tmp_path, {"train.py": OPTIONAL_SEED})
    result = fix(root, "train.py")
    assert summary(result) == "Found 1 problem (0 fixed, 1 left for you, 1 of them fixable with --unsafe-fixes)" \
        " in 1 file.", result
