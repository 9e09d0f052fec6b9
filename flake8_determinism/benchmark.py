"""How much does flake8-determinism cost on a real code base?

Usage::

    python -m flake8_determinism.benchmark [DIR] [--limit N] [--chunks K] [--example PATH] [--repeats R]

DIR defaults to the installed torch package's source directory, found with
``importlib.util.find_spec`` (torch is never imported).  ``--limit N`` keeps N
files evenly spaced over the sorted list, so a small slice still samples every
part of the tree.

Two measurements, in one run:

1. **flake8 with vs without the plugin** (``-j1 --isolated --exit-zero``, output
   counted and discarded).  Every variant runs through the same launcher,
   ``python -m flake8_determinism._flake8_launcher``.  "Without" is obtained by
   hiding a distribution from flake8's plugin discovery: the launcher wraps
   ``flake8.plugins.finder._find_importlib_plugins`` and drops the ``Plugin``s
   whose ``package`` is ``flake8-determinism`` (``--without-determinism``) or
   ``TorchFix`` (``--without-torchfix``), then calls ``flake8.main.cli.main``.
   The same interpreter, flake8, pyflakes and pycodestyle run in every variant;
   only the hidden plugin is never imported or run.  The files are split into
   K chunks; each chunk runs every variant as a subprocess, rotating which goes
   first, so drift (thermal, other load, page cache) hits all variants alike.
   Each flake8 process is started by a tiny stdlib-only spawner that takes its
   wall time and, from ``os.wait4``, its CPU time (user+sys) and peak RSS (see
   ``_SPAWNER`` for why not directly).  Wall and CPU are summed over chunks,
   RSS is the maximum.  An untimed warm-up run per variant byte-compiles
   everything first.  flake8 keeps no result cache, so every run does the
   full work.
   When TorchFix is installed a third variant (TorchFix, not ours) gives its
   overhead for comparison.

2. **In-process, per file**: the pre-check, then for files that pass it the
   libcst parse alone and the analysis (``check_module``) on that parsed module.
   The ratio (pre-check + parse + analysis) / parse says how much the plugin
   adds on top of the parse it cannot avoid.

If ``examples/train_example.py`` (or ``--example PATH``) exists, the whole
process ``flake8 --select=DET FILE`` (with the plugin) is also timed against
``flake8 --select=E FILE`` (without), ``--repeats`` times interleaved.
"""

import argparse
import ast
import gc
import importlib.metadata
import importlib.util
import math
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize
from collections import Counter
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from . import checker
from .registry import ALL_RULES
from .settings import Settings

LAUNCHER = [sys.executable, "-m", "flake8_determinism._flake8_launcher"]
FLAKE8_ARGS = ["-j1", "--isolated", "--exit-zero"]
# flake8's default format is "path:row:col: CODE message".
_CODE = re.compile(r":\d+:\d+: ([A-Z]+)\d+ ")

NO_PLUGIN = ("--without-determinism", "--without-torchfix")
WITH_DET = ("--without-torchfix",)
WITH_TORCHFIX = ("--without-determinism",)
# The project model's cache (``analysis/project/store.py``): a cold run starts without it, the
# warm run that follows it in the same chunk finds what the cold one wrote.
COLD, WARM = "with DET, cold cache", "with DET"


# ---------------------------------------------------------------- file selection


def installed_torch_sources() -> Optional[Path]:
    """The installed torch package's directory, found without importing torch; None without torch."""
    spec = importlib.util.find_spec("torch")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def torch_source_dir() -> Path:
    found = installed_torch_sources()
    if found is None:
        raise SystemExit("torch is not installed; pass a DIR to benchmark")
    return found


def python_files(root: Path) -> List[str]:
    """Every ``*.py`` file under ``root``, as sorted POSIX paths relative to it (the corpus scripts' file list)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py") if p.is_file())


def evenly_spaced(items: Sequence, limit: Optional[int]) -> list:
    if limit is None or limit >= len(items):
        return list(items)
    return [items[i * len(items) // limit] for i in range(limit)]


def collect_files(root: Path, limit: Optional[int]) -> List[Path]:
    return evenly_spaced(sorted(p for p in root.rglob("*.py") if p.is_file()), limit)


def split_chunks(files: Sequence[Path], wanted: int) -> List[List[Path]]:
    # Fewer chunks for few files: a chunk of a handful of files is mostly start-up.
    count = max(1, min(wanted, len(files) // 10 or 1))
    bounds = [i * len(files) // count for i in range(count + 1)]
    return [list(files[a:b]) for a, b in zip(bounds, bounds[1:])]


def read_source(path: Path) -> str:
    """The text flake8 would see: PEP 263 encoding, universal newlines, latin-1 fallback."""
    try:
        with tokenize.open(path) as handle:
            return handle.read()
    except (SyntaxError, UnicodeError):
        return path.read_bytes().decode("latin-1")


# ---------------------------------------------------------------- subprocess runs


class RunResult(NamedTuple):
    wall: float
    cpu: float
    max_rss_kb: int
    codes: Counter  # report prefix ("E", "DET", ...) -> count


# Linux carries the spawning process's resident size into the child's ru_maxrss
# (fork copies the page tables, exec keeps the old high-water mark).  This
# benchmark holds libcst trees, so flake8 is spawned by this tiny stdlib-only
# helper (about 10 MB, less than any flake8 run) that times the command and
# prints one marker line after the command's own output.
_MARKER = "@@benchmark-rusage"
_SPAWNER = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
print("\\n%s %r %r %d" % (sys.argv[1], wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss), flush=True)
sys.exit(os.waitstatus_to_exitcode(status))
"""
SPAWNER = [sys.executable, "-S", "-I", "-c", _SPAWNER, _MARKER]


def run_measured(args: Sequence[str], ok_codes: Sequence[int] = (0,)) -> RunResult:
    """Run ``args`` via the spawner; wall, CPU and peak RSS of exactly that process."""
    codes = Counter()
    measured = None
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(SPAWNER + list(args), stdout=subprocess.PIPE, stderr=errors, text=True)
        with proc.stdout:
            for line in proc.stdout:
                if line.startswith(_MARKER):
                    measured = line.split()[1:]
                elif line.strip():
                    match = _CODE.search(line)
                    codes[match.group(1) if match else "?"] += 1
        if proc.wait() not in ok_codes or measured is None:
            errors.seek(0)
            tail = errors.read().decode(errors="replace")[-2000:]
            raise SystemExit("command failed (%s): %s\n%s" % (proc.returncode, " ".join(args[:6]), tail))
    return RunResult(float(measured[0]), float(measured[1]), int(measured[2]), codes)


def flake8_command(flags: Sequence[str], flake8_args: Sequence[str]) -> List[str]:
    return LAUNCHER + list(flags) + list(flake8_args)


def plugin_versions(flags: Sequence[str]) -> str:
    out = subprocess.run(flake8_command(flags, ["--version"]), capture_output=True, text=True, check=True)
    return " ".join(out.stdout.split())


def check_variants(variants: Dict[str, Tuple[str, ...]]) -> None:
    """Fail loudly if hiding a plugin did not work (a typo would silently measure nothing)."""
    for name, flags in variants.items():
        if name == FIX_CHECK:
            continue
        shown = plugin_versions(flags).lower()
        wants_det = "--without-determinism" not in flags
        wants_tor = "--without-torchfix" not in flags and torchfix_installed()
        if ("flake8-determinism" in shown) != wants_det or ("torchfix" in shown) != wants_tor:
            raise SystemExit("variant %r loads the wrong plugins: %s" % (name, shown))


class Totals:
    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.max_rss_kb = 0
        self.codes = Counter()

    def add(self, result: RunResult) -> None:
        self.wall += result.wall
        self.cpu += result.cpu
        self.max_rss_kb = max(self.max_rss_kb, result.max_rss_kb)
        self.codes.update(result.codes)


def rotated(items: list, shift: int) -> list:
    shift %= len(items)
    return items[shift:] + items[:shift]


# ``determinism-fix --check`` is timed in the same rotation (exit 1: something would change;
# 2: a file does not parse under this Python, as flake8 reports E999 and goes on).
FIX_CHECK = "determinism-fix --check"
FIX_COMMAND = [sys.executable, "-m", "flake8_determinism.fix", "--check", "-q", "-j", "1"]


def _command(name: str, flags: Tuple[str, ...], paths: List[str]) -> List[str]:
    return FIX_COMMAND + paths if name == FIX_CHECK else flake8_command(flags, FLAKE8_ARGS + paths)


def run_flake8_variants(chunks: List[List[Path]], variants: Dict[str, Tuple[str, ...]]) -> Dict[str, Totals]:
    totals = {name: Totals() for name in variants}
    # The cold run and the warm run after it are one step of the rotation.
    steps = [[name] for name in variants if name != WARM]
    if WARM in variants:
        if COLD in variants:
            steps[[s[0] for s in steps].index(COLD)].append(WARM)
        else:
            steps.append([WARM])
    # Warm-up (untimed): byte-compile flake8 and the plugins once for every variant.
    for name in variants:
        run_measured(_command(name, variants[name], [str(chunks[0][0])]), (0, 1, 2))
    for index, chunk in enumerate(chunks):
        paths = [str(p) for p in chunk]
        # Rotate the order per chunk so no variant always runs first.
        for step in rotated(steps, index):
            for name in step:
                if name == COLD:
                    remove_caches(chunk)
                totals[name].add(run_measured(_command(name, variants[name], paths), (0, 1, 2)))
        progress("chunk %d/%d done (%d files)" % (index + 1, len(chunks), len(chunk)))
    return totals


def remove_caches(files: Sequence[Path]) -> None:
    """Delete the project caches of these files' projects (a cold start)."""
    import shutil

    from .analysis.project.layout import find_root
    from .analysis.project.store import CACHE_DIRECTORY

    for root in {find_root(str(path)) for path in files}:
        shutil.rmtree(Path(root) / CACHE_DIRECTORY, ignore_errors=True)


# ---------------------------------------------------------------- in-process per file


class FileTiming(NamedTuple):
    precheck: float
    parse: Optional[float]  # None: pre-check said no
    analysis: Optional[float]  # None: not parsed or analysis failed
    findings: int
    status: str  # "skipped", "parsed", "parse-failed", "analysis-failed"


def time_file(source: str, settings: Settings, rules: tuple, filename: str = "", path: Optional[str] = None
              ) -> FileTiming:
    clock = time.perf_counter
    try:
        tree = ast.parse(source)  # flake8 hands this to the plugin for free: not timed
    except (SyntaxError, ValueError, RecursionError):
        return FileTiming(0.0, None, None, 0, "skipped")
    start = clock()
    selected = checker.select_rules(source, tree, settings, rules, filename, path=path)
    t_pre = clock() - start
    if not selected:
        return FileTiming(t_pre, None, None, 0, "skipped")
    # As in checker.check_source, the cyclic GC is off for parse and analysis
    # (the parse-alone baseline gets the same treatment, so the ratio is fair).
    gc.disable()
    try:
        start = clock()
        try:
            module = checker.parse(source, ast_checked=True)
        except checker.ParseFailure:
            return FileTiming(t_pre, clock() - start, None, 0, "parse-failed")
        t_parse = clock() - start
        start = clock()
        try:
            findings = checker.check_module(module, settings, selected, filename, path)
        except RecursionError:  # check_source swallows this too
            return FileTiming(t_pre, t_parse, None, 0, "analysis-failed")
        return FileTiming(t_pre, t_parse, clock() - start, len(findings), "parsed")
    finally:
        gc.enable()


def time_in_process(sources: List[str], names: Sequence[str] = ()) -> List[FileTiming]:
    """``names``: the file names flake8 would pass (test modules are told apart by them)."""
    settings = Settings.from_values()  # what the plugin uses when given no options
    rules = tuple(ALL_RULES)
    names = list(names) or [""] * len(sources)
    return [time_file(source, settings, rules, name, name or None) for source, name in zip(sources, names)]


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = min(max(1, math.ceil(fraction * len(ordered))), len(ordered))
    return ordered[rank - 1]


# ---------------------------------------------------------------- README example


def time_example(path: Path, repeats: int) -> Tuple[float, float]:
    """Median wall of the whole process: --select=DET with the plugin vs --select=E without."""
    runs = {
        "det": flake8_command(WITH_DET, ["--isolated", "--exit-zero", "--select=DET", str(path)]),
        "plain": flake8_command(NO_PLUGIN, ["--isolated", "--exit-zero", "--select=E", str(path)]),
    }
    walls = {name: [] for name in runs}
    for index in range(repeats):
        for name in rotated(list(runs), index):
            walls[name].append(run_measured(runs[name]).wall)
    return statistics.median(walls["det"]), statistics.median(walls["plain"])


# ---------------------------------------------------------------- report


def progress(message: str) -> None:
    print("[benchmark] " + message, file=sys.stderr, flush=True)


def flake8_row(label: str, totals: Totals) -> str:
    return "%-26s: wall %7.1f s  cpu %7.1f s  peak RSS %4.0f MB  reports %s" % (
        label,
        totals.wall,
        totals.cpu,
        totals.max_rss_kb / 1024.0,
        format(sum(totals.codes.values()), ","),
    )


def overhead_row(label: str, slower: Totals, base: Totals) -> str:
    return "%-26s: wall %+6.1f s (%.2fx)  cpu %+6.1f s (%.2fx)" % (
        label,
        slower.wall - base.wall,
        slower.wall / base.wall,
        slower.cpu - base.cpu,
        slower.cpu / base.cpu,
    )


def report_flake8(totals: Dict[str, Totals]) -> List[str]:
    base, ours = totals["without"], totals[WARM]
    lines = [flake8_row("flake8 -j1 without plugin", base)]
    if COLD in totals:
        cold = totals[COLD]
        lines.append(flake8_row("flake8 -j1 with DET, cold", cold))
        lines.append("ratio cold/without        : wall %.2fx  cpu %.2fx" % (cold.wall / base.wall, cold.cpu / base.cpu))
    lines.append(flake8_row("flake8 -j1 with DET, warm", ours))
    if "with TorchFix" in totals:
        lines.append(flake8_row("flake8 -j1 with TorchFix", totals["with TorchFix"]))
    lines.append("ratio warm/without        : wall %.2fx  cpu %.2fx" % (ours.wall / base.wall, ours.cpu / base.cpu))
    lines.append(overhead_row("DET overhead", ours, base))
    if "with TorchFix" in totals:
        tor = totals["with TorchFix"]
        lines.append(overhead_row("torchfix overhead", tor, base))
        lines.append(
            "DET / torchfix overhead   : wall %s  cpu %s"
            % (_ratio(ours.wall - base.wall, tor.wall - base.wall), _ratio(ours.cpu - base.cpu, tor.cpu - base.cpu))
        )
    else:
        lines.append("torchfix                  : not installed (pip install torchfix to compare)")
    lines.append("DET reports via flake8    : %s" % format(ours.codes["DET"], ","))
    if FIX_CHECK in totals:
        fix = totals[FIX_CHECK]
        lines.append("%-26s: wall %7.1f s  cpu %7.1f s  peak RSS %4.0f MB" % (
            FIX_CHECK, fix.wall, fix.cpu, fix.max_rss_kb / 1024.0))
        lines.append("%s / flake8 with DET: wall %.2fx  cpu %.2fx" % (
            FIX_CHECK, fix.wall / ours.wall, fix.cpu / ours.cpu))
    return lines


def _ratio(numerator: float, denominator: float) -> str:
    return "%.2fx" % (numerator / denominator) if denominator > 0 else "n/a (torchfix overhead <= 0)"


def report_in_process(timings: List[FileTiming]) -> List[str]:
    total = len(timings)
    reached = [t for t in timings if t.status != "skipped"]
    parsed = [t for t in timings if t.status == "parsed"]
    failed = sum(t.status == "parse-failed" for t in timings)
    broken = sum(t.status == "analysis-failed" for t in timings)
    lines = [
        "files reaching libcst parse: %d / %d (%.1f %%)  parse failures: %d  analysis failures: %d"
        % (len(reached), total, 100.0 * len(reached) / max(total, 1), failed, broken)
    ]
    if parsed:
        ratios = [(t.precheck + t.parse + t.analysis) / t.parse for t in parsed]
        whole = sum(t.precheck + t.parse + t.analysis for t in parsed) / sum(t.parse for t in parsed)
        lines.append(
            "per parsed file, (precheck+parse+analysis)/parse: median %.2fx  p95 %.2fx  (summed: %.2fx)"
            % (statistics.median(ratios), percentile(ratios, 0.95), whole)
        )
    lines.append(
        "in-process totals: precheck %.2f s (all files)  parse %.2f s  analysis %.2f s"
        % (
            sum(t.precheck for t in timings),
            sum(t.parse for t in reached if t.parse is not None),
            sum(t.analysis for t in parsed),
        )
    )
    lines.append("findings (in-process)     : %s" % format(sum(t.findings for t in timings), ","))
    return lines


def example_row(path: Path, repeats: int) -> str:
    if not path.is_file():
        return "README example            : skipped (%s not found)" % path
    repeats = max(1, repeats)
    progress("README example, %d repeats" % repeats)
    det, plain = time_example(path, repeats)
    row = "README example            : %s  --select=DET %.3f s vs --select=E without plugin %.3f s  %.2fx (median, %d)"
    return row % (
        path,
        det,
        plain,
        det / plain,
        repeats,
    )


# ---------------------------------------------------------------- main


def torchfix_installed() -> bool:
    try:
        importlib.metadata.distribution("torchfix")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m flake8_determinism.benchmark", description=__doc__.split("\n")[0])
    parser.add_argument("dir", nargs="?", type=Path, help="directory to lint (default: installed torch)")
    parser.add_argument("--limit", type=int, help="use N files evenly spaced over the sorted list")
    parser.add_argument("--chunks", type=int, default=8, help="interleaving chunks (default 8)")
    parser.add_argument("--example", type=Path, default=Path("examples/train_example.py"))
    parser.add_argument("--repeats", type=int, default=10, help="runs per variant for the example row")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be >= 1")
    if args.chunks < 1:
        parser.error("--chunks must be >= 1")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    root = (args.dir or torch_source_dir()).resolve()
    files = collect_files(root, args.limit)
    if not files:
        raise SystemExit("no *.py files under %s" % root)
    # Reading every file first also warms the page cache for the flake8 runs.
    sources = [read_source(path) for path in files]
    line_count = sum(s.count("\n") + (not s.endswith("\n") and bool(s)) for s in sources)

    progress("in-process timing of %d files" % len(files))
    timings = time_in_process(sources, [str(path) for path in files])
    del sources

    variants = {"without": NO_PLUGIN, COLD: WITH_DET, WARM: WITH_DET}
    if torchfix_installed():
        variants["with TorchFix"] = WITH_TORCHFIX
    check_variants(variants)
    variants[FIX_CHECK] = ()
    chunks = split_chunks(files, args.chunks)
    progress("flake8: %d variants x %d chunks" % (len(variants), len(chunks)))
    totals = run_flake8_variants(chunks, variants)

    report = ["files: %d  lines: %s  (dir: %s)  chunks: %d" % (len(files), format(line_count, ","), root, len(chunks))]
    report += report_flake8(totals)
    report += report_in_process(timings)
    report.append(example_row(args.example, args.repeats))
    print("\n".join(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
