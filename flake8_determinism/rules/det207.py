from __future__ import annotations

from typing import TYPE_CHECKING, FrozenSet, Iterator, Optional

from .._lazy import cst
from ..analysis.nodes import dotted_name, named_parameters
from ..analysis.flow import comprehension_of, loop_order_used, order_used
from ..analysis.hash_order import set_in_order_taking_place, set_of_dict_keys, set_variable_taken
from ..analysis.body import enclosing_ifs, scope_body
from ..analysis.order_free import AT_MOST_ONE, MORE_THAN_ONE, builtin_name, guarded_to_one_entry, len_compared
from ..analysis.order_free import set_held_by
from ..analysis.scopes import lookup
from ..tables.data_order import ORDER_TAKING
from .common import edits
from .common.base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

_MESSAGE = (
    "takes an order from a set; string hashes are salted per process and objects hash by address, so the"
    " order (and any label -> index mapping built from it) changes between runs — use sorted(...)"
)
_SETS = ("set", "frozenset")


class OrderFromSet(Rule):
    """DET207: an order taken from a set whose order can differ between processes.

    What it does: reports ``list(set(...))``, ``tuple(set(...))``,
    ``enumerate(set(...))``, ``"".join(set(...))``, ``for x in set(...)`` and
    list/dict comprehensions and generators over a set -- a ``set()`` call, a
    set display or comprehension, or a variable assigned one in the same scope
    -- when the order reaches a result (followed through local variables as for
    DET206: not ``sorted``, ``len``, ``in``, a log line, a loop or dict keyed by
    the element).  Not for sets of numbers (``{int(k) for k in ...}``,
    ``set(range(n))``, tuples of ints, a column of an array ``set(a[:, 0])``):
    their hashes, and so their order, are the same in every process.

    Why it matters: ``str`` and ``bytes`` hashes are randomized per process
    (PYTHONHASHSEED) and objects hash by address, so iteration order of such a
    set differs between runs; the classic bug is ``classes = list(set(labels))``
    giving a different class index map.

    Fix: ``sorted(set(...))``.
    """

    code = "DET207"
    fixes = "sometimes"
    triggers = frozenset({"set", "frozenset"})
    cross_module = True  # an entry module taking an order from a set a project function returns
    invalid = (
        "labels = ['a', 'b']\nclasses = list(set(labels))\nclass_to_idx = {c: i for i, c in enumerate(classes)}\n",
        "for x in {'a', 'b'}:\n    model.fit(x)\n",
    )
    valid = (
        "labels = ['a', 'b']\nclasses = sorted(set(labels))\nn = len(set(labels))\n",
        "ids = list({int(k) for k in ['1', '2']})\n",
        "for x in {'a', 'b'}:\n    print(x)\n",
    )
    sources = (
        (
            "``str`` and ``bytes`` hashes are salted with an unpredictable random value: constant "
            "within one process, not predictable between invocations.",
            "https://docs.python.org/3/reference/datamodel.html#object.__hash__",
        ),
        (
            "Unless ``PYTHONHASHSEED`` is set, a random value seeds the hashes of ``str`` and "
            "``bytes``.",
            "https://docs.python.org/3/using/cmdline.html#envvar-PYTHONHASHSEED",
        ),
        (
            "``list({'cat', 'dog', 'bird', 'fish'})`` came out in three different orders for "
            "``PYTHONHASHSEED=1, 2, 3``; small ints hash to themselves, so their sets iterate in a "
            "stable order.",
            "observed (facts §3)",
        ),
    )
    fix_description = (
        "Wraps the set in ``sorted(...)``: safe over string literals; otherwise unsafe, because ``sorted`` "
        "raises on elements that do not compare."
    )

    def might_fire(self, text, settings) -> bool:
        # ``set`` is everywhere; look for the shapes this rule reports instead.
        return set_in_order_taking_place(text.text) or set_variable_taken(text.text) or set_of_dict_keys(text.text)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        sets = [site for site in ctx.index.calls if builtin_name(site.node, site) in _SETS]
        for site in sets + ctx.index.set_displays:
            if hash_stable(site.node, site) or _one_entry(ctx, site, site.node):
                continue
            if self._order_taken(ctx, site.node, site):
                yield Report(site.node, "%s %s" % (_describe(site.node), _MESSAGE), fix=_sorted_fix(ctx, site.node))
        yield from self._set_variables(ctx)
        yield from self._loops_over_set_variables(ctx)
        yield from self._project_sets(ctx)

    def _project_sets(self, ctx: FileContext) -> Iterator[Report]:
        """``for i, name in enumerate(utils.class_names())`` where the project function returns a set."""
        project = ctx.project if ctx.index.imports and ctx.facts.is_entry else None
        if project is None:
            return  # a cost choice, as for the runs: entry modules ask the project
        for site, qualname in ctx.project_calls():
            where = project.returned_set(qualname)
            if where and self._order_taken(ctx, site.node, site):
                yield Report(
                    site.node, "%s() returns a set (%s): %s" % (ctx.spelling(site), where, _MESSAGE),
                    fix=edits.sorted_fix(ctx, site.node, "wrap in sorted(...)", safe=False),
                )

    def _order_taken(self, ctx: FileContext, node, site: CallSite) -> bool:
        parent = ctx.index.parents.get(id(node))
        if isinstance(parent, cst.Call) and parent.func is not node:
            name = builtin_name(parent, site)
            if name in ("list", "tuple"):
                return order_used(ctx, parent, site)
            if name in _ORDER_CARRYING or _joins(parent):
                return order_used(ctx, parent, site)  # ``", ".join(set(...))`` in a log line: not a result
            return name in ORDER_TAKING  # ``enumerate``, ``zip``: positions taken from the set
        if isinstance(parent, cst.For):
            return parent.iter is node and loop_order_used(ctx, parent, site)
        if isinstance(parent, cst.CompFor) and parent.iter is node:
            comprehension = comprehension_of(parent, ctx.index.parents)
            if isinstance(comprehension, (cst.ListComp, cst.GeneratorExp, cst.DictComp)):
                return order_used(ctx, node, site)
        return False

    def _set_variables(self, ctx: FileContext) -> Iterator[Report]:
        """``labels = set(y)`` ... ``list(labels)``, ``enumerate(labels)``, ``",".join(labels)``."""
        for site in ctx.index.calls:
            call = site.node
            if not call.args or not isinstance(call.args[0].value, cst.Name):
                continue
            name = builtin_name(call, site)
            carries = name in _ORDER_CARRYING or _joins(call)
            if not (name in ORDER_TAKING or carries):
                continue
            held = set_held_by(call.args[0].value, site.scope, site.order)
            if not isinstance(held, (cst.Call, cst.BinaryOperation)) \
                    or _holds_numbers(ctx, held, call.args[0].value.value, site):
                continue  # a variable holding set(...)/frozenset(...) of unknown elements
            if carries and not order_used(ctx, call, site):
                continue
            if _one_entry(ctx, site, call.args[0].value.value):
                continue
            yield Report(call, "%s(%s) %s" % (ctx.spelling(site), call.args[0].value.value, _MESSAGE),
                         fix=_sorted_fix(ctx, call.args[0].value, held, call))

    def _loops_over_set_variables(self, ctx: FileContext) -> Iterator[Report]:
        """``tags = set()`` ... ``for tag in tags: vocab.add_item(tag)``: a loop whose work
        keeps the iteration order (membership updates, deletes, per-entry work do not)."""
        from ..analysis.index import CallSite

        for loop, scope, fn, order in ctx.index.loops:
            if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Name):
                continue
            site = CallSite(loop.iter, scope, fn, order)
            held = set_held_by(loop.iter, scope, order)
            if held is None or _holds_numbers(ctx, held, loop.iter.value, site):
                continue
            if not loop_order_used(ctx, loop, site):
                continue
            yield Report(loop.iter, "for ... in %s %s" % (loop.iter.value, _MESSAGE),
                         fix=_sorted_fix(ctx, loop.iter, held))


def _one_entry(ctx: FileContext, site: CallSite, subject) -> bool:
    """The program stops before here unless the set holds one entry (``assert len(s) == 1``),
    or this is the branch where it holds at most one (``if len(s) > 1: ... else: next(iter(s))``):
    one order only."""
    if guarded_to_one_entry(scope_body(ctx, site), site.node, subject):
        return True
    for statement, in_else in enclosing_ifs(ctx, site, site.node):
        if len_compared(statement.test, subject, MORE_THAN_ONE if in_else else AT_MOST_ONE):
            return True
    return False


# Calls that hand the set's order on unchanged: where it goes decides.
_ORDER_CARRYING = frozenset({"list", "tuple", "iter"})


def _sorted_fix(ctx: FileContext, node, held=None, call=None) -> Optional[edits.Fix]:
    """``sorted(...)`` around the set (``list(s)`` becomes ``sorted(s)``): safe when its elements
    are known strings; otherwise unsafe (``sorted`` raises on elements that do not compare,
    such as ``None`` among strings)."""
    return edits.sorted_fix(ctx, node, "wrap in sorted(...)", safe=_string_elements(held or node), call=call)


def _string_elements(node) -> bool:
    if isinstance(node, cst.Call) and len(node.args) == 1:
        node = node.args[0].value
    if isinstance(node, (cst.Set, cst.List, cst.Tuple)):
        return bool(node.elements) and all(isinstance(e.value, (cst.SimpleString, cst.ConcatenatedString))
                                           for e in node.elements)
    return False


def _joins(call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "join"


def hash_stable(node, site: CallSite) -> bool:
    """A set of numbers (or tuples of them): hashed by value, the same order in every process."""
    if isinstance(node, cst.Set):
        return len(node.elements) <= 1 or all(_numeric(e.value, site) for e in node.elements)
    if isinstance(node, cst.SetComp):
        return _numeric(node.elt, site)
    if isinstance(node, cst.Call):
        if not node.args:
            return False  # an empty set, filled later: its elements are not known here
        source = node.args[0].value
        if _array_values(source):
            return True
        if isinstance(source, cst.Call):
            name = builtin_name(source, site)
            if name == "range":
                return True
            if dotted_name(source.func).rsplit(".", 1)[-1] == "unique" and dotted_name(source.func) != "unique":
                return True  # ``set(np.unique(labels))``: the values of a numeric array
            if name == "map" and source.args and isinstance(source.args[0].value, cst.Name):
                return source.args[0].value.value in _NUMERIC_CALLS
        if isinstance(source, (cst.List, cst.Tuple, cst.Set)):
            return len(source.elements) <= 1 or all(_numeric(e.value, site) for e in source.elements)
        if isinstance(source, cst.Subscript) and len(source.slice) > 1:
            return True  # ``set(boxes[:, 0])``: a column of a numeric array
        if isinstance(source, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return _numeric(source.elt, site)
    return False


def _holds_numbers(ctx: FileContext, held, name: str, site: CallSite) -> bool:
    """The set variable ``name`` holds numbers: its set is (``hash_stable``), or it starts empty
    and only ``name.add(val)`` with ``val = int(...)`` fills it."""
    if hash_stable(held, site):
        return True
    if not (isinstance(held, cst.Call) and not held.args):
        return False
    added = 0
    for other in ctx.index.calls:
        func = other.node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name):
            continue
        if func.attr.value not in ("add", "update", "discard", "remove") or other.fn is not site.fn:
            continue
        if func.attr.value in ("discard", "remove"):
            continue  # takes nothing in
        if func.attr.value == "update" or len(other.node.args) != 1:
            return False  # elements of an iterable we do not follow
        value = other.node.args[0].value
        if isinstance(value, cst.Name):
            binding = lookup(other.scope, value.value, other.order)
            if binding is not None and binding.kind == "assign" and binding.value is None \
                    and _loop_counter(ctx, binding):
                added += 1
                continue
            value = binding.value if binding is not None and binding.kind == "assign" else None
        if value is None or not _numeric(value, other):
            return False
        added += 1
    return added > 0


def _loop_counter(ctx: FileContext, binding) -> bool:
    """A name a ``for`` binds to a position: ``for i in range(n)``, ``for i, x in enumerate(xs)``."""
    for loop, _, _, order in ctx.index.loops:
        if order != binding.order or not isinstance(loop, (cst.For, cst.CompFor)):
            continue
        source = loop.iter
        if not isinstance(source, cst.Call) or not isinstance(source.func, cst.Name):
            return False
        target = loop.target
        if source.func.value == "range":
            return isinstance(target, cst.Name) and target is binding.node
        if source.func.value == "enumerate" and isinstance(target, (cst.Tuple, cst.List)) and target.elements:
            return target.elements[0].value is binding.node
        return False
    return False


def _number_sequence(expr, site: CallSite, depth: int = 0) -> bool:
    """A sequence of numbers: ``range(n)``, ``list(range(n))``, a slice or sort of one, or a
    name assigned one (``rows = list(range(n))`` ... ``rows[:k]``)."""
    if depth > 6:
        return False
    if isinstance(expr, cst.Call) and expr.args:
        name = builtin_name(expr, site)
        if name == "range":
            return True
        if name in ("list", "tuple", "sorted", "reversed"):
            return _number_sequence(expr.args[0].value, site, depth + 1)
        return False
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice):
        return _number_sequence(expr.value, site, depth + 1)
    if isinstance(expr, cst.Name):
        binding = lookup(site.scope, expr.value, site.order)
        return binding is not None and binding.kind == "assign" and binding.value is not None \
            and _number_sequence(binding.value, site, depth + 1)
    return False


def _array_values(expr) -> bool:
    """``ids.tolist()`` (the numbers of a tensor or array), also concatenated to a list:
    ``set(region + neighbours.tolist())`` -- a list joined to numbers holds numbers."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _array_values(expr.left) or _array_values(expr.right)
    return (
        isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "tolist"
    )


_NUMERIC_CALLS = frozenset({"int", "float", "len", "ord", "round", "abs", "hash", "bool", "complex"})


def _numeric(expr, site: CallSite, known: FrozenSet[str] = frozenset()) -> bool:
    """A number (or a tuple of numbers); ``known`` names are numbers by the code around."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None") or expr.value in known or _number_parameter(expr.value, site)
    if isinstance(expr, cst.UnaryOperation):
        return _numeric(expr.expression, site, known)
    if isinstance(expr, cst.BinaryOperation):
        return _numeric(expr.left, site, known) and _numeric(expr.right, site, known)
    if isinstance(expr, cst.IfExp):
        # ``rank + axis if axis < 0 else axis``: ordered against a number, ``axis`` is one
        known = known | _ordered_against_numbers(expr.test, site)
        return _numeric(expr.body, site, known) and _numeric(expr.orelse, site, known)
    if isinstance(expr, cst.Tuple):
        return all(_numeric(e.value, site, known) for e in expr.elements)
    if isinstance(expr, cst.Call):
        name = builtin_name(expr, site)
        if name == "map" and expr.args and isinstance(expr.args[0].value, cst.Name):
            return expr.args[0].value.value in _NUMERIC_CALLS  # ``pid, cam = map(int, groups)``: each one a number
        if name in ("tuple", "frozenset") and expr.args:
            return _number_sequence(expr.args[0].value, site)  # ``tuple(sorted(rows[:k]))``
        return name in _NUMERIC_CALLS
    return False


def _number_parameter(name: str, site: CallSite) -> bool:
    """``def f(rank: int)``: a parameter annotated as a number."""
    params = getattr(getattr(site.fn, "node", None), "params", None)
    if params is None:
        return False
    for param in named_parameters(params):
        if param.name.value == name and param.annotation is not None:
            annotation = param.annotation.annotation
            return isinstance(annotation, cst.Name) and annotation.value in ("int", "float")
    return False


def _ordered_against_numbers(test, site: CallSite) -> FrozenSet[str]:
    names = set()
    if isinstance(test, cst.Comparison):
        ordering = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
        left = test.left
        for target in test.comparisons:
            right = target.comparator
            if isinstance(target.operator, ordering):
                for name, other in ((left, right), (right, left)):
                    if isinstance(name, cst.Name) and _numeric(other, site):
                        names.add(name.value)
            left = right
    return frozenset(names)


def _describe(node) -> str:
    if isinstance(node, cst.Call):
        return "%s(...)" % node.func.value if isinstance(node.func, cst.Name) else "set(...)"
    return "a set comprehension" if isinstance(node, cst.SetComp) else "a set display"
