"""Small helpers over libcst nodes, importable without loading libcst (it is only
touched when a helper runs)."""

from __future__ import annotations

import dataclasses
from typing import Dict, Iterator, List, Optional, Set, Tuple

from .._lazy import cst

# Fields that never contain code worth visiting.
_SKIPPED_FIELDS = frozenset(
    {
        "lpar", "rpar", "comma", "leading_lines", "lines_after_decorators", "header", "footer",
        "semicolon", "colon", "equal", "dot", "operator", "newline", "trailing_whitespace",
        "empty_lines", "indent", "asynchronous", "annotation", "returns", "attr", "star",
        "whitespace_before_colon", "keyword",
    }
)
_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _code_fields(node_type: type) -> Tuple[str, ...]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        fields = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELDS[node_type] = fields
    return fields


def code_children(node: cst.CSTNode) -> List[cst.CSTNode]:
    out: List[cst.CSTNode] = []
    for name in _code_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            out.append(value)
        elif isinstance(value, (tuple, list)):
            out.extend(v for v in value if isinstance(v, cst.CSTNode))
    return out


def callee_name(call) -> str:
    """The called name: ``f`` for ``f(...)``, ``m`` for ``obj.m(...)``, else ''."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return ""


def dotted_name(node: Optional[cst.CSTNode]) -> str:
    """``a.b.c`` for a Name/Attribute chain, else ''."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return ""


def names_in(expr) -> Set[str]:
    """The plain names an expression reads or binds (``Name`` nodes only; ``identifiers_in``
    also gives attribute names)."""
    names = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            names.add(node.value)
        elif isinstance(node, cst.CSTNode):
            stack.extend(code_children(node))
    return names


def identifiers_in(expr) -> Iterator[str]:
    """Every name an expression spells: its ``Name`` nodes and attribute names (``self.training``
    gives ``self`` and ``training``)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node.value
        elif isinstance(node, cst.Attribute):
            yield node.attr.value
        stack.extend(code_children(node))


def named_parameters(params) -> tuple:
    """A function's named parameters, in order: positional-only, ordinary, keyword-only."""
    return (*params.posonly_params, *params.params, *params.kwonly_params)


def is_docstring(statement) -> bool:
    """A statement line holding only a string (implicitly concatenated or not)."""
    return (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def self_attribute(node) -> str:
    """``x`` for ``self.x``, else ''."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return ""


def own_nodes(blocks) -> Iterator[cst.CSTNode]:
    """Every node in ``blocks``, outside the functions and classes they define."""
    stack = list(blocks)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        yield node
        stack.extend(code_children(node))


def calls_in(blocks) -> set:
    """Ids of the calls in ``blocks``, outside the functions and classes they define."""
    return {id(node) for node in own_nodes(blocks) if isinstance(node, cst.Call)}


def contains(block, node) -> bool:
    """Is ``node`` in ``block`` (the node itself or below it)?"""
    stack = [block]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(code_children(current))
    return False
