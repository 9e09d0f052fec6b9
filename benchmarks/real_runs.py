"""Proof on real runs: real training scripts, adapted to run offline on CPU in seconds,
diverge before ``determinism-fix`` and reproduce after it (issue: "proof on real runs").

Usage::

    python benchmarks/real_runs.py PINNED [--case NAME ...] [--runs 3] [--out DIR]

``PINNED/<case>/`` holds the files a case names, exactly as in ``REPO`` at ``COMMIT`` (checked
against their git blob ids; nothing is fetched here).  For each case (``benchmarks/real_runs/``)
a scratch copy is adapted (the case's ``adapt``: data source and size only), then:

1. ``determinism-verify --runs N -- python COMMAND`` in the case's working directory:
   "diverges" expected ("reproducible" for a control that seeds already);
2. ``determinism-fix`` over the copy (its diff kept under ``--out``);
3. ``determinism-verify`` again: "reproducible" expected.

Exit status 1 when a case does not behave as expected.  The commands run with this
interpreter, which needs torch and each case's ``REQUIRES``.
"""

import argparse
import difflib
import importlib
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import real_runs  # noqa: E402 - the cases' package, beside this script

VERDICTS = {0: "reproducible", 1: "diverges"}


def cases():
    for info in pkgutil.iter_modules(real_runs.__path__):
        yield importlib.import_module("real_runs." + info.name)


def check_pin(case, pinned: Path) -> None:
    for relative, blob in case.FILES.items():
        data = (pinned / relative).read_bytes()
        if real_runs.blob_id(data) != blob:
            raise SystemExit("%s: %s is not %s@%s's file (blob %s)" % (case.__name__, relative, case.REPO,
                                                                       case.COMMIT[:12], blob))


def verify(case, root: Path, runs: int, logs: Path) -> str:
    command = [sys.executable, "-m", "flake8_determinism.verify", "--runs", str(runs), "--timeout", "300",
               "--keep-logs", str(logs), *getattr(case, "VERIFY_ARGS", ()), "--", sys.executable, *case.COMMAND]
    run = subprocess.run(command, cwd=root / case.WORKDIR, capture_output=True, text=True)
    verdict = VERDICTS.get(run.returncode, "error")
    if verdict == "error":
        verdict += ": " + (run.stdout + run.stderr).strip().splitlines()[-1]
    return verdict


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}


def run_case(case, pinned: Path, runs: int, out: Path) -> bool:
    check_pin(case, pinned)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / case.__name__.rsplit(".", 1)[-1]
        shutil.copytree(pinned, root)
        case.adapt(root)
        started = time.time()
        before = verify(case, root, runs, out / "before")
        adapted = snapshot(root)
        fix = subprocess.run([sys.executable, "-m", "flake8_determinism.fix", "."], cwd=root, capture_output=True,
                             text=True)
        fixed = snapshot(root)
        diff = "".join("".join(difflib.unified_diff(adapted[name].splitlines(True), fixed.get(name, "").splitlines(True),
                                                    "a/" + name, "b/" + name))
                       for name in adapted if fixed.get(name) != adapted[name])
        (out / "fix.diff").write_text(diff)
        (out / "fix.log").write_text(fix.stdout + fix.stderr)
        after = verify(case, root, runs, out / "after")
    expected = getattr(case, "EXPECT_BEFORE", "diverges")
    ok = before == expected and after == "reproducible"
    print("%-28s before: %-14s after: %-14s fix: %3d lines changed  %5.0f s  %s" % (
        case.__name__.rsplit(".", 1)[-1], before, after,
        sum(1 for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")),
        time.time() - started, "ok" if ok else "UNEXPECTED"))
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pinned", type=Path, help="folder with one pinned copy per case")
    parser.add_argument("--case", action="append", default=[], help="only these cases")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("real-runs-out"))
    args = parser.parse_args(argv)
    failures = 0
    for case in cases():
        name = case.__name__.rsplit(".", 1)[-1]
        if args.case and name not in args.case:
            continue
        out = args.out / name
        out.mkdir(parents=True, exist_ok=True)
        failures += not run_case(case, args.pinned / name, args.runs, out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
