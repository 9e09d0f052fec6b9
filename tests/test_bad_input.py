"""Bad input, for both tools (issue 12): the flake8 plugin and the ``determinism-fix`` codemod.

The table ``CASES`` lists every kind of file, what ``flake8 --select=DET,E9`` reports on
it and what the codemod does with it: exit status, the one line it says on stderr
(``determinism-fix: PATH: ...``) and the file's bytes afterwards.  Every case runs
through the real tools in subprocesses (with timeouts: nothing may hang):

- flake8 once, over a folder holding every case's file (``test_plugin``): flake8 itself
  reports E999 (does not parse) and E902 (cannot be read); our plugin adds no traceback
  and no DET report on a file that does not parse.  Undecodable files are read by flake8
  as latin-1 (its own fallback, pyflakes reports on them too), so DET reports there are
  the code's, not noise.
- the ``determinism-fix`` console script per case in place, with ``--check``, with
  ``--diff`` and on stdin (``-``), each in its own folder (``test_codemod``).  The rules
  (RULES.md): in place 0 = nothing left, 1 = problems remain; ``--check``/``--diff`` 0 =
  nothing would change, 1 = something would; 2 on an error, with exactly one line on
  stderr and the file untouched.  On stdin the output is what in place would write (the
  input itself on an error).

Below the table, the cases that need more than a file: a read-only file, symlinks, a
named pipe, a directory named ``x.py``, a path that vanishes mid-run, a file edited
while it is being fixed, a run killed in the middle of its write, a file owned by
another user, a terminal that cannot show the output.  Those that must interrupt the
codemod at a precise moment run its ``main`` in a subprocess whose ``files``/``cli``
functions are patched (``PATCHED``), and are killed or interfered with there.
"""

import ast
import importlib.util
import os
import re
import signal
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import pytest

from run_support import fresh_environment

TIMEOUT = 120  # seconds for one run of a tool on a small file, on a loaded 2-core machine
BIG_TIMEOUT = 400  # the 50,000-line file in place, on the same machine
SAME = None  # "the file's bytes afterwards": unchanged

# ------------------------------------------------------------------ the sources

# DET104 on line 7: a shuffling DataLoader with workers in a run that never seeds torch.  Its fix
# inserts imports, the seeding block (indented, in the ``__main__`` block) and the loader's
# ``generator=``: so line endings, indentation and encoding are all exercised in inserted code.
BASE = '''\
"""Train on a shuffled loader."""
import torch
from torch.utils.data import DataLoader


def main():
    loader = DataLoader(list(range(8)), batch_size=2, shuffle=True, num_workers=2)
    for batch in loader:
        print(batch)


if __name__ == "__main__":
    main()
'''
BASE_REPORT = "7:14 DET104"

FIXED = '''\
"""Train on a shuffled loader."""
import random

import numpy as np
import torch
from torch.utils.data import DataLoader

# Reproducibility (inserted by determinism-fix).
SEED = 0


def main():
    loader = DataLoader(
        list(range(8)),
        batch_size=2,
        shuffle=True,
        num_workers=2,
        generator=torch.Generator().manual_seed(torch.initial_seed()),
    )
    for batch in loader:
        print(batch)


if __name__ == "__main__":
    # Reproducibility (inserted by determinism-fix).
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.cuda.manual_seed_all(SEED)
    main()
'''
# The seeding block seeds NumPy only where NumPy can be imported (``Settings.numpy_importable``):
# ``.ci/run`` runs these tests on Pythons without it too.
NUMPY = importlib.util.find_spec("numpy") is not None
_NUMPY_LINES = ("import numpy as np\n", "    np.random.seed(SEED)\n")
if not NUMPY:
    FIXED = "".join(line for line in FIXED.splitlines(True) if line not in _NUMPY_LINES)

BOM = b"\xef\xbb\xbf"


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def with_endings(text: str, endings: str) -> bytes:
    """``text`` with its i-th line ending in CRLF where ``endings[i]`` is ``R``, LF where ``N``."""
    lines = text.splitlines()
    assert len(lines) == len(endings), (len(lines), len(endings))
    return b"".join(line.encode() + (b"\r\n" if end == "R" else b"\n") for line, end in zip(lines, endings))


def tabs(text: str) -> bytes:
    return text.replace("        ", "\t\t").replace("    ", "\t").encode()


def before_main(text: str, filler: str) -> str:
    return text.replace("\n\ndef main():", "\n\n" + filler + "def main():", 1)


# An ordinary module of 50,000 lines: 2,500 small functions documented in NumPy's style,
# between the imports and ``main``.  It must be linted and fixed in bounded time: ``guard``
# lets it through (real code), a pathological shape it would skip is in tests/test_guard.py.
# Many top-level statements after a docstring: ``test_many_top_level_statements_after_a_docstring``.
FUNCTION = '''\
def step{i}(x):
    """Return ``x`` moved by {i}.

    One of the many small helpers of an ordinary large module.

    Parameters
    ----------
    x : float
        The value to move:
        any number.

    Returns
    -------
    float
        ``x + {i}``.
    """
    # Documented as the rest of the module is.
    return x + {i}


'''
assert FUNCTION.count("\n") == 20
BIG_FILLER = "".join(FUNCTION.format(i=i) for i in range(2500))
DOCSTRING = '"""Train on a shuffled loader."""\n'
BIG = before_main(BASE.replace(DOCSTRING, ""), BIG_FILLER)
assert BIG.count("\n") >= 50000


class Case(NamedTuple):
    name: str
    data: bytes
    plugin: Tuple[str, ...]  # flake8's reports (``line:col CODE``; E9xx by code alone)
    rc: int  # determinism-fix in place (and on stdin)
    message: str  # a piece of its one stderr line, ``determinism-fix: PATH: ...``; "" = it says nothing
    after: Optional[bytes]  # the file's bytes after the fix in place (SAME: untouched)
    modes: Tuple[str, ...] = ("write", "check", "diff", "stdin")


CASES = [
    # Not Python 3: flake8 says E999, the codemod cannot parse it.
    Case("syntax_error", b"import torch\ndef f(:\n    pass\n", ("E999",), 2, "cannot parse: ", SAME),
    Case("python2", BASE.replace("print(batch)", 'print "batch", batch').encode(), ("E999",), 2,
         "cannot parse: Missing parentheses in call to 'print'", SAME),
    Case("nul_bytes", BASE.replace("import torch\n", "import torch  # \0\n").encode(), ("E999",), 2,
         "contains NUL bytes (line 2)", SAME),
    # Undecodable: flake8 falls back to latin-1 and lints; the codemod cannot write back what it
    # cannot decode, and says where the bad byte is.
    Case("not_utf8_no_cookie", b"# caf\xe9\n" + BASE.encode(), ("8:14 DET104",), 2,
         "cannot decode: byte 0xe9 on line 1 is not UTF-8, and no coding cookie declares another encoding",
         SAME),
    Case("unknown_cookie", b"# -*- coding: klingon -*-\n" + BASE.encode(), ("8:14 DET104",), 2,
         "cannot decode: unknown encoding: klingon", SAME),
    Case("wrong_cookie", b"# -*- coding: ascii -*-\n# caf\xc3\xa9\n" + BASE.encode(), ("9:14 DET104",), 2,
         "cannot decode: byte 0xc3 on line 2 is not valid ascii, the encoding its coding cookie declares", SAME),
    # Decodable, kept byte for byte around the fix: the encoding its cookie names, the BOM, the
    # line endings (inserted lines take the first line's ending), tabs.
    Case("latin1_cookie", ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + BASE).encode("latin-1"),
         ("9:14 DET104",), 0, "", ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXED).encode("latin-1")),
    Case("utf8_bom", BOM + BASE.encode(), (BASE_REPORT,), 0, "", BOM + FIXED.encode()),
    Case("crlf", crlf(BASE), (BASE_REPORT,), 0, "", crlf(FIXED)),
    Case("mixed_endings", with_endings(BASE, "RN" * 6 + "R"), (BASE_REPORT,), 0, "",
         with_endings(FIXED, "RRRRNRRRRNRNRRRRRRRNRNRNRRRRRR" if NUMPY else "RRRNRRRRNRNRRRRRRRNRNRNRRRRR")),
    Case("tabs", tabs(BASE), ("7:11 DET104",), 0, "", tabs(FIXED)),
    # Nothing to do.
    Case("empty", b"", (), 0, "", SAME),
    Case("only_a_comment", b"# nothing here\n", (), 0, "", SAME),
    # Big: linted and fixed (not skipped), in bounded time; in place only (the slow mode).
    Case("lines_50000", BIG.encode(), ("%d:14 DET104" % (6 + BIG_FILLER.count("\n")),), 0, "",
         before_main(FIXED.replace(DOCSTRING, ""), BIG_FILLER).encode(), modes=("write",)),
]

# Where ``ast.parse`` rejects NUL bytes with ValueError (older Pythons: 3.9 and 3.10 here), flake8
# itself crashes on such a file, before any plugin runs (it catches SyntaxError only:
# PyCQA/flake8#1822); its traceback would take the whole folder's run down, so that file is
# linted alone there.
try:
    ast.parse("\0")
except ValueError:
    FLAKE8_CRASHES_ON_NUL = True
except SyntaxError:
    FLAKE8_CRASHES_ON_NUL = False

# ------------------------------------------------------------------ running the tools


class Run(NamedTuple):
    rc: int
    out: bytes
    err: str


def codemod_command() -> List[str]:
    """The installed console script (what users run); ``python -m`` where it is not installed."""
    script = Path(sys.executable).with_name("determinism-fix")
    return [str(script)] if script.exists() else [sys.executable, "-m", "flake8_determinism.fix"]


def run(command: Sequence[str], cwd: Path, stdin: bytes = b"", timeout: float = TIMEOUT, **env: str) -> Run:
    """Run a tool; a hang fails the test (``TimeoutExpired``), so does a traceback."""
    proc = subprocess.run(list(command), cwd=str(cwd), input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, env=fresh_environment(**env))
    result = Run(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))
    assert "Traceback" not in result.err + result.out.decode("utf-8", "replace"), result
    return result


def codemod(cwd: Path, *args: str, stdin: bytes = b"", timeout: float = TIMEOUT, **env: str) -> Run:
    return run(codemod_command() + list(args), cwd, stdin, timeout, **env)


def flake8(cwd: Path, *args: str, timeout: float = 300) -> Run:
    return run([sys.executable, "-m", "flake8", "--select=DET,E9", *args], cwd, timeout=timeout)


def flake8_reports(result: Run) -> Dict[str, List[str]]:
    """``{file name: ["line:col CODE", ...]}`` from flake8's output."""
    found: Dict[str, List[str]] = {}
    for line in result.out.decode("utf-8", "replace").splitlines():
        path, row, col, rest = line.split(":", 3)
        found.setdefault(os.path.normpath(path), []).append("%s:%s %s" % (row, col, rest.split()[0]))
    return found


def matches(reported: Sequence[str], expected: Sequence[str]) -> bool:
    """flake8's E9xx positions vary with the Python version: those compare by code."""
    return len(reported) == len(expected) and all(
        got == want or (want.startswith("E9") and got.endswith(" " + want)) for got, want in zip(reported, expected))


def project(root: Path, files: Dict[str, bytes]) -> Path:
    """A folder with its own ``setup.cfg`` (flake8's configuration search stops there)."""
    root.mkdir(parents=True)
    (root / "setup.cfg").write_text("[flake8]\n")
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def stderr_lines(result: Run) -> List[str]:
    return [line for line in result.err.splitlines() if line.strip()]


def leftovers(directory: Path) -> List[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".determinism-fix-") or p.suffix == ".tmp")


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    """Every tool on every case, concurrently (each run in its own folder): flake8 once over all
    the files, the codemod once per case and mode.  Returns ``(flake8 run, {(case, mode): (run,
    folder)})``."""
    base = tmp_path_factory.mktemp("bad_input")
    lint = project(base / "lint", {case.name + ".py": case.data for case in CASES
                                   if not (FLAKE8_CRASHES_ON_NUL and b"\0" in case.data)})
    jobs = []  # (key, folder, arguments, stdin), the big file first: it takes longest
    for case in sorted(CASES, key=lambda case: -len(case.data)):
        for mode in case.modes:
            folder = project(base / ("%s-%s" % (case.name, mode)), {case.name + ".py": case.data})
            if mode == "stdin":
                jobs.append(((case.name, mode), folder, ("-",), case.data))
            else:
                flags = () if mode == "write" else ("--" + mode,)
                jobs.append(((case.name, mode), folder, flags + (case.name + ".py",), b""))
    with ThreadPoolExecutor(max_workers=3) as pool:
        linted = pool.submit(flake8, lint, ".")
        runs = {key: (pool.submit(codemod, folder, *args, stdin=stdin, timeout=BIG_TIMEOUT), folder)
                for key, folder, args, stdin in jobs}
        return linted.result(), {key: (future.result(), folder) for key, (future, folder) in runs.items()}


# ------------------------------------------------------------------ the matrix


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_plugin(matrix, case, tmp_path):
    if FLAKE8_CRASHES_ON_NUL and b"\0" in case.data:
        alone = subprocess.run([sys.executable, "-m", "flake8", "--select=DET,E9", "nul.py"],
                               cwd=str(project(tmp_path / "p", {"nul.py": case.data})),
                               capture_output=True, text=True, timeout=TIMEOUT)
        assert "ValueError: source code string cannot contain null bytes" in alone.stderr, alone
        assert "flake8_determinism" not in alone.stderr, alone  # not in our plugin: it is never called
        pytest.xfail("flake8 itself crashes on NUL bytes on this Python (PyCQA/flake8#1822)")
    linted, _ = matrix
    assert linted.err == "", linted  # no traceback, no warning: our plugin says nothing of its own
    reported = flake8_reports(linted).get(case.name + ".py", [])
    assert matches(reported, case.plugin), (reported, case.plugin)
    if any(code.startswith("E9") for code in case.plugin):
        assert not [r for r in reported if " DET" in r], reported  # no DET noise on what does not parse


MODES = [(case, mode) for case in CASES for mode in case.modes]


@pytest.mark.parametrize("case, mode", MODES, ids=["%s-%s" % (case.name, mode) for case, mode in MODES])
def test_codemod(matrix, case, mode):
    _, runs = matrix
    result, folder = runs[case.name, mode]
    name = case.name + ".py"
    after = case.data if case.after is SAME else case.after
    error = case.rc == 2
    lines = stderr_lines(result)
    shown = "-" if mode == "stdin" else name
    if error:  # one line, naming the file; nothing else anywhere (no summary: the line says it all)
        assert result.rc == 2, result
        assert len(lines) == 1 and lines[0].startswith("determinism-fix: %s: " % shown), result
        assert case.message in lines[0], (lines[0], case.message)
    elif mode == "stdin":  # the summary goes to stderr, stdout carries the code
        assert not [line for line in lines if line.startswith("determinism-fix:")], result
    else:
        assert lines == [], result

    if mode == "write":
        assert result.rc == case.rc, result
        assert (folder / name).read_bytes() == after
        if case.after is not SAME:
            compile(after, name, "exec")  # still Python, and the same encoding Python reads
    elif mode == "stdin":
        assert result.rc == case.rc, result
        assert result.out == after, result  # what in place writes; the input itself on an error
    else:  # --check, --diff: nothing written; 1 when in place would change the file
        assert (folder / name).read_bytes() == case.data
        expected = 2 if error else 1 if after != case.data else 0
        assert result.rc == expected, result
        out = result.out.decode("utf-8", "replace")
        if mode == "diff":
            assert ("--- %s" % name in out) == (expected == 1), out
        else:
            assert ("would fix %s" % name in out) == (expected == 1), out
        if error:
            assert out == "", out
    assert leftovers(folder) == []


# ------------------------------------------------------------------ read-only files


def test_read_only_file_is_not_replaced(tmp_path):
    """Mode 0444 means "do not change this": the codemod refuses to replace it (even as root,
    where ``os.access`` says writable and the rename would go through), through a symlink
    too; ``--check`` still says it would change; a read-only file with nothing to fix is fine."""
    root = project(tmp_path / "p", {"ro.py": BASE.encode(), "ro_clean.py": b"import os\n"})
    os.symlink("ro.py", str(root / "link_to_ro.py"))
    for name in ("ro.py", "ro_clean.py"):
        os.chmod(root / name, 0o444)

    result = codemod(root, "ro.py", "link_to_ro.py", "ro_clean.py")
    assert result.rc == 2, result
    assert stderr_lines(result) == [
        "determinism-fix: ro.py: is read-only (mode 0444); left as it is",
        "determinism-fix: link_to_ro.py: skipped: a symlink to ro.py, which is fixed as itself",
    ], result
    alone = codemod(root, "link_to_ro.py")  # the link alone: the file is fixed through it, or refused
    assert stderr_lines(alone) == ["determinism-fix: link_to_ro.py: is read-only (mode 0444); left as it is"]
    assert (root / "ro.py").read_bytes() == BASE.encode()
    assert stat.S_IMODE(os.stat(root / "ro.py").st_mode) == 0o444
    assert (root / "link_to_ro.py").is_symlink()
    assert leftovers(root) == []

    check = codemod(root, "--check", "ro.py")
    assert check.rc == 1 and b"would fix ro.py" in check.out, check

    assert flake8_reports(flake8(root, "ro.py")) == {"ro.py": [BASE_REPORT]}


# ------------------------------------------------------------------ symlinks


def test_symlink_target_is_fixed_and_the_link_stays(tmp_path):
    """Also: mode bits are kept, and no temporary file is left."""
    root = project(tmp_path / "p", {"plain.py": BASE.encode(), "real/target.py": BASE.encode()})
    os.chmod(root / "plain.py", 0o640)
    os.symlink(os.path.join("real", "target.py"), str(root / "link.py"))

    assert flake8_reports(flake8(root, "link.py")) == {"link.py": [BASE_REPORT]}
    result = codemod(root, "plain.py", "link.py")
    assert result.rc == 0 and stderr_lines(result) == [], result

    assert (root / "link.py").is_symlink()
    assert os.readlink(str(root / "link.py")) == os.path.join("real", "target.py")
    assert (root / "real" / "target.py").read_text() == FIXED
    assert (root / "plain.py").read_text() == FIXED
    assert stat.S_IMODE(os.stat(root / "plain.py").st_mode) == 0o640
    # (flake8's run left the project model's cache, as ruff and mypy leave theirs)
    assert sorted(p.name for p in root.iterdir()) == [".determinism_cache", "link.py", "plain.py", "real", "setup.cfg"]
    assert sorted(p.name for p in (root / "real").iterdir()) == ["target.py"]


def test_dangling_symlink_and_symlink_loop(tmp_path):
    root = project(tmp_path / "p", {})
    os.symlink("nowhere.py", str(root / "dangling.py"))
    os.symlink("loop.py", str(root / "loop.py"))

    linted = flake8_reports(flake8(root, "dangling.py", "loop.py"))
    assert {name: [r.split()[1] for r in reports] for name, reports in linted.items()} == {
        "dangling.py": ["E902"], "loop.py": ["E902"]}, linted

    result = codemod(root, "dangling.py", "loop.py")
    assert result.rc == 2, result
    assert stderr_lines(result) == [
        "determinism-fix: dangling.py: is a dangling symlink (to nowhere.py, which does not exist)",
        "determinism-fix: loop.py: Too many levels of symbolic links",
    ], result
    assert result.out == b"", result
    assert sorted(p.name for p in root.iterdir()) == ["dangling.py", "loop.py", "setup.cfg"]  # nothing created


# ------------------------------------------------------------------ not a regular file


def test_directory_named_like_a_python_file(tmp_path):
    """``x.py`` a directory: both tools go into it, as flake8's discovery does."""
    root = project(tmp_path / "p", {"x.py/inner.py": BASE.encode(), "good.py": BASE.encode()})
    assert flake8_reports(flake8(root, "x.py", "good.py")) == {
        "x.py/inner.py": [BASE_REPORT], "good.py": [BASE_REPORT]}
    result = codemod(root, "x.py", "good.py")
    assert result.rc == 0 and stderr_lines(result) == [], result
    assert (root / "x.py" / "inner.py").read_text() == FIXED
    assert (root / "good.py").read_text() == FIXED


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_named_pipe_is_refused_without_blocking(tmp_path):
    """Opening a named pipe waits for a writer; the codemod must not.  (flake8 itself blocks on
    one, named or found in a folder, before our plugin is called: not run here.)"""
    root = project(tmp_path / "p", {"good.py": BASE.encode()})
    os.mkfifo(str(root / "pipe.py"))
    for args in (["pipe.py"], ["."]):
        result = codemod(root, *args, timeout=60)
        assert result.rc == 2, result
        shown = "pipe.py" if args == ["pipe.py"] else "./pipe.py"
        assert stderr_lines(result) == [
            "determinism-fix: %s: is a named pipe, not a regular file; not read" % shown], result
    assert (root / "good.py").read_text() == FIXED  # fixed by the run over the folder


# ------------------------------------------------------------------ interference mid-run

# Runs the codemod's ``main`` after ``SETUP`` patched it (argv[1]: the setup's argument).
PATCHED = """\
import os, signal, sys, types
from flake8_determinism.fix import cli, files
stage = sys.argv[1]
{setup}
sys.exit(cli.main(sys.argv[2:]))
"""


def patched(cwd: Path, setup: str, stage: str, *args: str) -> Run:
    return run([sys.executable, "-c", PATCHED.format(setup=setup), stage, *args], cwd)


def test_path_vanishing_after_the_directory_walk(tmp_path):
    """A file the walk found is deleted before it is read: one line, the others are fixed."""
    root = project(tmp_path / "p", {"a.py": BASE.encode(), "gone.py": BASE.encode(), "z.py": BASE.encode()})
    setup = """
real = cli.read_source
def read_source(path):
    if path.endswith(stage):
        os.remove(path)
    return real(path)
cli.read_source = read_source
"""
    result = patched(root, setup, "gone.py", ".")
    assert result.rc == 2, result
    assert stderr_lines(result) == ["determinism-fix: ./gone.py: No such file or directory"], result
    assert (root / "a.py").read_text() == (root / "z.py").read_text() == FIXED
    assert not (root / "gone.py").exists()
    # flake8 on a path that is gone when it reads it: E902, and our plugin is never called.
    assert [r.split()[1] for r in flake8_reports(flake8(root, "gone.py"))["gone.py"]] == ["E902"]


@pytest.mark.parametrize("stage, message", [
    ("delete", "was deleted while it was being fixed; not written"),
    ("edit", "changed while it was being fixed; left as it is"),
])
def test_file_deleted_or_edited_between_read_and_write(tmp_path, stage, message):
    """Someone else's change between our read and our write wins: a deleted file is not
    brought back, an edited one is not overwritten."""
    root = project(tmp_path / "p", {"train.py": BASE.encode()})
    setup = """
real = cli.write_atomically
def write_atomically(source, text):
    if stage == "delete":
        os.remove(source.path)
    else:
        with open(source.path, "a") as handle:
            handle.write("# edited meanwhile\\n")
    real(source, text)
cli.write_atomically = write_atomically
"""
    result = patched(root, setup, stage, "train.py")
    assert result.rc == 2, result
    assert stderr_lines(result) == ["determinism-fix: train.py: " + message], result
    if stage == "delete":
        assert not (root / "train.py").exists()
    else:
        assert (root / "train.py").read_text() == BASE + "# edited meanwhile\n"
    assert sorted(p.name for p in root.iterdir()) == ["setup.cfg"] + (["train.py"] if stage == "edit" else [])


KILL = """
def kill(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

class HalfWriter:
    def __init__(self, stream):
        self.stream = stream
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        self.stream.close()
    def write(self, data):
        self.stream.write(data[:len(data) // 2])
        self.stream.flush()
        kill()

fake = types.ModuleType("os")
fake.__dict__.update(os.__dict__)
if stage == "half-written":
    fake.fdopen = lambda fd, mode="r", *args: (HalfWriter if "w" in mode else lambda f: f)(os.fdopen(fd, mode, *args))
else:  # the temporary file is complete, the rename is next
    fake.replace = kill
files.os = fake
"""


@pytest.mark.parametrize("stage", ["half-written", "before-rename"])
def test_killed_mid_write_leaves_the_file_intact(tmp_path, stage):
    """SIGKILL in the middle of the write: the file is byte for byte what it was; what is left
    is the temporary file beside it, ``.determinism-fix-train.py.XXXXXXXX.tmp``.  A later run
    fixes the file and leaves that one alone (it is not ``*.py``, neither tool reads it; it is
    not deleted either: another run may be writing it)."""
    original = crlf(BASE)
    root = project(tmp_path / "p", {"train.py": original})
    result = patched(root, KILL, stage, "train.py")
    assert result.rc == -signal.SIGKILL, result
    assert (root / "train.py").read_bytes() == original

    left = leftovers(root)
    assert len(left) == 1 and re.fullmatch(r"\.determinism-fix-train\.py\.\w+\.tmp", left[0]), left
    written = (root / left[0]).read_bytes()
    assert written == (crlf(FIXED)[:len(crlf(FIXED)) // 2] if stage == "half-written" else crlf(FIXED))

    again = codemod(root, ".")
    assert again.rc == 0 and stderr_lines(again) == [], again
    assert (root / "train.py").read_bytes() == crlf(FIXED)
    assert leftovers(root) == left and (root / left[0]).read_bytes() == written
    assert flake8(root, ".").out == b""


def test_many_top_level_statements_after_a_docstring(tmp_path):
    """1,000 one-line constants after the docstring, an import to add: fixed like any file
    (libcst's AddImportsVisitor recursed once per statement after a docstring: RecursionError
    past ~950, until fix/transform.py gave it the module's head only)."""
    constants = "".join("STEP%d = %d\n" % (i, i) for i in range(1000)) + "\n\n"
    root = project(tmp_path / "p", {"constants.py": before_main(BASE, constants).encode()})
    result = codemod(root, "constants.py")
    assert result.rc == 0 and stderr_lines(result) == [], result
    assert (root / "constants.py").read_text() == before_main(FIXED, constants)


# ------------------------------------------------------------------ owner, terminal


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_owner_and_group_are_kept(tmp_path):
    """Run as root on a user's file, the rewritten file is still the user's (the rename of a
    temporary file would otherwise hand it to root)."""
    root = project(tmp_path / "p", {"train.py": BASE.encode()})
    os.chown(root / "train.py", 4321, 4322)
    result = codemod(root, "train.py")
    assert result.rc == 0, result
    status = os.stat(root / "train.py")
    assert (status.st_uid, status.st_gid) == (4321, 4322)
    assert (root / "train.py").read_text() == FIXED


def test_output_a_terminal_cannot_show(tmp_path):
    """A latin-1 file's diff, a message with "—", on a stdout that only takes ASCII: escaped,
    never a traceback."""
    latin1 = ("# -*- coding: latin-1 -*-\n" + BASE.replace("print(batch)", "print('caf\xe9', batch)")).encode("latin-1")
    left = b"import time\n\nimport torch\n\ntorch.manual_seed(int(time.time()))\nprint(torch.rand(3))\n"
    root = project(tmp_path / "p", {"latin1.py": latin1, "left.py": left})
    diff = codemod(root, "--diff", "latin1.py", PYTHONIOENCODING="ascii")
    assert diff.rc == 1, diff
    assert b"print('caf\\xe9', batch)" in diff.out, diff
    result = codemod(root, "left.py", PYTHONIOENCODING="ascii")
    assert result.rc == 1, result
    assert b"DET105" in result.out and b"\\u2014" in result.out, result
    assert (root / "latin1.py").read_bytes() == latin1 and (root / "left.py").read_bytes() == left
