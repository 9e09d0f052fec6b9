"""Reading call arguments statically: keyword or positional, literal or not, hidden by ``**kwargs``."""

from __future__ import annotations

from typing import Optional, Tuple

from .._lazy import cst

MISSING = "missing"
UNKNOWN = "unknown"  # ``*args``/``**kwargs`` might supply it


def find_arg(call: cst.Call, keyword: Optional[str], position: Optional[int] = None):
    """The argument expression, ``MISSING`` or ``UNKNOWN``."""
    positional = 0
    hidden = False
    for arg in call.args:
        if arg.star == "**":
            hidden = True
        elif arg.star == "*":
            hidden = hidden or position is not None
        elif arg.keyword is not None:
            if keyword is not None and arg.keyword.value == keyword:
                return arg.value
        else:
            if position is not None and positional == position and not hidden:
                return arg.value
            positional += 1
    return UNKNOWN if hidden else MISSING


_NAMED_CONSTANTS = {"None": None, "True": True, "False": False}


def literal(expr) -> Tuple[bool, object]:
    """(True, value) when ``expr`` is a literal constant, else (False, None)."""
    if isinstance(expr, cst.Name) and expr.value in _NAMED_CONSTANTS:
        return True, _NAMED_CONSTANTS[expr.value]
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True, expr.evaluated_value
    if isinstance(expr, cst.SimpleString):
        try:
            return True, expr.evaluated_value
        except Exception:  # pragma: no cover - malformed escape
            return False, None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        ok, value = literal(expr.expression)
        if ok and isinstance(value, (int, float)):
            return True, -value
    return False, None


def constant(expr, scope, order: int) -> Tuple[bool, object]:
    """``literal``, also through a name assigned a literal before ``order`` (``workers = 0`` above
    the call)."""
    from .scopes import lookup

    if isinstance(expr, cst.Name):
        binding = lookup(scope, expr.value, order)
        if binding is not None and binding.kind == "assign" and binding.value is not None:
            return literal(binding.value)
    return literal(expr)


def is_none(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def absent_or_none(call: cst.Call, keyword: Optional[str], position: Optional[int] = None) -> bool:
    """True when the argument is certainly not given (or given as ``None``)."""
    value = find_arg(call, keyword, position)
    if value is MISSING:
        return True
    if value is UNKNOWN:
        return False
    return is_none(value)


def seed_arguments(call: cst.Call) -> list:
    """The arguments that can carry a seeding call's seed, in order: the first positional one
    (``random.seed(opt.manualSeed)``) and the keywords named like a seed (``set_seed(seed=s)``);
    not ``Trainer(args, model=model)``'s model."""
    first = next((arg for arg in call.args if arg.keyword is None), None)
    named = [arg for arg in call.args if arg.keyword is not None and "seed" in arg.keyword.value.lower()]
    return ([first] if first is not None else []) + named


def keyword_names(call: cst.Call):
    return {a.keyword.value for a in call.args if a.keyword is not None}
