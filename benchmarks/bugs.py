"""Does the linter report real nondeterminism bugs that maintainers fixed?  (recall)

Usage::

    python benchmarks/bugs.py BUGS_DIR [--strict] [--out results.txt] [--all]

BUGS_DIR holds one folder per mined fix (kept outside the repository; never committed):
``before/`` (the project at the parent commit), optionally ``after/`` (at the fix), and
``meta.json`` with ``flag_at`` (``path:line`` where the pre-fix code should be reported),
``entry`` (the script the run starts from), ``files`` (the changed ranges, ``before_lines``),
``expected_codes``, ``in_contract`` and optionally ``target_torch_version`` (the torch the
project was written for, where the bug depends on it).

A bug counts as **caught** when the pre-fix project gets a report with one of the expected
codes in the file of ``flag_at`` within 3 lines of it or inside a changed range -- or, for the
seeding codes (DET100-DET107, reported once per run in the entry module), anywhere in the
entry module.  Each file is linted with the project root set to ``before/``, as the plugin
would lint it in a checkout.  The script works with older versions of the linter too
(``check_source`` without ``path``), so the same bugs can be run before and after a change.
"""

import argparse
import inspect
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from flake8_determinism.benchmark import read_source
from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings

RUN_CODES = frozenset({"DET100", "DET101", "DET102", "DET104", "DET106", "DET107"})
NEAR = 3


def settings_for(root: Path, strict: bool, torch_version: str = "") -> Settings:
    accepted = inspect.signature(Settings.from_values).parameters
    values = {"strict": strict, "torch_version": torch_version or None}
    if "project_root" in accepted:
        values.update(project_root=str(root), cache=False)
    return Settings.from_values(**values)


def lint(root: Path, relative: str, settings: Settings):
    path = root / relative
    source = read_source(path)
    if source is None:
        return []
    keywords = {"filename": relative}
    if "path" in inspect.signature(check_source).parameters:
        keywords["path"] = str(path)
    return check_source(source, settings, **keywords)


def judge(bug: Path, strict: bool) -> Tuple[bool, List[str], dict]:
    meta = json.loads((bug / "meta.json").read_text())
    root = bug / "before"
    flag_file, _, flag_line = meta["flag_at"].rpartition(":")
    entry = meta.get("entry") or flag_file
    expected = set(meta.get("expected_codes") or ())
    ranges = [tuple(f["before_lines"]) for f in meta.get("files", ()) if f.get("path") == flag_file]
    settings = settings_for(root, strict, meta.get("target_torch_version", ""))
    found: Dict[str, list] = {}
    for relative in sorted({flag_file, entry}):
        if (root / relative).is_file():
            found[relative] = lint(root, relative, settings)
    hits = []
    for relative, findings in found.items():
        for finding in findings:
            if finding.code not in expected:
                continue
            near = relative == flag_file and (
                abs(finding.line - int(flag_line or 0)) <= NEAR or any(a <= finding.line <= b for a, b in ranges)
            )
            if near or (finding.code in RUN_CODES and relative == entry):
                hits.append("%s:%d %s" % (relative, finding.line, finding.code))
    return bool(hits), hits, meta


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bugs", type=Path)
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--all", action="store_true", help="also bugs outside the contract")
    args = parser.parse_args(argv)
    rows, caught, total = [], 0, 0
    for bug in sorted(p for p in args.bugs.iterdir() if (p / "meta.json").is_file()):
        ok, hits, meta = judge(bug, args.strict)
        if not meta.get("in_contract", True) and not args.all:
            continue
        total += 1
        caught += ok
        rows.append("%s %s %s %s" % ("CAUGHT" if ok else "missed", bug.name, ",".join(meta.get("expected_codes") or ()),
                                     " ".join(hits) or meta["flag_at"]))
    text = "\n".join(rows) + "\n\ncaught %d of %d (%s mode)\n" % (caught, total, "strict" if args.strict else "default")
    if args.out:
        args.out.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
