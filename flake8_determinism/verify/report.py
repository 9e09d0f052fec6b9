"""What ``determinism-verify`` prints on stdout: the table, the verdict with its
diagnosis, and, when the runs differ, the linter's findings on the script."""

import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Union

from ..console import plural
from .compare import Comparison, StepRow, Tolerance, diagnose

HEAD = TAIL = 3  # rows always shown at each end of the table
MAX_DIVERGENT_ROWS = 20  # divergent rows shown; the rest are counted on one line
FLAKE8_TIMEOUT = 120  # seconds


def marks(stream=None) -> Sequence[str]:
    """✓/✗, or words on a terminal that cannot show them."""
    encoding = getattr(stream if stream is not None else sys.stdout, "encoding", None) or "utf-8"  # StringIO: none
    try:
        "✓✗Δ⋮".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return ("ok", "DIFF", "d", "...")
    return ("✓", "✗", "Δ", "⋮")


def table(comparison: Comparison, stream=None) -> List[str]:
    agree, differ, delta, gap = marks(stream)
    runs = len(comparison.lengths)
    header = ["step"] + ["run %d" % number for number in range(1, runs + 1)] + ["max |%s|" % delta, ""]
    layout = _layout(comparison.rows)
    cells = {}
    for row in layout:
        if isinstance(row, StepRow):
            values = [step.text if step is not None else "—" for step in row.steps]
            cells[row.index] = [str(row.index)] + values + [_diff(row.max_diff), agree if row.agrees else differ]
    widths = [max(len(line[i]) for line in [header] + list(cells.values())) for i in range(len(header))]
    lines = [_format(header, widths)]
    for row in layout:
        if isinstance(row, StepRow):
            lines.append(_format(cells[row.index], widths))
        else:
            lines.append("%s  %s" % (gap.rjust(widths[0]), row))
    return lines


def _format(cells: Sequence[str], widths: Sequence[int]) -> str:
    # numbers right-aligned as in any log; the mark column left as it is
    return ("  ".join(cell.rjust(width) for cell, width in zip(cells[:-1], widths)) + "  " + cells[-1]).rstrip()


def _diff(value: Optional[float]) -> str:
    if value is None:
        return "—"
    return "0" if value == 0 else "%.3g" % value


def _layout(rows: Sequence[StepRow]) -> List[Union[StepRow, str]]:
    """The rows shown: the first and last few and the divergent ones (at most
    MAX_DIVERGENT_ROWS of those); each run of rows left out becomes one line that counts
    them."""
    ends = set(range(min(HEAD, len(rows)))) | set(range(max(0, len(rows) - TAIL), len(rows)))
    divergent = [row.index for row in rows if not row.agrees]
    keep = ends | set(divergent[:MAX_DIVERGENT_ROWS])
    layout = []  # type: List[Union[StepRow, str]]
    left_out = []  # type: List[StepRow]
    for row in list(rows) + [None]:
        if row is not None and row.index not in keep:
            left_out.append(row)
            continue
        if left_out:
            layout.append(_left_out(left_out))
            left_out = []
        if row is not None:
            layout.append(row)
    return layout


def _left_out(rows: Sequence[StepRow]) -> str:
    differing = sum(1 for row in rows if not row.agrees)
    what = "all match" if not differing else "all differ" if differing == len(rows) else "%d differ" % differing
    return "%s not shown (%s)" % (plural(len(rows), "step"), what)


def verdict(comparison: Comparison, tolerance: Tolerance) -> List[str]:
    """The summary: reproducible or not, the first divergent step's lines, the diagnosis."""
    runs = len(comparison.lengths)
    steps = len(comparison.rows)
    if comparison.reproducible:
        largest = max((row.max_diff for row in comparison.rows if row.max_diff is not None), default=0.0)
        detail = "" if tolerance.exact else "; largest difference %s" % _diff(largest)
        where = "their only step" if steps == 1 else "all %d steps" % steps
        return ["Reproducible: %d runs agree at %s (%s%s)." % (runs, where, tolerance.describe(), detail)]
    divergent = comparison.divergent
    first = divergent[0]
    lines = ["Not reproducible: %d of %s differ (%s); the first is step %d:" % (
        len(divergent), plural(steps, "step"), tolerance.describe(), first.index)]
    for number, step in enumerate(first.steps, 1):
        if step is None:
            lines.append("  run %d: (no step %d: it logged %d)" % (number, first.index, comparison.lengths[number - 1]))
        else:
            lines.append("  run %d, %s line %d: %s" % (number, step.stream, step.lineno, step.line))
    lines.append("Diagnosis: " + diagnose(comparison))
    return lines


def script_of(command: Sequence[str], cwd: str = ".") -> Optional[Path]:
    """The Python file the command runs, as far as its words tell: the first ``*.py``
    argument that is a file (``python train.py``, ``torchrun train.py``, ``./train.py``),
    the module after ``-m`` when it is a file under ``cwd``, or a script with a python
    shebang run by name."""
    base = Path(cwd)
    for word in command:
        if word.endswith(".py") and (base / word).is_file():
            return base / word
    for flag, module in zip(command, command[1:]):
        if flag == "-m":
            relative = Path(*module.split("."))
            for candidate in (relative.with_suffix(".py"), relative / "__main__.py"):
                if (base / candidate).is_file():
                    return base / candidate
            return None
    first = base / command[0] if command else None
    if first is not None and first.is_file() and _has_python_shebang(first):
        return first
    return None


def _has_python_shebang(path: Path) -> bool:
    try:
        with open(str(path), "rb") as handle:
            head = handle.readline(200)
    except OSError:
        return False
    return head.startswith(b"#!") and b"python" in head


def findings(command: Sequence[str], also: Sequence[str] = (), codes: Sequence[str] = ()) -> List[str]:
    """``flake8 --select=DET`` on the script the command runs (and on ``also``: the files
    ``--locate`` points into, when they are under the current directory), with the project's own
    flake8 configuration (it runs in the current directory); the findings of ``codes`` first."""
    script = script_of(command)
    files = [os.path.relpath(str(script))] if script is not None else []
    for path in also:
        try:
            relative = os.path.relpath(path)
        except ValueError:
            continue
        if relative not in files and not relative.startswith(os.pardir) and os.path.isfile(relative):
            files.append(relative)
    if not files:
        return ["Could not tell which Python file the command runs; lint it with: flake8 --select=DET FILE"]
    shown = " ".join(files)
    try:
        result = subprocess.run([sys.executable, "-m", "flake8", "--select=DET"] + files, capture_output=True,
                                text=True, timeout=FLAKE8_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        return ["flake8 --select=DET %s could not run: %s" % (shown, error)]
    reported = result.stdout.splitlines()
    if result.returncode not in (0, 1) or result.returncode == 1 and not reported:
        tail = (result.stderr or result.stdout).strip().splitlines()[-5:]
        return ["flake8 --select=DET %s failed (exit %d):" % (shown, result.returncode)] + ["  " + t for t in tail]
    where = "the script" if len(files) == 1 else "these files"
    if not reported:
        return ["flake8 --select=DET %s finds nothing in %s: look at the modules it imports (lint them"
                " too), or at a library it calls." % (shown, where)]
    matching = [line for line in reported if any(" %s " % code in line for code in codes)]
    rest = [line for line in reported if line not in matching]
    lines = ["flake8 --select=DET %s reports %s in %s%s:" % (
        shown, plural(len(reported), "finding"), where,
        " (%d with a matching code first)" % len(matching) if matching else "")]
    return (lines + matching + rest
            + ["`determinism-fix %s` fixes what it can and lists the rest; then run this command again." % shown])
