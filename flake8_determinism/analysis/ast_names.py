"""Names read off the standard library's ``ast`` nodes (the project summaries and the pre-check,
which run before, or instead of, libcst)."""

import ast


def dotted(node: ast.expr) -> str:
    """``a.b.c`` for an ``ast`` Name/Attribute chain, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""
