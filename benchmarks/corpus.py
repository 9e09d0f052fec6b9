"""Lint a corpus of real projects and sample the reports for judging by hand.

Usage::

    python benchmarks/corpus.py DIR [--out reports.txt] [--sheet sample.md] [--sample 100]
                                    [--seed 0] [--strict] [-j N] [--compare OLD.txt]
    python benchmarks/corpus.py --tally sample.md

DIR holds one folder per project (``DIR/owner+name/...``).  Every ``*.py`` under
it is linted in process with the same code path as the flake8 plugin (the
pre-check, then one libcst parse; the file's path relative to DIR is what the
plugin would see as its name).  The run prints counts per code and per project,
the time, and every crash with its file (a crash is a bug in this linter).

``--out`` writes every report as ``path:line:col: CODE message``, sorted, so
two runs can be compared with ``--compare OLD.txt`` (reports that appeared and
disappeared, matched on path, line and code).

``--no-precheck`` parses every file; compared with a normal run it shows that
the pre-check hides no report on real code.

``--sheet`` writes a seeded random sample of ``--sample`` reports as a Markdown
sheet: a table to fill in (verdict ``TP`` worth fixing / ``LOW`` right but not
worth a report / ``FP`` wrong, and a reason) and each report with six lines of
context on either side.  ``--tally`` reads a filled sheet back and prints the
verdicts per code and in total.
"""

import argparse
import random
import re
import sys
import time
import traceback
from collections import Counter, defaultdict
from multiprocessing import Pool
from pathlib import Path
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple

from flake8_determinism.benchmark import python_files, read_source
from flake8_determinism.analysis.project.layout import MARKERS
from flake8_determinism.analysis.project.results import linked_copy
from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings

CONTEXT = 6
VERDICTS = ("TP", "LOW", "FP")


class Report(NamedTuple):
    path: str  # relative to the corpus root, with "/" separators
    line: int
    column: int  # 1-based, as flake8 prints it
    code: str
    message: str

    def __str__(self) -> str:
        return "%s:%d:%d: %s" % (self.path, self.line, self.column, self.message)

    @property
    def key(self) -> Tuple[str, int, str]:
        return self.path, self.line, self.code


_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) ?(?P<rest>.*)$")


def parse_report(text: str) -> Optional[Report]:
    match = _LINE.match(text.rstrip("\n"))
    if not match:
        return None
    message = match.group("code") + (" " + match.group("rest") if match.group("rest") else "")
    return Report(match.group("path"), int(match.group("line")), int(match.group("col")), match.group("code"), message)


# ---------------------------------------------------------------- linting


def checkout_root(project: Path, path: Path) -> str:
    """The root a file's project has in its own checkout.  A checkout's ``.git`` marks its folder;
    the corpus holds the files only, so that folder stands in for it, unless a marker nearer the
    file (a vendored package's ``setup.py``) makes a project of its own, as it would there."""
    folder = path.parent
    while folder != project and project in folder.parents:
        if any((folder / marker).exists() for marker in MARKERS):
            return str(folder)
        folder = folder.parent
    return str(project)


def _lint_one(job) -> Tuple[str, List[Report], Optional[str], float]:
    root, relative, settings, use_precheck = job
    start = time.perf_counter()
    try:
        path = Path(root) / relative
        if not settings.project_root:
            settings = settings._replace(project_root=checkout_root(Path(root) / Path(relative).parts[0], path))
        if linked_copy(str(path), settings):  # as ``flake8 .`` does: judged where the file lives
            return relative, [], None, time.perf_counter() - start
        source = read_source(path)
        findings = check_source(source, settings, filename=relative, use_precheck=use_precheck, path=str(path))
    except Exception:  # a crash is what this script exists to find: record it, go on
        return relative, [], traceback.format_exc(limit=-4), time.perf_counter() - start
    reports = [Report(relative, f.line, f.column + 1, f.code, f.message) for f in findings]
    return relative, reports, None, time.perf_counter() - start


def lint_corpus(root: Path, settings: Settings, jobs: int, use_precheck: bool = True):
    files = python_files(root)
    work = [(str(root), relative, settings, use_precheck) for relative in files]
    if jobs > 1:
        with Pool(jobs) as pool:
            results = pool.map(_lint_one, work, chunksize=16)
    else:
        results = [_lint_one(job) for job in work]
    return files, results


def project_of(path: str) -> str:
    return path.split("/", 1)[0]


# ---------------------------------------------------------------- the judging sheet


def context_block(root: Path, report: Report) -> str:
    try:
        lines = read_source(root / report.path).splitlines()
    except OSError:
        return "(file not readable)"
    first = max(1, report.line - CONTEXT)
    last = min(len(lines), report.line + CONTEXT)
    width = len(str(last))
    out = []
    for number in range(first, last + 1):
        marker = ">" if number == report.line else " "
        out.append("%s%*d  %s" % (marker, width, number, lines[number - 1]))
    return "\n".join(out)


def write_sheet(root: Path, reports: List[Report], count: int, seed: int, path: Path) -> List[Report]:
    chosen = random.Random(seed).sample(reports, min(count, len(reports)))
    chosen.sort(key=lambda r: (r.path, r.line, r.code))
    parts = [
        "# Corpus sample: %d of %d reports (seed %d)\n" % (len(chosen), len(reports), seed),
        "Verdicts: **TP** a problem worth fixing, **LOW** right but not worth a report by default,"
        " **FP** wrong.  Fill in the table; `--tally` counts it.\n",
        "| # | report | verdict | reason |",
        "| --- | --- | --- | --- |",
    ]
    parts += ["| %d | `%s:%d` %s |  |  |" % (i, r.path, r.line, r.code) for i, r in enumerate(chosen, 1)]
    for i, report in enumerate(chosen, 1):
        parts.append("\n## %d. `%s:%d` %s\n" % (i, report.path, report.line, report.code))
        parts.append("%s\n" % report.message)
        parts.append("```python\n%s\n```" % context_block(root, report))
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return chosen


_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`[^`]*`\s*(DET\d+)\s*\|\s*([A-Za-z]*)\s*\|(.*)\|\s*$")


def tally(sheet: Path) -> str:
    per_code: Dict[str, Counter] = defaultdict(Counter)
    total: Counter = Counter()
    unjudged = 0
    for line in sheet.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if not match:
            continue
        verdict = match.group(3).upper()
        if verdict not in VERDICTS:
            unjudged += 1
            continue
        per_code[match.group(2)][verdict] += 1
        total[verdict] += 1
    judged = sum(total.values())
    rows = ["| code | TP | LOW | FP | n |", "| --- | --- | --- | --- | --- |"]
    for code in sorted(per_code):
        c = per_code[code]
        rows.append("| %s | %d | %d | %d | %d |" % (code, c["TP"], c["LOW"], c["FP"], sum(c.values())))
    if judged:
        rows.append(
            "| **all** | %d (%.0f %%) | %d (%.0f %%) | %d (%.0f %%) | %d |"
            % (tuple(v for k in VERDICTS for v in (total[k], 100.0 * total[k] / judged)) + (judged,))
        )
        rows.append("\nright (TP + LOW): %.0f %%   worth fixing (TP): %.0f %%" % (
            100.0 * (total["TP"] + total["LOW"]) / judged, 100.0 * total["TP"] / judged))
    if unjudged:
        rows.append("not judged yet: %d" % unjudged)
    return "\n".join(rows)


# ---------------------------------------------------------------- comparing runs


def read_reports(path: Path) -> List[Report]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        report = parse_report(line)
        if report is not None:
            found.append(report)
    return found


def compare(old: Iterable[Report], new: Iterable[Report]) -> str:
    old_by_key = {r.key: r for r in old}
    new_by_key = {r.key: r for r in new}
    gone = sorted(k for k in old_by_key if k not in new_by_key)
    came = sorted(k for k in new_by_key if k not in old_by_key)
    out = ["disappeared: %d   appeared: %d" % (len(gone), len(came))]
    for title, keys, source in (("disappeared", gone, old_by_key), ("appeared", came, new_by_key)):
        if not keys:
            continue
        by_code = Counter(k[2] for k in keys)
        out.append("\n%s by code: %s" % (title, ", ".join("%s %d" % kv for kv in sorted(by_code.items()))))
        out += ["  %s %s" % ("-" if title == "disappeared" else "+", str(source[k])) for k in keys]
    return "\n".join(out)


# ---------------------------------------------------------------- main


def summary(files: List[str], results, elapsed: float) -> Tuple[str, List[Report]]:
    reports = sorted((r for _, found, _, _ in results for r in found), key=lambda r: (r.path, r.line, r.column, r.code))
    crashes = [(path, error) for path, _, error, _ in results if error]
    per_code = Counter(r.code for r in reports)
    per_project: Dict[str, Counter] = defaultdict(Counter)
    files_per_project = Counter(project_of(f) for f in files)
    for report in reports:
        per_project[project_of(report.path)][report.code] += 1
    slowest = sorted(((t, p) for p, _, _, t in results), reverse=True)[:5]
    out = [
        "files: %d   reports: %d   crashes: %d   time: %.1f s (lint time summed over files: %.1f s)"
        % (len(files), len(reports), len(crashes), elapsed, sum(t for _, _, _, t in results)),
        "",
        "per code:",
    ]
    out += ["  %s %6d" % (code, n) for code, n in sorted(per_code.items())]
    out += ["", "per project (files, reports, top codes):"]
    for project in sorted(files_per_project):
        counts = per_project.get(project, Counter())
        top = ", ".join("%s %d" % kv for kv in counts.most_common(4))
        out.append(
            "  %-45s %5d files %5d reports  %s" % (project, files_per_project[project], sum(counts.values()), top)
        )
    out += ["", "slowest files: " + ", ".join("%s %.2f s" % (p, t) for t, p in slowest)]
    for path, error in crashes:
        out += ["", "CRASH in %s:" % path, error.rstrip()]
    return "\n".join(out), reports


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path, help="corpus directory: one folder per project")
    parser.add_argument("--out", type=Path, help="write every report here, one per line")
    parser.add_argument("--sheet", type=Path, help="write a random sample as a Markdown judging sheet")
    parser.add_argument("--sample", type=int, default=100, help="reports in the sheet (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument("--strict", action="store_true", help="lint in strict mode")
    parser.add_argument("--torch-version", default="", help="target torch version (default: installed)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--compare", type=Path, metavar="OLD.txt", help="show reports that appeared/disappeared")
    parser.add_argument("--tally", type=Path, metavar="SHEET.md", help="count the verdicts of a filled sheet")
    parser.add_argument(
        "--no-precheck", action="store_true",
        help="parse every file (with --compare: proves the pre-check hides nothing)",
    )
    args = parser.parse_args(argv)
    if args.tally:
        print(tally(args.tally))
        return 0
    if args.root is None or not args.root.is_dir():
        parser.error("give the corpus directory")
    settings = Settings.from_values(strict=args.strict, torch_version=args.torch_version or None)
    start = time.perf_counter()
    files, results = lint_corpus(args.root, settings, args.jobs, use_precheck=not args.no_precheck)
    text, reports = summary(files, results, time.perf_counter() - start)
    print(text)
    if args.out:
        args.out.write_text("".join(str(r) + "\n" for r in reports), encoding="utf-8")
    if args.sheet:
        chosen = write_sheet(args.root, reports, args.sample, args.seed, args.sheet)
        print("\nsheet: %s (%d reports)" % (args.sheet, len(chosen)))
    if args.compare:
        print("\n" + compare(read_reports(args.compare), reports))
    return 1 if any(error for _, _, error, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
