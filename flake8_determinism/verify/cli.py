"""``determinism-verify [options] -- COMMAND ...``: the options, the runs, the exit status.

Exit status: 0 when the runs are reproducible, 1 when they diverge, 2 on a usage error,
a command that cannot start, fails or times out, or a metric that matches nothing
(docs/contract.md, "determinism-verify"); 130 when interrupted.
"""

import argparse
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from ..console import escape_what_terminals_cannot_show, plural
from . import locate, report
from .compare import Tolerance, compare
from .metrics import DEFAULT_METRIC, MetricError, extract, is_step
from .runner import Progress, RunResult, run_command

EXIT_REPRODUCIBLE, EXIT_DIVERGES, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
TAIL_LINES = 20  # lines of a failed run's stderr shown
HASH_SEED = "PYTHONHASHSEED"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="determinism-verify",
        usage="%(prog)s [options] -- COMMAND ...",
        description="Run a training command several times and compare the metric it prints step by step.",
        epilog="Exit status: 0 reproducible, 1 the runs diverge, 2 a usage error, a command that fails or a"
        " metric that matches nothing.",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    parser.add_argument("--runs", type=int, default=2, metavar="N", help="how many runs (default: 2)")
    parser.add_argument("--metric", default=DEFAULT_METRIC, metavar="REGEX",
                        help="lines that carry the metric; its value is the (?P<value>...) group, else the first"
                        " number after the match (default: %(default)s)")
    parser.add_argument("--atol", type=float, default=None, metavar="X", help="absolute tolerance (default: 1e-3)")
    parser.add_argument("--rtol", type=float, default=None, metavar="X", help="relative tolerance (default: 1e-5)")
    parser.add_argument("--exact", action="store_true", help="compare the printed values as text")
    parser.add_argument("--timeout", type=float, default=None, metavar="S", help="stop a run after S seconds")
    parser.add_argument("--env-diff", action="store_true",
                        help="give every run after the first a different PYTHONHASHSEED (exposes set order)")
    parser.add_argument("--keep-logs", default=None, metavar="DIR", help="write each run's stdout and stderr here")
    parser.add_argument("--locate", action="store_true",
                        help="run the command twice more with a tracer and say where the runs first differ"
                        " (weights, batches, RNG states, module outputs, gradients) and why")
    parser.add_argument("--steps", type=int, default=locate.DEFAULT_STEPS, metavar="K",
                        help="optimizer steps --locate traces (default: %(default)s)")
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Options before ``--``, the command after it (without ``--`` the command starts at
    the first word that is not an option).  Usage errors exit 2, as argparse does."""
    parser = build_parser()
    argv = list(argv)
    if "--" in argv:
        split = argv.index("--")
        args = parser.parse_args(argv[:split])
        if args.command:
            parser.error("unexpected %r before --: put the whole command after --" % args.command[0])
        args.command = argv[split + 1:]
    else:
        args = parser.parse_args(argv)
    if not args.command:
        parser.error("give the command to run after --, e.g. determinism-verify -- python train.py")
    if args.runs < 2:
        parser.error("--runs must be at least 2")
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    if args.exact and (args.atol is not None or args.rtol is not None):
        parser.error("--exact compares text: --atol and --rtol do not apply")
    for name in ("atol", "rtol"):
        value = getattr(args, name)
        if value is not None and not value >= 0:  # also NaN
            parser.error("--%s must be 0 or more" % name)
    if args.timeout is not None and not args.timeout > 0:
        parser.error("--timeout must be more than 0 seconds")
    try:
        args.metric_regex = re.compile(args.metric)
    except re.error as error:
        parser.error("--metric %r is not a regular expression: %s" % (args.metric, error))
    if args.keep_logs is not None:
        try:
            Path(args.keep_logs).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            parser.error("--keep-logs %s: %s" % (args.keep_logs, error.strerror or error))
    return args


def run_env(number: int, env_diff: bool, inherited: Dict[str, str]) -> Dict[str, str]:
    """Run 1 gets the environment as it is; with --env-diff every later run gets another
    PYTHONHASHSEED (the inherited number plus run - 1; 0 when it is unset or "random")."""
    env = dict(inherited)
    if env_diff and number > 1:
        try:
            base = int(inherited.get(HASH_SEED, ""))
        except ValueError:
            base = 0
        env[HASH_SEED] = str((base + number - 1) % 2 ** 32)
    return env


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    escape_what_terminals_cannot_show()
    try:
        return _verify(args)
    except KeyboardInterrupt:
        print("\ndeterminism-verify: interrupted; the command was stopped.", file=sys.stderr)
        return EXIT_INTERRUPTED


def _verify(args: argparse.Namespace) -> int:
    given = {name: getattr(args, name) for name in ("atol", "rtol") if getattr(args, name) is not None}
    tolerance = Tolerance(exact=args.exact, **given)
    progress = Progress(args.runs)
    shown = shlex.join(args.command)
    series = []  # type: List[list]
    hash_seeds = []  # type: List[str]
    results = []  # type: List[RunResult]
    progress.announce("%d runs of: %s" % (args.runs, shown))
    for number in range(1, args.runs + 1):
        env = run_env(number, args.env_diff, dict(os.environ))
        hash_seeds.append(env.get(HASH_SEED, "unset"))
        note = " (%s=%s)" % (HASH_SEED, hash_seeds[-1]) if args.env_diff else ""
        progress.start(number, note)
        try:
            result = run_command(args.command, number, env, args.timeout,
                                 lambda line: is_step(args.metric_regex, line), progress)
        except OSError as error:
            return _error("cannot run %s: %s" % (shlex.quote(args.command[0]), error.strerror or error))
        _keep(args.keep_logs, result)
        try:
            steps = extract(args.metric_regex, result.stdout, result.stderr, args.exact)
        except MetricError as error:
            steps, problem = [], str(error)
        else:
            problem = ""
        progress.end(number, result, len(steps))
        results.append(result)
        if result.timed_out or result.returncode != 0:
            return _failed(args, result, shown)  # its logs are kept: they tell why
        if problem:
            return _error("run %d: %s" % (number, problem))
        if not steps and number == 1:
            return _no_metric(args.metric, result)
        series.append(steps)
    comparison = compare(series, tolerance)
    out = sys.stdout
    for line in report.table(comparison, out) + [""] + report.verdict(comparison, tolerance):
        print(line, file=out)
    for line in _hash_seed_notes(args.env_diff, hash_seeds, comparison.reproducible):
        print(line, file=out)
    if args.keep_logs is not None:
        print("Logs of the runs: %s" % os.path.join(args.keep_logs, "run-N.stdout|stderr"), file=out)
    exit_status = EXIT_REPRODUCIBLE if comparison.reproducible else EXIT_DIVERGES
    if not comparison.reproducible and not args.locate:
        print("", file=out)
        for line in report.findings(args.command):
            print(line, file=out)
        print("To find where the runs first differ: determinism-verify --locate -- %s" % shown, file=out)
    if args.locate:
        located = _locate(args, progress, [result.seconds for result in results], out)
        if located is not None:
            return located
    return exit_status


def _locate(args: argparse.Namespace, progress: Progress, untraced: List[float], out) -> Optional[int]:
    """The two traced runs and what their traces say (None when done; an exit status when a
    traced run failed)."""
    directory = locate.new_directory()
    base = dict(os.environ)
    # With --env-diff: first two runs with one PYTHONHASHSEED (run 2's, a number), then two with
    # different ones; a difference only in the second pair comes from hashing.
    pairs = [(2, 2), (2, 3)] if args.env_diff else [(1, 2)]
    traces: List[locate.Trace] = []
    hash_seed_only = False
    for pair_number, runs in enumerate(pairs):
        traces = []
        for number, run_number in enumerate(runs, 1):
            label = pair_number * 2 + number
            env = locate.traced_env(run_env(run_number, args.env_diff, base), locate.trace_path(directory, label),
                                    args.steps)
            progress.announce("traced run %d of %d (%s)" % (label, 2 * len(pairs), plural(args.steps, "step")))
            try:
                result = run_command(args.command, label, env, args.timeout, lambda line: False, progress)
            except OSError as error:
                return _error("cannot run %s: %s" % (shlex.quote(args.command[0]), error.strerror or error))
            if result.timed_out or result.returncode != 0:
                return _failed_traced(args, result)
            trace = locate.read_trace(locate.trace_path(directory, label))
            if trace is None:
                return _error("traced run %d wrote no trace: the command does not run Python here, or it ends"
                              " with os._exit() before the tracer can write." % label)
            traces.append(trace._replace(seconds=result.seconds))
        if args.env_diff and pair_number == 0:
            if locate.differs(*traces):
                break  # they differ with the same PYTHONHASHSEED: hashing is not the cause
            hash_seed_only = True
    found = locate.explain(traces[0], traces[1], hash_seed_only=hash_seed_only)  # said only of a difference
    print("", file=out)
    print("Where the runs first differ (--locate, %s traced):" % plural(args.steps, "step"), file=out)
    print("  " + found.headline, file=out)
    for line in found.lines:
        print("  " + line, file=out)
    if found.codes:
        print("  Matching codes: %s (determinism-fix --explain CODE says more)." % ", ".join(found.codes), file=out)
    for line in _tracing_cost(traces, untraced):
        print(line, file=out)
    print("", file=out)
    for line in report.findings(args.command, found.files, found.codes):
        print(line, file=out)
    return None


def _tracing_cost(traces: List[locate.Trace], untraced: List[float]) -> List[str]:
    lines = []
    sampled = [trace for trace in traces if trace.sampled]
    errors = sorted({error for trace in traces for error in trace.errors})
    lines.append("  Tracing: %s traced; the hooks took %.2f s and %.2f s; traced runs %s, untraced %s." % (
        plural(min(t.steps_done for t in traces), "step"), traces[0].cost, traces[1].cost,
        " and ".join("%.1f s" % t.seconds for t in traces), " and ".join("%.1f s" % s for s in untraced)))
    if sampled:
        lines.append("  Tensors larger than %d elements were fingerprinted from an evenly strided sample of"
                     " that many elements." % sampled[0].sample)
    for error in errors:
        lines.append("  The tracer stopped early: %s" % error)
    return lines


def _failed_traced(args: argparse.Namespace, result: RunResult) -> int:
    what = ("ran past --timeout %g s" % args.timeout if result.timed_out
            else "was killed by signal %d" % -result.returncode if result.returncode < 0
            else "exited with status %d" % result.returncode)
    tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-TAIL_LINES:]
    lines = ["traced run %d failed: %s %s under the tracer (untraced, it ran)." % (
        result.number, shlex.join(args.command), what)]
    if tail:
        lines.append("Its output ends with:")
        lines.extend("  " + line for line in tail)
    return _error("\n".join(lines))


def _hash_seed_notes(env_diff: bool, hash_seeds: Sequence[str], reproducible: bool) -> List[str]:
    if env_diff and not reproducible:
        return ["The runs differed in %s (%s): if they agree without --env-diff, the output depends on the"
                " order of a set or on string hashes (DET207 reports orders taken from sets)." % (
                    HASH_SEED, ", ".join(hash_seeds))]
    if not env_diff and reproducible and hash_seeds[0].isdigit():  # "random" or unset: runs already differ
        return ["%s is fixed in this environment (%s), so every run hashed strings alike; --env-diff varies it"
                " to expose a dependence on set order." % (HASH_SEED, hash_seeds[0])]
    return []


def _keep(directory: Optional[str], result: RunResult) -> None:
    """Write the run's output to --keep-logs; a log that cannot be written is said, and
    the verification goes on."""
    if directory is None:
        return
    for name, data in (("stdout", result.out), ("stderr", result.err)):
        path = Path(directory, "run-%d.%s" % (result.number, name))
        try:
            path.write_bytes(data)
        except OSError as error:
            print("determinism-verify: cannot keep %s: %s" % (path, error.strerror or error), file=sys.stderr)


def _error(message: str) -> int:
    print("determinism-verify: " + message, file=sys.stderr)
    return EXIT_ERROR


def _failed(args: argparse.Namespace, result: RunResult, shown: str) -> int:
    if result.timed_out:
        what = "ran past --timeout %g s and was stopped" % args.timeout
    elif result.returncode < 0:
        what = "was killed by signal %d" % -result.returncode
    else:
        what = "exited with status %d" % result.returncode
    stream, text = ("stderr", result.stderr) if result.stderr.strip() else ("stdout", result.stdout)
    tail = text.rstrip().splitlines()[-TAIL_LINES:]
    lines = ["run %d/%d failed: %s %s." % (result.number, args.runs, shown, what)]
    if tail:
        lines.append("Its %s ends with:" % stream)
        lines.extend("  " + line for line in tail)
    else:
        lines.append("It printed nothing.")
    return _error("\n".join(lines))


def _no_metric(metric: str, result: RunResult) -> int:
    counts = [len(text.splitlines()) for text in (result.stdout, result.stderr)]
    lines = ["the metric %r matched no line with a value in run 1's output (%s on stdout, %d on stderr),"
             " so there is nothing to compare." % (metric, plural(counts[0], "line"), counts[1]),
             "Name the lines that carry the value with --metric REGEX; put (?P<value>...) around the value"
             " unless it is the first number after the match."]
    tail = result.stdout.rstrip().splitlines()[-5:]
    if tail:
        lines.append("The last lines of its stdout:")
        lines.extend("  " + line for line in tail)
    return _error("\n".join(lines))


def run() -> None:
    sys.exit(main())
