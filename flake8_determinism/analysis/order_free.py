"""What takes no order from a listing or a set (DET206, DET207).

Calls whose result does not depend on the order of their arguments (``len``, ``set``, a
log line, a set method, a build step: ``order_free_call``), an equality with at most one
entry, a dict comprehension keyed by the element, a sort, a ``len`` check that admits one
entry; and the small questions ``analysis/flow.py`` and ``analysis/loop_body.py`` ask of an
expression (the names it reads, whether it counts positions, which set a variable holds).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Optional, Set

from .._lazy import cst
from ..tables.data_order import (
    BUILD_PREFIXES, LOG_FUNCTIONS, LOG_METHODS, LOGGER_NAMES, ORDER_FREE, POOL_MAPS, SET_METHODS, SORTER_SPELLINGS,
    SORTING_CONSUMERS, UNORDERED_POOL_MAPS,
)
from .nodes import code_children, dotted_name, names_in, self_attribute
from .scopes import lookup

if TYPE_CHECKING:  # only for annotations: importing it would load libcst
    from .index import CallSite


# List methods that add entries in the order they are called.
FILLING = ("append", "extend", "insert")


def builtin_name(call: cst.Call, site: CallSite) -> Optional[str]:
    """``sorted`` for ``sorted(...)`` when the name is the builtin (not rebound here)."""
    func = call.func
    if isinstance(func, cst.Name) and lookup(site.scope, func.value, site.order) is None:
        return func.value
    return None


@lru_cache(maxsize=None)
def carriers() -> tuple:
    """Expressions whose value holds their operand's order as it is (built on first use:
    this module is imported before libcst is)."""
    return (
        cst.BooleanOperation, cst.Element, cst.StarredElement, cst.List, cst.Tuple, cst.FormattedStringExpression,
        cst.FormattedString,
    )


def equals_at_most_one(target, other) -> bool:
    """``files == []``, ``files != ["log.txt"]``: equal to at most one entry, whatever the order."""
    return (
        isinstance(target.operator, (cst.Equal, cst.NotEqual))
        and isinstance(other, (cst.List, cst.Tuple))
        and len(other.elements) <= 1
    )


def formats(operation, operand) -> bool:
    """``"..." % value``: string formatting."""
    return (
        isinstance(operation.operator, cst.Modulo)
        and operation.right is operand
        and isinstance(operation.left, (cst.SimpleString, cst.ConcatenatedString))
    )


def concatenates(operation) -> bool:
    return isinstance(operation.operator, cst.Add)


def joins(call: cst.Call) -> bool:
    """``", ".join(files)``: a string carrying the order on."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "join"


def mapped_for_effect(call: cst.Call, operand, parents) -> bool:
    """``pool.map(convert, files)`` as a statement (its results thrown away), or
    ``pool.imap_unordered(...)`` (results in completion order): each entry is processed on
    its own, in whatever order -- the listing's order reaches nothing."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in POOL_MAPS):
        return False
    if len(call.args) < 2 or call.args[1].value is not operand:
        return False
    return func.attr.value in UNORDERED_POOL_MAPS or isinstance(parents.get(id(call)), cst.Expr)


def order_free_call(ctx, call: cst.Call, site: CallSite) -> bool:
    """A call whose result does not depend on the order of its arguments: ``len``,
    ``set``, a log line, a set method, a build step (``cpp_extension.load(sources=...)``)."""
    name = builtin_name(call, site)
    if name in ORDER_FREE:
        return True
    if is_log_call(call, site) or set_method_call(call, site):
        return True
    callee = ctx.resolver.resolve(call.func, site.scope, site.order) or ""
    return callee.startswith(BUILD_PREFIXES) or callee in SORTING_CONSUMERS


def is_log_call(call: cst.Call, site: CallSite) -> bool:
    """``print(...)``, ``logging.info(...)``, ``logger.warning(...)``, ``warnings.warn(...)``."""
    func = call.func
    if builtin_name(call, site) == "print":
        return True
    spelled = dotted_name(func)
    if spelled in LOG_FUNCTIONS:
        return True
    if isinstance(func, cst.Attribute) and func.attr.value in LOG_METHODS:
        receiver = dotted_name(func.value).rsplit(".", 1)[-1].lower()
        return receiver == "logging" or receiver.endswith(LOGGER_NAMES)
    return False


def set_method_call(call: cst.Call, site: CallSite) -> bool:
    """``seen.update(files)``, ``set(a).difference(files)``, ``seen.add(f)``: a set method
    on a set built here (a list has no ``add``)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in SET_METHODS):
        return False
    receiver = func.value
    if func.attr.value == "add" or isinstance(receiver, (cst.Set, cst.SetComp)):
        return True
    if isinstance(receiver, cst.Call):
        return builtin_name(receiver, site) in ("set", "frozenset")
    return isinstance(receiver, cst.Name) and is_set_variable(receiver, site.scope, site.order)


def is_set_variable(name: cst.Name, scope, order: int) -> bool:
    return set_held_by(name, scope, order) is not None


def set_held_by(name: cst.Name, scope, order: int):
    """The set a variable of this scope was assigned: a display, a set comprehension, or a
    call of the builtin ``set``/``frozenset``; else None."""
    binding = lookup(scope, name.value, order)
    home = scope
    while home is not None and home.kind == "comprehension":
        home = home.parent  # ``enumerate(classes)`` inside a comprehension reads the function's variable
    if binding is None or binding.kind != "assign" or binding.scope not in (scope, home):
        return None
    value = binding.value
    if isinstance(value, (cst.Set, cst.SetComp)):
        return value
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in ("set", "frozenset")
        and lookup(binding.scope, value.func.value, binding.order) is None
    ):
        return value
    if _set_algebra(value):
        return value
    return None


def _set_algebra(value) -> bool:
    """``a.keys() & b.keys()``: dict views combined into a set (a dict's keys are mostly names).
    Not ``set(x) | set(y)``: held as a variable it is read like any set variable only when made
    by ``set()`` itself (its elements, often numbers, are not seen)."""
    if not (isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, (cst.BitAnd, cst.BitOr, cst.BitXor, cst.Subtract))):
        return False
    return any(
        _set_algebra(side) or (isinstance(side, cst.Call) and dotted_name(side.func).rsplit(".", 1)[-1] == "keys")
        for side in (value.left, value.right)
    )


def keyed_by_element(comprehension, comp_for: cst.CompFor) -> bool:
    """``{f: load(f) for f in files}``: a dict keyed by the element, not by its position."""
    if not isinstance(comprehension, cst.DictComp) or comp_for.inner_for_in is not None:
        return False
    targets = names_in(comp_for.target)
    return bool(targets & names_in(comprehension.key)) and not uses_position(comprehension.value, None)


def in_log_line(node, parents, site: CallSite) -> bool:
    """``node`` is part of the arguments of a log call (``print``, ``logger.warning``, ...)."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, (cst.BaseStatement, cst.BaseSmallStatement)):
        if isinstance(current, cst.Call) and is_log_call(current, site):
            return True
        current = parents.get(id(current))
    return False


def guards_single_entry(node, name: str) -> bool:
    """``assert len(name) == 1``, ``if len(name) > 1: raise ...``: the program stops unless one entry."""
    if isinstance(node, cst.Assert):
        return len_compared(node.test, name, AT_MOST_ONE)
    if isinstance(node, cst.If) and len_compared(node.test, name, MORE_THAN_ONE):
        statements = node.body.body
        last = statements[-1] if statements else None
        return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)
    return False


def guarded_to_one_entry(body, use, subject) -> bool:
    """Before ``use`` in this scope, the program stops unless ``subject`` (a name or an
    expression) holds one entry: ``assert len(s) == 1``, ``if len(set(xs)) != 1: raise``."""
    position = body.position.get(id(use))
    if position is None:
        return False
    return any(guards_single_entry(node, subject) for node in body.nodes[:position]
               if isinstance(node, (cst.Assert, cst.If)))


# ``len(x) <op> <number>`` tests true exactly when x holds at most one entry / more than one.
# (Operators by class name: libcst is imported only when a file is analysed.)
AT_MOST_ONE = {"Equal": (0, 1), "LessThanEqual": (0, 1), "LessThan": (1, 2)}
MORE_THAN_ONE = {"NotEqual": (1,), "GreaterThan": (1,), "GreaterThanEqual": (2,)}


def len_compared(test, name, operators) -> bool:
    """``len(name) <op> <number>``; ``name`` a variable's name or an expression (``set(xs)``)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    left, target = test.left, test.comparisons[0]
    if not (isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "len"
            and len(left.args) == 1):
        return False
    measured = left.args[0].value
    if not (isinstance(measured, cst.Name) and measured.value == name if isinstance(name, str)
            else measured.deep_equals(name)):
        return False
    numbers = operators.get(type(target.operator).__name__, ())
    return isinstance(target.comparator, cst.Integer) and int(target.comparator.value) in numbers


def sorts_name(call: cst.Call, name: str) -> bool:
    """``name.sort(...)``, ``sorted(name ...)``, ``sorted(set(name))``."""
    return name in _sorted_names(call)


def _sorted_names(call: cst.Call) -> Set[str]:
    """The variables a call sorts: ``name.sort(...)``, or the names in ``sorted()``'s first argument."""
    func = call.func
    if _is_sorter(func):
        return names_in(call.args[0].value) if call.args else set()
    if isinstance(func, cst.Attribute) and func.attr.value == "sort" and isinstance(func.value, cst.Name):
        return {func.value.value}
    return set()


def _is_sorter(func) -> bool:
    return dotted_name(func) in SORTER_SPELLINGS


def sorts_attribute(call: cst.Call, attribute: str) -> bool:
    func = call.func
    if _is_sorter(func):
        return bool(call.args) and self_attribute(call.args[0].value) == attribute
    if isinstance(func, cst.Attribute) and func.attr.value == "sort":
        return self_attribute(func.value) == attribute
    return False


def orders(test) -> bool:
    """The test compares with ``<``/``>`` (possibly inside ``and``/``or``)."""
    if isinstance(test, cst.BooleanOperation):
        return orders(test.left) or orders(test.right)
    ordering = (cst.GreaterThan, cst.LessThan, cst.GreaterThanEqual, cst.LessThanEqual)
    return isinstance(test, cst.Comparison) and any(isinstance(c.operator, ordering) for c in test.comparisons)


def uses_position(expr, container: Optional[str]) -> bool:
    """``len(index)`` of the container being filled, ``next(counter)``: how many came before."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            if node.func.value == "next":
                return True
            if node.func.value == "len" and container and node.args and dotted_name(node.args[0].value) == container:
                return True
        if isinstance(node, cst.CSTNode):
            stack.extend(code_children(node))
    return False
