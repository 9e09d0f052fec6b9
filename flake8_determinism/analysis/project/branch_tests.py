"""What a branch's test says about a function's parameters (``if seed is not None:``,
``if strategy == "random":``, ``if perturb:``), for the summaries (``summary.py``): which calls
run only when a caller passes a parameter, or passes it some values."""

import ast
from typing import Optional

from .. import calls as C
from .ast_values import is_none


def value_test(test) -> Optional[tuple]:
    """``strategy == "random"``, ``"random" == strategy``, ``mode in ("a", "b")``, ``!=``/``not in``:
    (parameter, values, True when the body runs for those values).  ``if perturb:``,
    ``if perturb > 0:`` and ``if not perturb:`` test the value ``calls.FALSE_LITERAL``."""
    if isinstance(test, ast.Name):
        return test.id, (C.FALSE_LITERAL,), False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id, (C.FALSE_LITERAL,), True
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Gt)
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == 0):
        return test.left.id, (C.FALSE_LITERAL,), False
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq)):
        if isinstance(right, ast.Name):
            left, right = right, left
        if isinstance(left, ast.Name) and isinstance(right, ast.Constant) and isinstance(right.value, str):
            return left.id, (right.value,), isinstance(op, ast.Eq)
        return None
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(left, ast.Name) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        values = tuple(e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
        if values and len(values) == len(right.elts):
            return left.id, values, isinstance(op, ast.In)
    return None


def guarding_name(test) -> Optional[str]:
    """``if seed is not None:``, ``if seed:``, ``if seed != None:``, ``if seed and ...:`` -> ``seed``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        test = test.values[0]  # the body runs only when the first operand holds
    if isinstance(test, ast.Name):
        return test.id
    if (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.IsNot, ast.NotEq))
        and isinstance(test.left, ast.Name) and is_none(test.comparators[0])
    ):
        return test.left.id
    return None
