"""``determinism-fix PATH...``: fix what flake8-determinism reports (docs/contract.md, "determinism-fix").

Configuration comes from flake8's own machinery: ``parse_args`` reads
``setup.cfg``/``tox.ini``/``.flake8`` (``exclude``, ``extend-exclude``,
``extend-ignore``, ``per-file-ignores`` and our ``determinism-*`` options), its
``StyleGuideManager`` decides per file which codes are selected, and its
``Violation.is_inline_ignored`` decides ``# noqa``; so a finding flake8 would
not show is never fixed.
"""

import argparse
import difflib
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import List, NamedTuple, Optional, Sequence

from ..console import escape_what_terminals_cannot_show, plural
from ..settings import Settings, parse_version
from .. import notebooks
from .files import SourceError, decode, encode, read_source, write_atomically

EXIT_CLEAN, EXIT_FOUND, EXIT_ERROR = 0, 1, 2
PROGRESS_AFTER = 20  # files: below this a progress bar is noise


class FileReport(NamedTuple):
    path: str
    changed: bool = False
    found: int = 0
    fixed: int = 0
    left: Sequence[str] = ()  # flake8-style lines of what is still reported
    unsafe: Sequence[str] = ()  # lines of findings whose fix is unsafe and was not applied
    diff: str = ""
    output: Optional[bytes] = None  # the fixed source in the file's encoding, for ``-`` (stdin)
    error: str = ""
    skipped: str = ""  # why the file was not analysed (``guard``): a valid file, not an error
    # What is still reported, for --output-format: (line, column, code, message, "left" | "unsafe", notebook
    # cell from 1, or 0 in a Python file)
    remaining: Sequence[tuple] = ()
    codes: Optional[dict] = None  # code -> [found, left, unsafe], for --statistics


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="determinism-fix",
        description="Fix the nondeterminism flake8-determinism reports: seed, sort, switch on determinism.",
        epilog="Exit status: in place 0 when nothing is left to report, 1 when problems remain; with --check or"
        " --diff 0 when nothing would change, 1 when something would; 2 on an error.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories ('-' reads stdin)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff, change nothing")
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything would change")
    parser.add_argument("--select", default="", metavar="CODES", help="only these code prefixes (DET2,DET301)")
    parser.add_argument("--ignore", default="", metavar="CODES", help="not these code prefixes")
    parser.add_argument("--seed", type=int, default=0, help="the seed the fixes use (default: 0)")
    parser.add_argument("--strict", action="store_true", default=None, help="lint in strict mode")
    parser.add_argument("--determinism-torch-version", default=None, metavar="X.Y", help="target torch version")
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes that could change behaviour")
    parser.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="files fixed in parallel")
    parser.add_argument("--config", default=None, help="flake8 configuration file to read")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    parser.add_argument("--statistics", action="store_true",
                        help="after the summary, count per code what was found, fixed, left, and left with an"
                        " unsafe fix")
    parser.add_argument("--output-format", choices=("default", "json", "github"), default="default",
                        help="json: what is left, and the counts per code, as one JSON object on stdout (the"
                        " summary goes to stderr); github: workflow annotations for what is left")
    parser.add_argument("--explain", metavar="CODE", default=None,
                        help="print the documentation of a code (e.g. DET202) and exit; needs no PATH")
    return parser


class Job(NamedTuple):
    """Everything a worker needs for one file (picklable)."""

    path: str
    display: str
    settings: Settings
    seed: int
    unsafe: bool
    mode: str  # "write" | "diff" | "check" | "stdin"
    codes: frozenset  # DET codes selected for this file
    noqa: dict  # flake8 options that ``# noqa`` handling reads
    stdin: Optional[bytes] = None
    also_fixed: Optional[str] = None  # a symlink to this file, fixed in the same run as itself
    counted: bool = False  # --statistics / --output-format: find what is left in every mode, as writing does


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.explain is not None:
        return explain(args.explain)
    if not args.paths:
        parser.print_usage(sys.stderr)
        print("determinism-fix: error: give at least one PATH ('-' for stdin)", file=sys.stderr)
        return EXIT_ERROR
    if args.determinism_torch_version and parse_version(args.determinism_torch_version) is None:
        print("determinism-fix: error: --determinism-torch-version expects MAJOR.MINOR such as 2.8, got %r"
              % args.determinism_torch_version, file=sys.stderr)
        return EXIT_ERROR
    if args.jobs < 1:
        print("determinism-fix: error: -j expects a positive number", file=sys.stderr)
        return EXIT_ERROR
    try:
        from .config import Flake8Config

        config = Flake8Config(args.config)
    except Exception as error:  # noqa: BLE001 - flake8 rejects a bad configuration in its own words
        print("determinism-fix: error: cannot read the flake8 configuration: %s" % error, file=sys.stderr)
        return EXIT_ERROR
    try:
        settings = config.settings(args.strict, args.determinism_torch_version)
    except ValueError as error:
        print("determinism-fix: error: %s" % error, file=sys.stderr)
        return EXIT_ERROR
    mode = "diff" if args.diff else "check" if args.check else "write"
    jobs = [
        Job(path, display, settings, args.seed, args.unsafe_fixes, "stdin" if path == "-" else mode,
            config.codes_for(display, args.select, args.ignore), config.noqa_options(),
            sys.stdin.buffer.read() if path == "-" else None,
            counted=args.statistics or args.output_format != "default")
        # In sorted path order, as flake8 reports (docs/contract.md): not the file system's directory order.
        for path, display in sorted(config.files(args.paths), key=lambda pair: pair[1])
    ]
    reports = _run(_linked_copies_skipped(jobs), args.jobs)
    if args.output_format == "json":
        return _as_json(reports, mode, args.quiet)
    status = _summarise(reports, mode, args.quiet or args.output_format == "github")
    if args.output_format == "github":
        _annotate(reports, mode)
    if args.statistics:
        for line in _statistics(reports):
            print(line)
    return status


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _linked_copies_skipped(jobs: List[Job]) -> List[Job]:
    """A file linked into another folder of its project, whose target this run fixes as well
    (both found in the folders given), is fixed once, as itself."""
    from ..analysis.project.results import linked_copy

    targets = [linked_copy(job.path, job.settings) if job.stdin is None else None for job in jobs]
    fixed = {os.path.realpath(job.path) for job, target in zip(jobs, targets) if job.stdin is None and not target}
    return [job._replace(also_fixed=target) if target in fixed else job for job, target in zip(jobs, targets)]


def explain(code: str) -> int:
    """``--explain CODE``: print the code's page (``docs/rules/CODE.md``, generated from its class now)."""
    from ..docs import render_page, rule_for

    rule = rule_for(code)
    if rule is None:
        print("determinism-fix: error: unknown code %r (the codes are DET100 to DET402, listed in the README)"
              % code, file=sys.stderr)
        return EXIT_ERROR
    page = render_page(rule)
    try:
        sys.stdout.write(page)
        sys.stdout.flush()
    except UnicodeEncodeError:  # a terminal that cannot show "—" or "§": the page in UTF-8
        sys.stdout.buffer.write(page.encode("utf-8"))
        sys.stdout.flush()
    return EXIT_CLEAN


def _run(jobs: List[Job], workers: int) -> List[FileReport]:
    show = sys.stderr.isatty() and len(jobs) > PROGRESS_AFTER
    reports: List[FileReport] = []
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for report in pool.map(fix_and_release, jobs, chunksize=4):
                reports.append(report)
                _progress(show, len(reports), len(jobs))
    else:
        for job in jobs:
            reports.append(fix_and_release(job))
            _progress(show, len(reports), len(jobs))
    if show:
        sys.stderr.write("\r\033[K")
    return reports


def _progress(show: bool, done: int, total: int) -> None:
    if show:
        width = 30
        filled = width * done // total
        sys.stderr.write("\r[%s%s] %d/%d files" % ("#" * filled, "." * (width - filled), done, total))
        sys.stderr.flush()


def fix_and_release(job: Job) -> FileReport:
    """``fix_file``, then, after a large file, its trees are freed before the next one."""
    from ..checker import RELEASE_AFTER_BYTES, release_memory

    report = fix_file(job)
    if job.stdin is not None and len(job.stdin) > RELEASE_AFTER_BYTES or _size(job.path) > RELEASE_AFTER_BYTES:
        release_memory()
    return report


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def fix_file(job: Job) -> FileReport:
    """Fix one file; every failure becomes one line in the report, never a traceback."""
    from ..checker import Skipped
    from ..registry import ALL_RULES, FIXABLE_RULES

    # Writing reports what is left for the user; --check and --diff need only the rules that fix
    # (unless the counts are asked for: then they count as writing does).
    whole = job.mode in ("write", "stdin") or job.counted
    rules = ALL_RULES if whole else FIXABLE_RULES

    if job.also_fixed:
        return FileReport(job.display, skipped="a symlink to %s, which is fixed as itself" % _shown(job.also_fixed))
    try:
        source = decode(job.display, job.stdin) if job.stdin is not None else read_source(job.path)
        if job.stdin is None and notebooks.is_notebook(job.path):
            return _fix_notebook(job, source, rules, whole)
        try:
            result = _fixed(job, source.text, rules, whole, job.path if job.stdin is None else None,
                            lambda error: "cannot parse: %s" % error)
        except Skipped as error:
            return FileReport(job.display, skipped=str(error), output=source.raw if job.stdin is not None else None)
        counts = _counts(result)
        report = FileReport(
            job.display, result.changed, *_found_and_fixed(counts),
            [_line(job.display, p.finding) for p in result.left],
            ["%s (unsafe fix not applied: %s)" % (_line(job.display, p.finding), p.fix.what) for p in result.unsafe],
            output=encode(source, result.source) if job.mode == "stdin" else None,
            remaining=_remaining(result, job.mode in ("write", "stdin"),
                                 lambda finding: (0, finding.line, finding.column + 1, finding.message)),
            codes=counts,
        )
        if result.changed and job.mode == "diff":
            report = report._replace(diff="".join(difflib.unified_diff(
                source.text.splitlines(True), result.source.splitlines(True), job.display, job.display)))
        if result.changed and job.mode == "write":
            write_atomically(source, result.source)
        return report
    # On an error stdin's bytes go back to stdout unchanged (as for a skipped file): a pipe
    # through the codemod never loses the code, and the exit status says it was not fixed.
    except SourceError as error:
        return FileReport(job.display, error=str(error), output=job.stdin)
    except OSError as error:
        return FileReport(job.display, error=error.strerror or str(error), output=job.stdin)
    except Exception as error:  # noqa: BLE001 - a bug of ours must not take the other files down
        return FileReport(job.display, error="internal error, file left as it is (%s: %s)"
                          % (type(error).__name__, error), output=job.stdin)


def _fixed(job: Job, text: str, rules, whole: bool, path: Optional[str], unparsable):
    """``fix_source`` with the job's options; source that does not parse (``unparsable`` words
    the error) or is too deeply nested becomes a ``SourceError``.  ``Skipped`` passes through."""
    from ..checker import ParseFailure, Skipped
    from .transform import fix_source

    try:
        return fix_source(text, job.settings, job.seed, job.unsafe, job.codes, job.noqa, job.display, rules,
                          check_only=job.mode == "check" and not whole, path=path)
    except Skipped:
        raise  # a kind of ParseFailure: the caller reports it as skipped
    except ParseFailure as error:
        raise SourceError(unparsable(str(error))) from None
    except RecursionError:
        raise SourceError("too deeply nested to parse or fix (Python's recursion limit); left as it is") from None


def _remaining(result, on_disk: bool, place) -> list:
    """What is still reported, for --output-format: (line, column, code, message, "left" |
    "unsafe", cell), placed by ``place(finding) -> (cell, line, column, message)``."""
    unsafe = {id(p) for p in result.unsafe}
    rows = []
    for problem, shown in _as_placed(result, on_disk):
        cell, line, column, message = place(shown.finding)
        rows.append((line, column, problem.finding.code, message, "unsafe" if id(problem) in unsafe else "left", cell))
    return rows


def _fix_notebook(job: Job, source, rules, whole: bool) -> FileReport:
    """A notebook: its code cells fixed as one run (``notebooks``), written back into the JSON
    with outputs, metadata and formatting kept; findings named ``NOTEBOOK:cell_N:line:col``."""
    from ..checker import Skipped

    try:
        notebook = notebooks.read(source.text)
        script = notebooks.to_script(notebook)
        try:
            result = _fixed(job, script.text, rules, whole, job.path,
                            lambda error: "cannot parse its code cells: %s" % _in_cells(script.text, error))
        except Skipped as error:
            return FileReport(job.display, skipped=str(error))
        sources = notebooks.from_script(notebook, script, result.source) if result.changed else notebook.sources
    except notebooks.OtherLanguage as error:
        return FileReport(job.display, skipped=str(error))
    except notebooks.NotebookError as error:
        raise SourceError(str(error)) from None
    changed = result.changed if job.mode == "check" else sources != notebook.sources
    on_disk = job.mode == "write"
    shown_in = result.source if on_disk else script.text  # the script the positions are in

    def place(finding) -> tuple:
        return (*notebooks.place(shown_in, finding.line), finding.column + 1,
                _in_cells(shown_in, finding.message, job.display))

    remaining = _remaining(result, on_disk, place)
    lines = ["%s:cell_%d:%d:%d: %s" % (job.display, cell, line, column, message)
             for line, column, _, message, _, cell in remaining]
    counts = _counts(result)
    report = FileReport(
        job.display, changed, *_found_and_fixed(counts), lines,
        ["%s (unsafe fix not applied: %s)" % (text, problem.fix.what)
         for text, row, problem in zip(lines, remaining, result.left) if row[4] == "unsafe"],
        remaining=remaining, codes=counts)
    if changed and job.mode == "diff":
        report = report._replace(diff=notebooks.cell_diff(notebook, sources, job.display))
    if changed and job.mode == "write":
        write_atomically(source, notebooks.dump(notebook, sources))
    return report


def _in_cells(script: str, text: str, display: str = "") -> str:
    """``line N`` (a parse error) and ``NOTEBOOK:N`` (a message's reference) as cell positions."""
    def cell_line(match) -> str:
        cell, line = notebooks.place(script, int(match.group(2)))
        return "%scell_%d:%d" % (match.group(1), cell, line) if match.group(1) else "cell %d, line %d" % (cell, line)

    names = [re.escape(n) for n in {display, os.path.basename(display)} if n]
    pattern = r"(?:(%s:)|\bline )(\d+)" % "|".join(names) if names else r"()\bline (\d+)"
    return re.sub(pattern, cell_line, text)


def _as_placed(result, on_disk: bool):
    """(problem left, the finding to show for it): in a file written, where it is now; with
    --diff/--check, where it is in the file as it stands (the same finding before the fixes:
    same code, same message but for line numbers)."""
    if on_disk:
        return [(problem, problem) for problem in result.left]
    before: dict = {}
    for problem in result.found:
        before.setdefault(_unplaced(problem.finding), []).append(problem)
    return [(problem, (before.get(_unplaced(problem.finding)) or [problem]).pop(0)) for problem in result.left]


def _unplaced(finding) -> tuple:
    return finding.code, re.sub(r"\d+", "#", finding.message)


def _found_and_fixed(counts: dict) -> tuple:
    """(found, fixed) of one file from its ``_counts``.  A problem the fixes reveal counts as
    found (``_counts``), so found = fixed + left."""
    found = sum(row[0] for row in counts.values())
    return found, found - sum(row[1] for row in counts.values())


def _counts(result) -> dict:
    """code -> [found, left, left with an unsafe fix] of one file; found: what the file had, and
    what the fixes revealed (a problem left that matches none it had)."""
    from collections import Counter

    before = Counter(_unplaced(p.finding) for p in result.found)
    after = Counter(_unplaced(p.finding) for p in result.left)
    counts: dict = {}
    for key in before.keys() | after.keys():
        counts.setdefault(key[0], [0, 0, 0])[0] += max(before[key], after[key])
    for index, problems in ((1, result.left), (2, result.unsafe)):
        for problem in problems:
            counts.setdefault(problem.finding.code, [0, 0, 0])[index] += 1
    return counts


def _totals(reports: List[FileReport]) -> dict:
    totals: dict = {}
    for report in reports:
        for code, counts in (report.codes or {}).items():
            into = totals.setdefault(code, [0, 0, 0])
            for index, count in enumerate(counts):
                into[index] += count
    return dict(sorted(totals.items()))


def _statistics(reports: List[FileReport]) -> List[str]:
    """``--statistics``: one row per code; ``fixed`` counts what this run fixed (``--diff``/
    ``--check``: would fix), ``unsafe`` what is left with a fix ``--unsafe-fixes`` would apply."""
    rows = [(code, found, found - left, left, unsafe) for code, (found, left, unsafe) in _totals(reports).items()]
    lines = ["%-7s %6s %6s %6s %6s" % ("code", "found", "fixed", "left", "unsafe")]
    lines += ["%-7s %6d %6d %6d %6d" % row for row in rows]
    if rows:
        lines.append("%-7s %6d %6d %6d %6d" % ("total", *(sum(row[i] for row in rows) for i in range(1, 5))))
    return lines


def _as_json(reports: List[FileReport], mode: str, quiet: bool) -> int:
    """``--output-format json``: one object on stdout; the summary and errors on stderr."""
    import json

    status = _summarise([r._replace(diff="", left=(), unsafe=()) for r in reports], mode, quiet, out=sys.stderr)
    out = sys.stdout
    findings = [dict({"path": r.path}, **({"cell": cell} if cell else {}), line=line, column=column, code=code,
                     message=message, fix="unsafe" if kind == "unsafe" else "none")
                for r in reports for line, column, code, message, kind, cell in r.remaining]
    statistics = {code: {"found": found, "fixed": found - left, "left": left, "unsafe": unsafe}
                  for code, (found, left, unsafe) in _totals(reports).items()}
    json.dump({"mode": mode, "files_changed": sum(1 for r in reports if r.changed),
               "errors": [{"path": r.path, "error": r.error} for r in reports if r.error],
               "findings": findings, "statistics": statistics}, out, indent=2)
    out.write("\n")
    return status


def _annotate(reports: List[FileReport], mode: str) -> None:
    """``--output-format github``: a workflow annotation per finding left (and per file
    ``--diff``/``--check`` would change)."""
    def escape(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    for report in reports:
        if report.changed and mode in ("diff", "check"):
            print("::notice file=%s::determinism-fix would change this file" % escape(report.path))
        for line, column, code, message, kind, cell in report.remaining:
            text = message[len(code):].strip() if message.startswith(code) else message
            if kind == "unsafe":
                text += " (an unsafe fix exists: determinism-fix --unsafe-fixes)"
            if cell:  # a notebook: GitHub cannot point into a cell, the title names it
                print("::warning file=%s,title=%s (cell_%d:%d:%d)::%s"
                      % (escape(report.path), code, cell, line, column, escape(text)))
            else:
                print("::warning file=%s,line=%d,col=%d,title=%s::%s"
                      % (escape(report.path), line, column, code, escape(text)))


def _line(path: str, finding) -> str:
    """As flake8 prints it: ``path:line:column: message`` (the message starts with the code)."""
    return "%s:%d:%d: %s" % (path, finding.line, finding.column + 1, finding.message)


def _summarise(reports: List[FileReport], mode: str, quiet: bool, out=None) -> int:
    """Print what each file needs and the summary on ``out`` (stdout by default)."""
    escape_what_terminals_cannot_show()
    out = out if out is not None else sys.stdout
    errors = [r for r in reports if r.error]
    for report in reports:
        if report.path == "-" and report.output is not None:
            out.flush()
            out.buffer.write(report.output)  # bytes: the input's encoding and BOM, kept
            out.flush()
            for line in report.left if not quiet else ():
                print(line, file=sys.stderr)
            continue
        if report.diff:
            out.write(report.diff)
        if mode == "check" and report.changed and not quiet:
            print("would fix %s" % report.path, file=out)
        if not quiet and mode == "write":
            for line in report.left:
                print(line, file=out)
        if not quiet and mode == "diff":
            for line in report.unsafe:
                print("# " + line, file=out)
    for report in errors:
        print("determinism-fix: %s: %s" % (report.path, report.error), file=sys.stderr)
    skipped = [r for r in reports if r.skipped]
    for report in skipped:
        print("determinism-fix: %s: skipped: %s" % (report.path, report.skipped), file=sys.stderr)
    found = sum(r.found for r in reports)
    fixed = sum(r.fixed for r in reports)
    left = found - fixed
    files = sum(1 for r in reports if r.found)
    unsafe = sum(len(r.unsafe) for r in reports)
    changed = sum(1 for r in reports if r.changed)
    summary_to = sys.stderr if any(r.path == "-" for r in reports) else out
    checked = len(reports) - len(errors) - len(skipped)
    if mode == "write" and not found:
        summary = "No problems found in %s" % plural(checked, "file")
    elif mode == "write":
        # the unsafe ones are among those left: counted once
        summary = "Found %s (%d fixed, %d left for you%s) in %s" % (
            plural(found, "problem"), fixed, left,
            ", %d of them fixable with --unsafe-fixes" % unsafe if unsafe else "", plural(files, "file"))
    else:
        summary = "%s would be changed (%s)" % (plural(changed, "file"), plural(fixed, "fix", "es"))
        if unsafe:
            summary += " (%d more fixable with --unsafe-fixes)" % unsafe
    if skipped:
        summary += "; %s skipped" % plural(len(skipped), "file")
    if errors:
        summary += "; %s" % plural(len(errors), "error")
    if checked or skipped or not errors:  # when every file failed, its error line says it all
        print(summary + ".", file=summary_to)
    if errors:
        return EXIT_ERROR
    if mode == "write":
        return EXIT_FOUND if left else EXIT_CLEAN
    return EXIT_FOUND if changed else EXIT_CLEAN


def run() -> None:
    try:
        sys.exit(main())
    except BrokenPipeError:
        # ``determinism-fix --diff | head``: the reader left; no traceback, and no second
        # error when Python flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_FOUND)
