"""Is an expression a ``str`` (or ``bytes``)?  Python salts their ``hash()`` per process.

Judged from the expression alone, conservatively: literals, f-strings, ``str()``/``repr()``/
``format()``, string methods that return strings, ``+``/``%`` with a string operand, and
``sys.argv[...]``.  Anything else (a bare name, an attribute) is not known to be text.
"""

from __future__ import annotations

from .._lazy import cst
from .nodes import dotted_name

_TEXT_BUILTINS = frozenset({"str", "repr", "format", "bytes", "ascii", "chr"})
_TEXT_METHODS = frozenset({
    "join", "format", "lower", "upper", "strip", "lstrip", "rstrip", "replace", "encode", "decode",
    "casefold", "title", "capitalize", "removeprefix", "removesuffix", "zfill", "as_posix",
})


def is_text(expr) -> bool:
    if isinstance(expr, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Name):
            return func.value in _TEXT_BUILTINS
        return isinstance(func, cst.Attribute) and func.attr.value in _TEXT_METHODS
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Modulo)):
        return is_text(expr.left) or (isinstance(expr.operator, cst.Add) and is_text(expr.right))
    if isinstance(expr, cst.Subscript):
        return dotted_name(expr.value) == "sys.argv"
    if isinstance(expr, cst.Tuple):
        return any(is_text(element.value) for element in expr.elements)
    return False
