from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from .._lazy import cst
from ..analysis.flow import builtin_name, comprehension_of, order_used
from ..analysis.scopes import lookup
from ..tables.data_order import ORDER_TAKING
from .base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

_MESSAGE = (
    "takes an order from a set; string hashes are salted per process, so the order (and any"
    " label -> index mapping built from it) changes between runs — use sorted(...)"
)
_SETS = ("set", "frozenset")
# A set (call or display) right inside an order-taking call or after ``in``,
# or a variable assigned from ``set()``/``frozenset()``.
# Pre-check shapes.  Each search is anchored on a literal (``in``, ``(``, ``=``)
# and confirmed by a short look-behind: Python's ``re`` is slow with patterns
# that start with alternatives or ``\b``.
_SET_AFTER = re.compile(r"(in|\()[\s(]*(?:\{|(?:set|frozenset)\s*\()")  # in set(..., list({...
_TAKER_BEFORE = re.compile(r"\b(?:list|tuple|enumerate|zip|iter|join)$")
_FOR_BEFORE = re.compile(r"\bfor\b[^:]*$")
_SET_ASSIGNED = re.compile(r"=[ \t]*(?:set|frozenset)[ \t]*\(")
_NAME_BEFORE = re.compile(r"(\w+)\s*(?::[^=\n]*)?:?$")
_TAKEN_NAME = re.compile(r"(?:list|tuple|enumerate|zip|iter|join)\(\s*(\w+)\s*[,)]")


def _set_in_order_taking_place(text: str) -> bool:
    """``list(set(...))``, ``"".join({...})``, ``for x in set(...)``, comprehension over a set."""
    for match in _SET_AFTER.finditer(text):
        start = match.start()
        if match.group(1) == "(":
            if _TAKER_BEFORE.search(text, max(0, start - 12), start):
                return True
        elif (start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_")) and _FOR_BEFORE.search(
            text, max(0, start - 300), start
        ):
            return True
    return False


def _set_variable_taken(text: str) -> bool:
    """``unique = set(...)`` and ``list(unique)`` somewhere."""
    holders = set()
    for match in _SET_ASSIGNED.finditer(text):
        name = _NAME_BEFORE.search(text, max(0, match.start() - 120), match.start())
        if name:
            holders.add(name.group(1))
    return bool(holders) and not holders.isdisjoint(_TAKEN_NAME.findall(text))


class OrderFromSet(Rule):
    """DET207: an order taken from a set.

    What it does: reports ``list(set(...))``, ``tuple(set(...))``,
    ``enumerate(set(...))``, ``"".join(set(...))``, ``for x in set(...)`` and
    list/dict comprehensions and generators over a set -- a ``set()`` call, a
    set display or comprehension, or a variable assigned one in the same scope.
    Not ``sorted(set(...))``, ``len``, ``in``.

    Why it matters: ``str`` hashes are randomized per process (PYTHONHASHSEED),
    so iteration order of a set of strings differs between runs; the classic
    bug is ``classes = list(set(labels))`` giving a different class index map.

    Fix: ``sorted(set(...))``.
    """

    code = "DET207"
    triggers = frozenset({"set", "frozenset"})
    invalid = ("labels = ['a', 'b']\nclasses = list(set(labels))\n", "for x in {'a', 'b'}:\n    print(x)\n")
    valid = ("labels = ['a', 'b']\nclasses = sorted(set(labels))\nn = len(set(labels))\n",)

    def might_fire(self, text, settings) -> bool:
        # ``set`` is everywhere; look for the shapes this rule reports instead.
        return _set_in_order_taking_place(text.text) or _set_variable_taken(text.text)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        sets = [site for site in ctx.index.calls if builtin_name(site.node, site) in _SETS]
        for site in sets + ctx.index.set_displays:
            if self._order_taken(ctx, site.node, site):
                yield Report(site.node, "%s %s" % (_describe(site.node), _MESSAGE))
        yield from self._set_variables(ctx)

    def _order_taken(self, ctx: FileContext, node, site: CallSite) -> bool:
        parent = ctx.index.parents.get(id(node))
        if isinstance(parent, cst.Call) and parent.func is not node:
            name = builtin_name(parent, site)
            if name in ("list", "tuple"):
                return order_used(ctx, parent, site)
            if name in ORDER_TAKING:
                return True
            return isinstance(parent.func, cst.Attribute) and parent.func.attr.value == "join"
        if isinstance(parent, cst.For):
            return parent.iter is node
        if isinstance(parent, cst.CompFor) and parent.iter is node:
            comprehension = comprehension_of(parent, ctx.index.parents)
            if isinstance(comprehension, (cst.ListComp, cst.GeneratorExp, cst.DictComp)):
                return order_used(ctx, comprehension, site)
        return False

    def _set_variables(self, ctx: FileContext) -> Iterator[Report]:
        """``labels = set(y)`` ... ``list(labels)``, ``enumerate(labels)``, ``",".join(labels)``.
        Loops over such a variable are left alone: mostly order-free work
        (membership updates, deletes)."""
        for site in ctx.index.calls:
            call = site.node
            if not call.args or not isinstance(call.args[0].value, cst.Name):
                continue
            name = builtin_name(call, site)
            joins = isinstance(call.func, cst.Attribute) and call.func.attr.value == "join"
            if (name in ORDER_TAKING or joins) and self._bound_to_set(call.args[0].value, site.scope, site.order):
                if name in ("list", "tuple") and not order_used(ctx, call, site):
                    continue
                yield Report(call, "%s(%s) %s" % (ctx.spelling(site), call.args[0].value.value, _MESSAGE))

    @staticmethod
    def _bound_to_set(name, scope, order) -> bool:
        binding = lookup(scope, name.value, order)
        if binding is None or binding.kind != "assign" or binding.scope is not scope:
            return False
        value = binding.value
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in _SETS
            and lookup(binding.scope, value.func.value, binding.order) is None
        )


def _describe(node) -> str:
    if isinstance(node, cst.Call):
        return "%s(...)" % node.func.value if isinstance(node.func, cst.Name) else "set(...)"
    return "a set comprehension" if isinstance(node, cst.SetComp) else "a set display"
