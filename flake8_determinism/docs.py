"""The rule documentation: ``docs/rules/DETnnn.md`` and the README's rule table, generated from the rule classes.

Every page is built from one rule class (``flake8_determinism/rules/detNNN.py``): its docstring
("What it does", "Why it matters", "Fix"), its ``sources`` (the facts it rests on, each with its
source), its first ``invalid`` example with the report the linter really gives on it, the fixed
version -- ``determinism-fix``'s real output on that example, or the class's hand-written ``fixed``
example for rules it does not fix, linted to show the report is gone --, ``fix_description`` and
``scope_note``.  Nothing on a page is typed by hand outside the classes.

    python -m flake8_determinism.docs          # rewrite docs/rules/*.md and the README table
    python -m flake8_determinism.docs --check  # exit 1 if they differ from what the classes give

``determinism-fix --explain DETnnn`` prints ``render_page`` of that code (``docs/`` is not installed
with the package).  The examples are linted and fixed with the rule's ``example_settings`` and, unless
those name one, the newest torch docs/facts.md knows as the target version, so the pages do not depend
on the torch installed where they are generated.

This module runs the linter and the codemod (libcst): the flake8 plugin never imports it.
"""

import argparse
import re
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from . import FACTS_URL, RULE_DOCS_URL
from .checker import check_source
from .fix.transform import fix_source
from .registry import ALL_RULES
from .rules.common.base import Docstring, markdown
from .settings import NEWEST_KNOWN_TORCH, Settings

EXAMPLE = "example.py"  # the file name the examples are linted and fixed under
PAGES = Path("docs") / "rules"  # relative to the repository root
README = "README.md"
TABLE_START = "<!-- rules-table:start -->"
TABLE_END = "<!-- rules-table:end -->"
REGENERATE = "python -m flake8_determinism.docs"

# The sections every page has, in order (the tests check them).
SECTIONS = (
    "## What it reports",
    "## Why it breaks reproducibility",
    "## Example",
    "## Fixed",
    "## What determinism-fix does",
    "## Scope",
    "## Silencing it",
)
FIX_KINDS = {  # ``Rule.fixes`` -> (table cell, sentence)
    "safe": ("safe", "Safe fix: `determinism-fix` applies it by default."),
    "unsafe": ("unsafe (`--unsafe-fixes`)",
               "Unsafe fix: `determinism-fix` applies it only with `--unsafe-fixes`, because it can change "
               "behaviour."),
    "sometimes": ("safe or unsafe",
                  "Safe or unsafe, depending on what `determinism-fix` can see: safe fixes are applied by "
                  "default, unsafe ones only with `--unsafe-fixes`."),
    "": ("not fixed", "Not fixed: `determinism-fix` reports it and leaves the code as it is."),
}
SCOPES = {
    None: "Reported wherever the code is: scripts, library modules and functions alike.",
    "entry": (
        "Reported only in entry modules: a module whose `if __name__ == \"__main__\":` block or module-level "
        "statements do work (train, evaluate, generate or write a result; in strict mode, any call that is not "
        "configuration). Library modules are left alone."
    ),
    "program": (
        "Reported in entry modules, and in any module that reads the command line (`parse_args()`, "
        "`parse_args_into_dataclasses()`, absl's `app.run`): its options are the program's, wherever its "
        "`main()` is written."
    ),
    "draw": (
        "Scope policy: reported when the code runs at import time or in entry code (the module level and "
        "`__main__` block of an entry module, and the functions they call or hand on). Inside a library "
        "module's functions the seed is the caller's job: reported only in strict mode "
        "(`--determinism-strict`)."
    ),
}
TEST_MODULES = (
    "In test modules (`test_*.py`, `*_test.py`, `conftest.py`, files under `tests/`) it is reported only in "
    "strict mode: tests draw random inputs on purpose."
)


class DocsError(Exception):
    """A rule's documentation cannot be generated (an example that is not reported, a fix that fixes nothing)."""


class Fixed(NamedTuple):
    source: str
    by_codemod: bool  # False: the class's hand-written ``fixed`` example
    unsafe: bool  # the codemod's fix needed ``--unsafe-fixes``
    still_reported: Tuple[str, ...]  # other codes the linter still reports on it


# ------------------------------------------------------------------ reading the class


def rule_for(code: str):
    """The rule of ``code`` (any case, surrounding spaces ignored), or None."""
    wanted = code.strip().upper()
    return next((rule for rule in ALL_RULES if rule.code == wanted), None)


def sentence(text: str) -> str:
    """``text`` starting with a capital letter (docstring sections start mid-sentence: "reports ...")."""
    return text[:1].upper() + text[1:]


def docstring(rule) -> Docstring:
    """The docstring's summary line and its labelled sections; all three of what, why and fix."""
    doc = rule.describe()
    missing = [label for label, text in (("What it does", doc.what), ("Why it matters", doc.why), ("Fix", doc.fix))
               if not text]
    if missing:
        raise DocsError("%s: its docstring has no %s section" % (rule.code, ", ".join(missing)))
    return doc


# The environment the pages are generated in, whatever the machine has installed: NumPy
# importable, a current albumentations, no framework whose signatures a fix reads.
PAGE_ENVIRONMENT = {"numpy_importable": True, "albumentations_version": "2.0.8", "frameworks": ()}


def settings_for(rule) -> Settings:
    """The rule's ``example_settings``, with the newest known torch as the default target, in
    ``PAGE_ENVIRONMENT``."""
    values = {"torch_version": "%d.%d" % NEWEST_KNOWN_TORCH, **PAGE_ENVIRONMENT}
    values.update(rule.example_settings)
    return Settings.from_values(**values)


def _options(rule, fixer: bool = False) -> List[str]:
    """The command-line options that give ``example_settings`` (flake8's or determinism-fix's spelling)."""
    values = rule.example_settings
    options = []
    if values.get("strict"):
        options.append("--strict" if fixer else "--determinism-strict")
    if values.get("torch_version"):
        options.append("--determinism-torch-version=%s" % values["torch_version"])
    if values.get("seed_functions") and not fixer:
        options.append("--determinism-seed-functions=%s" % ",".join(values["seed_functions"]))
    return options


# ------------------------------------------------------------------ running the linter and the codemod


def report_lines(source: str, settings: Settings) -> List[str]:
    """What flake8 prints for ``source`` as ``example.py`` (only our codes)."""
    return ["%s:%d:%d: %s" % (EXAMPLE, f.line, f.column + 1, f.message)
            for f in check_source(source, settings, filename=EXAMPLE)]


def reported_codes(source: str, settings: Settings) -> List[str]:
    return sorted({f.code for f in check_source(source, settings, filename=EXAMPLE)})


def fixed_example(rule) -> Fixed:
    """The first ``invalid`` example fixed: by ``determinism-fix`` (safe fixes first, then unsafe)
    for rules it fixes, else the class's ``fixed``.  Either way the code is no longer reported."""
    settings = settings_for(rule)
    source = rule.invalid[0]
    if rule.fixes:
        for unsafe in (False, True):
            result = fix_source(source, settings, 0, unsafe, frozenset({rule.code}), filename=EXAMPLE)
            left = reported_codes(result.source, settings)
            if result.changed and rule.code not in left:
                return Fixed(result.source, True, unsafe, tuple(left))
        raise DocsError("%s: determinism-fix does not fix its first invalid example" % rule.code)
    if not rule.fixed:
        raise DocsError("%s: determinism-fix does not fix it, and the class has no `fixed` example" % rule.code)
    left = reported_codes(rule.fixed, settings)
    if rule.code in left:
        raise DocsError("%s: its `fixed` example is still reported" % rule.code)
    return Fixed(rule.fixed, False, False, tuple(left))


# ------------------------------------------------------------------ rendering


def _code_block(text: str, language: str = "") -> List[str]:
    return ["```" + language] + text.rstrip("\n").split("\n") + ["```"]


_FACTS_CITATION = re.compile(r"facts §(\d+(?:\.\d+)?(?:\([a-z]\))?)")
FACTS_PAGE = "../facts.md"  # from docs/rules/


def linked_facts(text: str, page: str = FACTS_PAGE) -> str:
    """``facts §1.1(a)`` as a link to that section of docs/facts.md (anchor ``s1-1a``)."""
    def link(match) -> str:
        section = match.group(1)
        anchor = "s" + section.replace(".", "-").replace("(", "").replace(")", "")
        return "[facts §%s](%s#%s)" % (section, page, anchor)

    return _FACTS_CITATION.sub(link, text)


def _source_line(fact: str, source: str) -> str:
    return "- %s Source: %s" % (markdown(fact), markdown(source))


def render_page(rule) -> str:
    """The Markdown page of one rule (a rule object or its code)."""
    if isinstance(rule, str):
        found = rule_for(rule)
        if found is None:
            raise KeyError(rule)
        rule = found
    code = rule.code
    doc = docstring(rule)
    settings = settings_for(rule)
    if not rule.sources:
        raise DocsError("%s: the class lists no `sources`" % code)
    example = rule.invalid[0]
    reports = report_lines(example, settings)
    if not any(" %s " % code in line for line in reports):
        raise DocsError("%s: its first invalid example is not reported" % code)
    fixed = fixed_example(rule)
    kind_cell, kind_sentence = FIX_KINDS[rule.fixes]
    flake8 = " ".join(["flake8", "--select=DET"] + _options(rule) + [EXAMPLE])

    lines = ["# %s: %s" % (code, doc.summary), ""]
    lines += ["<!-- Generated from %s by `%s`: edit the class, not this page. -->"
              % (type(rule).__module__.replace(".", "/") + ".py", REGENERATE), ""]
    lines += ["**Family:** %s (%sxx) · **determinism-fix:** %s" % (rule.family(), code[3],
                                                                   kind_cell), ""]

    lines += ["## What it reports", "", sentence(doc.what), ""]

    lines += ["## Why it breaks reproducibility", "", sentence(doc.why), "", "What this rests on:", ""]
    lines += [_source_line(fact, source) for fact, source in rule.sources]
    lines += [""]

    lines += ["## Example", ""] + _code_block(example, "python") + [""]
    lines += ["`%s` reports:" % flake8, ""] + _code_block("\n".join(reports)) + [""]

    lines += ["## Fixed", ""]
    if fixed.by_codemod:
        command = " ".join(["determinism-fix", "--select=%s" % code] + (["--unsafe-fixes"] if fixed.unsafe else [])
                           + _options(rule, fixer=True) + [EXAMPLE])
        lines += ["`%s` rewrites it to%s:" % (command, " (an unsafe fix: it needs `--unsafe-fixes`)"
                                              if fixed.unsafe else ""), ""]
    else:
        lines += ["`determinism-fix` leaves this code as it is. Fixed by hand:", ""]
    lines += _code_block(fixed.source, "python") + [""]
    gone = "The linter no longer reports %s on it." % code
    others = ["[%s](%s.md)" % (other, other) for other in fixed.still_reported]
    if len(others) == 1:
        gone += " It still reports %s, a different problem with its own page." % others[0]
    elif others:
        gone += " It still reports %s and %s, different problems with their own pages." % (
            ", ".join(others[:-1]), others[-1])
    lines += [gone, ""]
    lines += ["How to fix it by hand: %s" % doc.fix, ""]

    lines += ["## What determinism-fix does", "", kind_sentence + " " + markdown(rule.fix_description), ""]

    lines += ["## Scope", "", SCOPES[rule.precheck_scope]]
    if rule.scope_note:
        lines += ["", markdown(rule.scope_note)]
    if code != "DET105":
        lines += ["", TEST_MODULES]
    lines += [""]

    lines += ["## Silencing it", ""]
    lines += [
        "- One line: end the reported line with `# noqa: %s`." % code,
        "- The whole project: `extend-ignore = %s` under `[flake8]` in `setup.cfg`, `tox.ini` or `.flake8`." % code,
        "- Some files: `per-file-ignores = scripts/*.py:%s`." % code,
        "",
        "`determinism-fix` honours all three: it never changes what flake8 would not show.",
        "",
    ]
    lines += ["---", "",
              "The report and the fixed code above are real output of the linter and of `determinism-fix`, "
              "for target torch %d.%d." % settings.torch_version, ""]
    return linked_facts("\n".join(lines))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_table() -> str:
    """The README's rule table, markers included."""
    lines = [
        TABLE_START,
        "<!-- Generated from the rule classes by `%s`: edit the classes, not this table. -->" % REGENERATE,
        "",
        "Each code has a page in `docs/rules/` (also printed by `determinism-fix --explain DETnnn`): what it "
        "reports, the facts it rests on with their sources, a real report, the fixed code, and how to "
        "silence it.",
        "",
        "| code | reports | determinism-fix |",
        "| --- | --- | --- |",
    ]
    for rule in ALL_RULES:
        # absolute: the README is also the package's long description, where relative links break (PyPI)
        lines.append("| [%s](%s) | %s | %s |" % (
            rule.code, RULE_DOCS_URL.format(code=rule.code), linked_facts(_cell(docstring(rule).summary), FACTS_URL),
            FIX_KINDS[rule.fixes][0]))
    lines += ["", TABLE_END]
    return "\n".join(lines)


def with_table(readme: str, table: Optional[str] = None) -> str:
    """``readme`` with the text between the markers (markers included) replaced by the table."""
    start, end = readme.find(TABLE_START), readme.find(TABLE_END)
    if start < 0 or end < start:
        raise DocsError("%s has no %s ... %s markers" % (README, TABLE_START, TABLE_END))
    return readme[:start] + (table if table is not None else render_table()) + readme[end + len(TABLE_END):]


# ------------------------------------------------------------------ writing


def expected_pages() -> Dict[str, str]:
    """File name -> content of every page."""
    return {"%s.md" % rule.code: render_page(rule) for rule in ALL_RULES}


def _is_page(path: Path) -> bool:
    return re.fullmatch(r"DET\d{3}\.md", path.name) is not None


def drift(root: Path, pages: Optional[Dict[str, str]] = None) -> List[str]:
    """The generated files under ``root`` that differ from what the classes give (missing, changed, orphan)."""
    pages = expected_pages() if pages is None else pages
    folder = root / PAGES
    stale = []
    for name, text in sorted(pages.items()):
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append((PAGES / name).as_posix())
    if folder.is_dir():
        stale += sorted((PAGES / p.name).as_posix() for p in folder.iterdir() if _is_page(p) and p.name not in pages)
    readme = (root / README).read_text(encoding="utf-8")
    if with_table(readme) != readme:
        stale.append(README)
    return stale


def write_all(root: Path) -> List[str]:
    """Write every page and the README table under ``root``, delete orphan pages; the paths changed."""
    pages = expected_pages()
    stale = drift(root, pages)
    folder = root / PAGES
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            _write(path, text)
    for path in folder.iterdir():
        if _is_page(path) and path.name not in pages:
            path.unlink()
    readme_path = root / README
    readme = readme_path.read_text(encoding="utf-8")
    updated = with_table(readme)
    if updated != readme:
        _write(readme_path, updated)
    return stale


def _write(path: Path, text: str) -> None:
    # ``Path.write_text(newline=)`` is Python 3.10+.
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(text)


def _default_root() -> Path:
    """The repository this module lives in (an editable install), else the working directory."""
    repo = Path(__file__).resolve().parent.parent
    return repo if (repo / README).is_file() and (repo / "flake8_determinism").is_dir() else Path.cwd()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description="Generate docs/rules/*.md and the README's "
                                     "rule table from the rule classes.")
    parser.add_argument("root", nargs="?", help="the repository root (default: the one this package is in)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything is out of date")
    args = parser.parse_args(argv)
    root = Path(args.root) if args.root else _default_root()
    try:
        if args.check:
            stale = drift(root)
            for path in stale:
                print("out of date: %s (run `%s`)" % (path, REGENERATE))
            return 1 if stale else 0
        for path in write_all(root):
            print("wrote %s" % path)
    except (DocsError, OSError) as error:
        print("%s: error: %s" % (REGENERATE, error), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
