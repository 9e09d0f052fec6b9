"""Imports a fix adds, placed as isort and ruff (their default profile) would place them.

Sections in order: ``__future__``, the standard library, third-party, then the project's own
modules (relative imports, names we cannot place); in a section, ``import x`` lines come
before ``from x import y`` lines, each sorted by module name, case-insensitively.  A new import
goes into its section's run of ``import`` lines at its sorted place, or starts its section
with a blank line between sections.  The module's leading import block is read, and the import
blocks that follow it past set-up lines (``os.environ["DGLBACKEND"] = "pytorch"``): a package the
file imports only there is imported again there, after the lines it may depend on.
"""

import sys
from typing import List, Optional, Tuple

import libcst as cst

from ..analysis.nodes import dotted_name, is_docstring
from ..rules.common.block import statement_kind

FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY = range(4)
# What Python 3.9 lacks ``sys.stdlib_module_names`` for: the standard modules a fix imports or
# a training script commonly does.
_STDLIB_FALLBACK = frozenset({
    "abc", "argparse", "ast", "collections", "contextlib", "copy", "csv", "dataclasses", "datetime",
    "functools", "glob", "hashlib", "importlib", "itertools", "json", "logging", "math", "multiprocessing",
    "os", "pathlib", "pickle", "random", "re", "shutil", "signal", "socket", "string", "subprocess", "sys",
    "tempfile", "threading", "time", "typing", "uuid", "warnings",
})
STDLIB_NAMES = frozenset(getattr(sys, "stdlib_module_names", ())) or _STDLIB_FALLBACK


def section_of(module: str) -> int:
    root = module.split(".")[0]
    if root == "__future__":
        return FUTURE
    if root in STDLIB_NAMES:
        return STDLIB
    return THIRD_PARTY if root else FIRST_PARTY


def add_imports(tree: cst.Module, wanted: List[Tuple[str, Optional[str]]]) -> cst.Module:
    """``tree`` with ``import module [as alias]`` for each of ``wanted`` that it lacks."""
    body = list(tree.body)
    for module, alias in wanted:
        if _has(body, module, alias):
            continue
        statement = cst.parse_statement("import %s%s\n" % (module, " as %s" % alias if alias else ""),
                                        config=tree.config_for_parsing)
        body = _insert(body, statement, module)
    return tree.with_changes(body=body)


def _has(body, module: str, alias: Optional[str]) -> bool:
    start, end = _import_block(body)
    for statement in body[start:end]:
        for small in statement.body:
            if isinstance(small, cst.Import):
                for name in small.names:
                    local = name.asname.name.value if name.asname is not None else None
                    if dotted_name(name.name) == module and local == alias:
                        return True
    return False


def _import_block(body) -> Tuple[int, int]:
    """(first, end) indices of the module's leading import lines, after its docstring."""
    start = end = 1 if body and is_docstring(body[0]) else 0
    while end < len(body) and _is_import(body[end]):
        end += 1
    return start, end


def _later_blocks(body, end: int) -> List[Tuple[int, int]]:
    """Import blocks that follow the leading one past set-up lines (``os.environ["DGLBACKEND"] =
    "pytorch"``, ``sys.path.insert(...)``): what they import may depend on those lines."""
    blocks = []
    index = end
    while True:
        # Only past configuration (``block.insertion_point`` reads it the same way): the seeding
        # block goes after such imports, so the names they bind exist when it runs.
        while index < len(body) and not _is_import(body[index]) and statement_kind(body[index]) == "config":
            index += 1
        first = index
        while index < len(body) and _is_import(body[index]):
            index += 1
        if index == first:
            return blocks
        blocks.append((first, index))


def _insert(body, statement, module: str):
    start, end = _import_block(body)
    groups = _groups(body, start, end)
    later = [group for first, last in _later_blocks(body, end) for group in _groups(body, first, last)]
    section, key = section_of(module), module.lower()
    root = module.split(".")[0]
    # The file already imports this package (``torch_geometric`` as first-party; ``dgl`` only after
    # ``os.environ["DGLBACKEND"] = ...``, which must come first): next to it.
    for first, last in groups + later:
        if any(_root_of(body[i]) == root for i in range(first, last)):
            for index in range(first, last):
                _, other_key, straight = _sort_key(body[index])
                if not straight or other_key > key:
                    return _place(body, index, statement, False)
            return _after(body, last, statement)
    for first, last in groups:  # the group of the new import's section: its sorted place there
        if any(_sort_key(body[i])[0] == section for i in range(first, last)):
            for index in range(first, last):
                other_section, other_key, straight = _sort_key(body[index])
                if other_section == section and (not straight or other_key > key):
                    return _place(body, index, statement, False)
            return _after(body, last, statement)  # the last of its group
    for first, _ in groups:  # a section of its own, before the first group of a later section
        if _sort_key(body[first])[0] > section:
            return _place(body, first, statement, True)
    if groups:
        statement = statement.with_changes(leading_lines=[cst.EmptyLine()])
    return _after(body, end, statement)


def _groups(body, start: int, end: int) -> List[Tuple[int, int]]:
    """The runs of import lines between blank lines (or comments), as (first, end) indices."""
    groups: List[Tuple[int, int]] = []
    for index in range(start, end):
        if index == start or body[index].leading_lines:
            groups.append((index, index + 1))
        else:
            groups[-1] = (groups[-1][0], index + 1)
    return groups


def _place(body, index: int, statement, new_group: bool):
    """``statement`` before ``body[index]``: it takes over that line's blank lines and comments
    (it now opens the group); a new section leaves a blank line before the next one."""
    body = list(body)
    following = body[index]
    statement = statement.with_changes(leading_lines=following.leading_lines)
    following = following.with_changes(leading_lines=[cst.EmptyLine()] if new_group else [])
    body[index:index + 1] = [statement, following]
    return body


def _after(body, index: int, statement):
    body = list(body)
    body[index:index] = [statement]
    return body


def _sort_key(statement) -> Tuple[int, str, bool]:
    small = statement.body[0]
    if isinstance(small, cst.Import):
        name = dotted_name(small.names[0].name)
        return section_of(name), name.lower(), True
    if small.relative:
        return FIRST_PARTY, "", False
    name = dotted_name(small.module) if small.module is not None else ""
    return section_of(name), name.lower(), False


def _root_of(statement) -> str:
    small = statement.body[0]
    if isinstance(small, cst.Import):
        return dotted_name(small.names[0].name).split(".")[0]
    if small.relative or small.module is None:
        return ""
    return dotted_name(small.module).split(".")[0]


def _is_import(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(
        statement.body[0], (cst.Import, cst.ImportFrom))
