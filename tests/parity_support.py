"""A lint fixture's code moved into an imported helper module, its entry kept (issue 33's parity).

``moved(source)`` keeps the imports, definitions and docstring at module level and moves every
other module-level statement, and the ``__main__`` block's body, in order into
``moved_entry_code()`` (names they bind stay module globals: ``global``).  The entry is
``import helper`` and a ``__main__`` block calling it.  The run is the same program: the
contract judges runs, so both versions must report the same codes (positions aside).
"""

import ast
import collections
import textwrap
from pathlib import Path
from typing import Counter, Optional

from flake8_determinism.checker import check_source

_KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
ENTRY = 'import helper\n\nif __name__ == "__main__":\n    helper.moved_entry_code()\n'


def _optional_import(node: ast.stmt) -> bool:
    """``try: import numpy as np`` / ``except ImportError: np = None``: an import, kept at module
    level like the others (moved into the function it would bind its name there only)."""
    return isinstance(node, ast.Try) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in node.body)


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or node.orelse:
        return False
    test = ast.unparse(node.test)
    return "__name__" in test and "__main__" in test


def _bound(nodes) -> set:
    return {t.id for node in nodes for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}


def moved(source: str) -> Optional[str]:
    """The helper module's text; None when the fixture has no code to move."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    kept, body, names = [], [], set()
    for number, node in enumerate(tree.body):
        decorators = getattr(node, "decorator_list", None)
        start = (decorators[0].lineno if decorators else node.lineno) - 1
        text = "".join(lines[start:node.end_lineno])
        docstring = number == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if docstring or isinstance(node, _KEPT) or _optional_import(node):
            kept.append(text)
        elif _is_main_guard(node):
            body.append(textwrap.dedent("".join(lines[node.body[0].lineno - 1:node.body[-1].end_lineno])))
            names |= _bound(node.body)
        else:
            body.append(textwrap.dedent(text))
            names |= _bound([node])
    if not body:
        return None
    function = "\n\ndef moved_entry_code():\n"
    if names:
        function += "    global %s\n" % ", ".join(sorted(names))
    function += textwrap.indent("".join(b if b.endswith("\n") else b + "\n" for b in body), "    ")
    return "".join(k if k.endswith("\n") else k + "\n" for k in kept) + function


def is_run(source: str, settings, name: str) -> bool:
    """Is the fixture an entry module under ``settings`` (docs/contract.md "Entry module
    (tightened)")?  A module that is not has no run: its module-level code is a library's
    import-time code, and moved into a function it becomes another library, not the same run."""
    import libcst

    from flake8_determinism.analysis.context import FileContext
    from flake8_determinism.checker import KNOWN_NAMES

    try:
        module = libcst.parse_module(source)
    except libcst.ParserSyntaxError:
        return False
    return FileContext(module, settings, KNOWN_NAMES, name, None).facts.is_entry


def codes(source: str, settings, folder: Path, name: str) -> Counter:
    found = check_source(source, settings._replace(project_root=str(folder), cache=False), filename=name,
                         path=str(folder / name))
    return collections.Counter(f.code for f in found)


def judged_both_ways(source: str, settings, tmp: Path):
    """(codes of the fixture as an entry script, codes of the moved project: entry and helper)."""
    alone, project = tmp / "alone", tmp / "moved"
    tmp.mkdir(parents=True, exist_ok=True)
    for folder in (alone, project):
        folder.mkdir()
        (folder / "setup.cfg").write_text("")
    (alone / "script.py").write_text(source)
    helper = moved(source)
    (project / "helper.py").write_text(helper)
    (project / "train.py").write_text(ENTRY)
    before = codes(source, settings, alone, "script.py")
    after = codes(ENTRY, settings, project, "train.py") + codes(helper, settings, project, "helper.py")
    return before, after


def entries(project: Path):
    """The project's modules whose code a run starts in: a ``__main__`` block, or module-level work."""
    found = []
    for path in sorted(project.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        if any(_is_main_guard(node) for node in tree.body) or any(
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) for node in tree.body):
            found.append(path)
    return found


def project_codes(folder: Path, settings) -> Counter:
    found: Counter = collections.Counter()
    for path in sorted(folder.rglob("*.py")):
        if ".determinism_cache" in path.parts:
            continue
        source = path.read_text(encoding="utf-8")
        found += collections.Counter(f.code for f in check_source(
            source, settings._replace(project_root=str(folder), cache=False),
            filename=path.relative_to(folder).as_posix(), path=str(path)))
    return found


def project_moved(project: Path, entry: Path, settings, tmp: Path):
    """(the project's codes, the codes with ``entry``'s code moved into a module beside it)."""
    import shutil

    copy = tmp / "moved"
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns(".determinism_cache"))
    moved_entry = copy / entry.relative_to(project)
    helper_name = "moved_" + entry.stem
    helper = moved(entry.read_text(encoding="utf-8"))
    (moved_entry.parent / (helper_name + ".py")).write_text(helper)
    moved_entry.write_text(ENTRY.replace("helper", helper_name))
    return project_codes(project, settings), project_codes(copy, settings)
