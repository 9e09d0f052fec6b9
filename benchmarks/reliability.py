"""Run the flake8 plugin and the codemod over every ``*.py`` under a directory: crashes, bad output, time.

Usage::

    python benchmarks/reliability.py [DIR] [--every K] [--limit N] [-j N] [--strict] [--slowest 5]

DIR defaults to the installed torch package's sources (found without importing
torch, ~2,300 files).  ``--every K`` keeps every K-th file of the sorted list,
``--limit N`` the first N of those: fixed, reproducible subsets.

Each file goes, in process, through the plugin as flake8 calls it (flake8's
reading of the lines, its ``ast`` tree, ``DeterminismChecker.run``), through
``fix_source`` (what ``determinism-fix --diff`` computes) and through the CLI's
``fix_file`` in ``--diff`` mode.  The run reports:

* tracebacks from our code (the plugin, the codemod, ``fix_file``'s "internal error");
* codemod outputs that ``ast`` or libcst cannot parse;
* files a second codemod pass would change again (the output must be a fixed point);
* the time: wall in total; per tool the CPU seconds summed over files, the worst seconds
  per 1,000 lines (files under 1,000 lines count as 1,000) and the slowest files; the peak RSS;
* the files ``guard`` skipped and those Python itself cannot parse or decode (flake8's
  E999, not our failure).

Exit status 1 when there is a traceback, an unparsable output or an unstable file, else 0.
"""

import argparse
import ast
import difflib
import os
import resource
import sys
import time
import tokenize
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

import libcst as cst

from flake8_determinism import benchmark, checker
from flake8_determinism.fix import cli, transform
from flake8_determinism.fix.config import CODES, Flake8Config
from flake8_determinism.fix.files import SourceError, read_source
from flake8_determinism.plugin import DeterminismChecker
from flake8_determinism.registry import FIXABLE_RULES
from flake8_determinism.settings import Settings

TRACEBACK_FRAMES = 12  # the innermost ones: libcst's visitors make tracebacks long


# Per file we measure CPU time (``process_time``): a busy machine inflates wall time per file
# several times over; the total is wall time.
class Result(NamedTuple):
    path: str  # relative to DIR
    lines: int
    plugin_s: float  # ``run()`` only: flake8 builds the ``ast`` tree whether we are installed or not
    codemod_s: float  # the first ``fix_source`` (its own ``ast`` parse included), as determinism-fix runs it
    tracebacks: Tuple[Tuple[str, str], ...] = ()  # (where, text)
    unparsable: str = ""  # why the codemod's output does not parse
    unstable: str = ""  # the diff a second pass makes
    skipped: str = ""  # guard's reason
    not_python: str = ""  # why Python cannot read it
    changed: bool = False  # the codemod would change the file


def flake8_lines(path: str) -> List[str]:
    """The lines as flake8's ``FileProcessor`` reads them: PEP 263 encoding, universal
    newlines, latin-1 when that fails, a UTF-8 BOM stripped."""
    try:
        with tokenize.open(path) as handle:
            lines = handle.readlines()
    except (SyntaxError, UnicodeError):
        with open(path, encoding="latin-1") as handle:
            lines = handle.readlines()
    if lines and lines[0][:1] == "\ufeff":
        lines[0] = lines[0][1:]
    return lines


def parse_error(source: str) -> str:
    """Why ``ast`` or libcst rejects ``source``, in one line; "" when both accept it."""
    for name, parse in (("ast", ast.parse), ("libcst", cst.parse_module)):
        try:
            parse(source)
        except Exception as error:  # noqa: BLE001 - any failure is the finding
            return "%s: %s: %s" % (name, type(error).__name__, (str(error).splitlines() or [""])[0])
    return ""


def _traceback() -> str:
    return traceback.format_exc(limit=-TRACEBACK_FRAMES)


def check_file(job) -> Result:
    root, rel, settings, noqa = job
    path = os.path.join(root, rel)
    tracebacks = []
    found = {}

    # The plugin, as flake8 calls it: only on files ``ast.parse`` accepts (else E999).
    lines, plugin_s = flake8_lines(path), 0.0
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        found["not_python"] = "%s: %s" % (type(error).__name__, (str(error).splitlines() or [""])[0])
    else:
        plugin = DeterminismChecker(tree, lines, rel)
        plugin.settings = settings  # flake8's ``parse_options`` sets it on the class
        start = time.process_time()
        try:
            list(plugin.run())
        except Exception:  # noqa: BLE001 - a crash is what we are here to find
            tracebacks.append(("plugin", _traceback()))
        plugin_s = time.process_time() - start

    # The codemod, on the text determinism-fix reads (bytes decoded, line endings kept).
    codemod_s = 0.0
    try:
        text = read_source(path).text
    except SourceError as error:
        found.setdefault("not_python", str(error))
        return Result(rel, len(lines), plugin_s, codemod_s, tuple(tracebacks), **found)
    start = time.process_time()
    fixed = None
    try:
        fixed = transform.fix_source(text, settings, filename=rel)
    except checker.Skipped as error:
        found["skipped"] = str(error)
    except checker.ParseFailure as error:
        found.setdefault("not_python", str(error))
    except Exception:  # noqa: BLE001
        tracebacks.append(("codemod", _traceback()))
    codemod_s = time.process_time() - start
    if fixed is not None and fixed.source != text:
        found["changed"] = True
        found["unparsable"] = parse_error(fixed.source)
        if not found["unparsable"]:
            try:
                again = transform.fix_source(fixed.source, settings, filename=rel).source
            except Exception:  # noqa: BLE001 - ParseFailure and Skipped too: its own output
                tracebacks.append(("codemod, second pass", _traceback()))
            else:
                if again != fixed.source:
                    found["unstable"] = "".join(difflib.unified_diff(
                        fixed.source.splitlines(True), again.splitlines(True), rel + " (1st pass)", rel + " (2nd)"))

    # The CLI layer: it turns an exception into "internal error"; rerun its call for the traceback.
    report = cli.fix_file(cli.Job(path, rel, settings, 0, False, "diff", frozenset(CODES), noqa))
    if report.error.startswith("internal error"):
        try:
            transform.fix_source(text, settings, 0, False, frozenset(CODES), noqa, rel, FIXABLE_RULES)
            detail = "(fix_source alone does not raise: the failure is in fix_file)\n"
        except Exception:  # noqa: BLE001
            detail = _traceback()
        tracebacks.append(("determinism-fix --diff", report.error + "\n" + detail))
    return Result(rel, len(lines), plugin_s, codemod_s, tuple(tracebacks), **found)


def warm_up() -> None:
    """Import what the tools import lazily (libcst, the rules), so no file's time includes it."""
    source = "import random\nimport torch\nx = random.random()\n"
    try:
        list(DeterminismChecker(ast.parse(source), source.splitlines(True), "warm_up.py").run())
        transform.fix_source(source, Settings(), filename="warm_up.py")
    except Exception:  # noqa: BLE001 - a crash here shows again, with its file, in check_file
        pass


def python_files(root: Path, every: int = 1, limit: Optional[int] = None) -> List[str]:
    return benchmark.python_files(root)[::every][:limit]


def run(root: Path, files: List[str], settings: Settings, jobs: int = 1) -> List[Result]:
    noqa = Flake8Config(isolated=True).noqa_options()  # as the CLI has it, minus the user's config
    work = [(str(root), rel, settings, noqa) for rel in files]
    if jobs > 1:
        # Not multiprocessing.Pool: a worker that dies would hang it; this raises BrokenProcessPool.
        with ProcessPoolExecutor(jobs, initializer=warm_up) as pool:
            return list(pool.map(check_file, work, chunksize=2))
    warm_up()
    return [check_file(job) for job in work]


def per_1000_lines(seconds: float, lines: int) -> float:
    return seconds / max(lines, 1000) * 1000


def report(results: List[Result], wall: float, slowest: int = 5) -> Tuple[str, int]:
    """The printed report and the exit status."""
    tracebacks = [(r.path, where, text) for r in results for where, text in r.tracebacks]
    unparsable = [r for r in results if r.unparsable]
    unstable = [r for r in results if r.unstable]
    skipped = [r for r in results if r.skipped]
    not_python = [r for r in results if r.not_python]
    plugin_s = sum(r.plugin_s for r in results)
    codemod_s = sum(r.codemod_s for r in results)
    out = ["%d files, %d lines; the codemod would change %d" % (
        len(results), sum(r.lines for r in results), sum(r.changed for r in results))]
    worst = []
    for tool, seconds in (("plugin", lambda r: r.plugin_s), ("codemod", lambda r: r.codemod_s)):
        by_rate = max(results, key=lambda r: per_1000_lines(seconds(r), r.lines), default=None)
        if by_rate is None:
            continue
        worst.append((per_1000_lines(seconds(by_rate), by_rate.lines), by_rate.path, tool))
        out.append("%-8s %7.1f CPU s summed; worst %.2f s per 1,000 lines (%s, %d lines); slowest: %s" % (
            tool, sum(map(seconds, results)), worst[-1][0], by_rate.path, by_rate.lines, ", ".join(
                "%s %.2f s" % (r.path, seconds(r)) for r in sorted(results, key=seconds, reverse=True)[:slowest])))
    self_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out.append("wall %.1f s; peak RSS: this process %.0f MB, largest child process %.0f MB" % (
        wall, self_mb, children_mb))
    out.append("skipped by guard: %d" % len(skipped))
    out += ["  %s: %s" % (r.path, r.skipped) for r in skipped]
    out.append("not Python (E999, cannot decode): %d" % len(not_python))
    out += ["  %s: %s" % (r.path, r.not_python) for r in not_python]
    for path, where, text in tracebacks:
        out += ["", "TRACEBACK (%s) in %s:" % (where, path), text.rstrip()]
    for r in unparsable:
        out += ["", "UNPARSABLE codemod output for %s: %s" % (r.path, r.unparsable)]
    for r in unstable:
        out += ["", "UNSTABLE: a second pass changes %s:" % r.path, r.unstable.rstrip()]
    rate, path, tool = max(worst) if worst else (0.0, "-", "-")
    out += ["", "%d files: %d tracebacks, %d unparsable outputs, %d unstable; %d skipped, %d not Python; "
            "plugin %.1f s, codemod %.1f s; worst %.2f s per 1,000 lines (%s, %s)" % (
                len(results), len(tracebacks), len(unparsable), len(unstable), len(skipped), len(not_python),
                plugin_s, codemod_s, rate, path, tool)]
    return "\n".join(out), 1 if tracebacks or unparsable or unstable else 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path, help="directory (default: the installed torch's sources)")
    parser.add_argument("--every", type=int, default=1, metavar="K", help="every K-th file of the sorted list")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="at most N files (after --every)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--strict", action="store_true", help="lint and fix in strict mode")
    parser.add_argument("--slowest", type=int, default=5, metavar="N", help="slowest files shown per tool")
    args = parser.parse_args(argv)
    root = args.root or benchmark.installed_torch_sources()
    if root is None or not root.is_dir():
        parser.error("give DIR (torch is not installed)" if root is None else "not a directory: %s" % root)
    if args.every < 1 or args.jobs < 1:
        parser.error("--every and -j take a positive number")
    files = python_files(root, args.every, args.limit)
    print("%s: %d files (every %d%s), -j %d" % (
        root, len(files), args.every, ", limit %d" % args.limit if args.limit is not None else "", args.jobs))
    start = time.perf_counter()
    results = run(root, files, Settings(strict=args.strict), args.jobs)
    text, status = report(results, time.perf_counter() - start, args.slowest)
    print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
