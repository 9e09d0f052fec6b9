"""Where a value goes: does the order of a listing or a set reach a result? (DET206, DET207)

``order_used`` follows an expression up through order-preserving wrappers
(``list(...)``, comprehensions, ``filter``, ``x or y``) and through the local
variable it is stored in, and decides whether its order can reach the program.
Not an order use (docs/contract.md DET206): ``sorted``/``.sort()`` before any use that
takes the order; ``len``, ``in``, ``set(...)``, ``any``/``all``/``min``/``max``;
a truth test (``if files:``, ``not files``); arguments of ``print``, logging
and ``warnings.warn`` (a log line is not a result); a dict or set built from the
elements (``{f: load(f) for f in files}``); a loop whose body only does such
order-free work: per-element dict entries and set additions, log lines, file
operations on each entry, and accumulation into lists that are sorted
afterwards.  Anything else -- indexing, ``zip``, a return, a call we cannot see
into -- takes the order.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Optional, Set

from .._lazy import cst
from ..tables.data_order import (
    BUILD_PREFIXES, FILE_OPERATIONS, LOG_FUNCTIONS, LOG_METHODS, LOGGER_NAMES, ORDER_FREE, ORDER_PASSING,
    CONTENT_WRITERS, ORDER_KEEPING_METHODS, ORDER_KEEPING_PREFIXES, PATH_BUILDERS, PER_ENTRY_WRITERS, SET_METHODS,
    POOL_MAPS, SORTING_CONSUMERS, UNORDERED_POOL_MAPS,
)
from .args import literal
from .nodes import code_children, dotted_name, self_attribute
from .body import ScopeBody, scope_body
from .scopes import enclosing_class, lookup

if TYPE_CHECKING:  # only for annotations: importing it would load libcst
    from .index import CallSite


# List methods that add entries in the order they are called.
_FILLING = ("append", "extend", "insert")


def builtin_name(call: cst.Call, site: CallSite) -> Optional[str]:
    """``sorted`` for ``sorted(...)`` when the name is the builtin (not rebound here)."""
    func = call.func
    if isinstance(func, cst.Name) and lookup(site.scope, func.value, site.order) is None:
        return func.value
    return None


def comprehension_of(comp_for: cst.CompFor, parents) -> Optional[cst.CSTNode]:
    """The list/set/dict comprehension or generator a ``for ... in`` clause belongs to."""
    node = parents.get(id(comp_for))
    while isinstance(node, cst.CompFor):
        node = parents.get(id(node))
    return node


def order_used(ctx, expr: cst.CSTNode, site: CallSite, body: Optional[ScopeBody] = None, depth: int = 0) -> bool:
    """Can the order of ``expr`` (a listing, a set) reach the program?"""
    parents = body.parents if body is not None else ctx.index.parents
    current = expr
    while True:
        parent = parents.get(id(current))
        if parent is None and body is None:
            # The index keeps the parents of a few node types only: walk this body for the rest.
            body = scope_body(ctx, site)
            parents = body.parents
            parent = parents.get(id(current))
        if isinstance(parent, cst.BinaryOperation) and (_formats(parent, current) or _concatenates(parent)):
            current = parent  # ``"%s" % files``, ``[0] + files``: the order carried on
            continue
        if isinstance(parent, cst.Call):
            if parent.func is current:
                return True
            if _order_free_call(ctx, parent, site) or _counted(ctx, parent, site, parents):
                return False
            if _mapped_for_effect(parent, current, parents):
                return False
            if builtin_name(parent, site) in ORDER_PASSING or _joins(parent):
                current = parent
                continue
            if depth < _RETURN_DEPTH:
                passed = _passed_to_local_function(ctx, parent, current, depth)
                if passed is not None:
                    return passed
            return True
        if isinstance(parent, cst.CompFor) and parent.iter is current:
            comprehension = comprehension_of(parent, parents)
            if isinstance(comprehension, cst.SetComp) or _keyed_by_element(comprehension, parent):
                return False
            if comprehension is None:
                return True
            current = comprehension
            continue
        if isinstance(parent, cst.ComparisonTarget):
            if isinstance(parent.operator, (cst.In, cst.NotIn)):
                return False
            comparison = parents.get(id(parent))
            return not (isinstance(comparison, cst.Comparison) and _equals_at_most_one(parent, comparison.left))
        if isinstance(parent, cst.Comparison) and parent.left is current and len(parent.comparisons) == 1:
            return not _equals_at_most_one(parent.comparisons[0], parent.comparisons[0].comparator)
        if isinstance(parent, (cst.If, cst.While, cst.Assert)) and parent.test is current:
            return False  # a truth test: empty or not
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return False
        if isinstance(parent, cst.IfExp):
            if parent.test is current:
                return False
            current = parent
            continue
        if isinstance(parent, _carriers()):
            current = parent  # ``files or []``, ``[*files]``, ``f"{files}"``: the value carries the order on
            continue
        if isinstance(parent, cst.Expr):
            return False  # computed and thrown away
        if isinstance(parent, cst.Assign):
            targets = [t.target for t in parent.targets]
            if len(targets) == 1 and isinstance(targets[0], cst.Name) and targets[0].value == "__all__":
                return False  # the export list: its order changes no result
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                return _variable_order_used(ctx, targets[0].value, parent, site, body)
            if len(targets) == 1 and self_attribute(targets[0]) and depth < _RETURN_DEPTH:
                return _attribute_order_used(ctx, targets[0].attr.value, parent, site, body, depth)
            return True
        if isinstance(parent, cst.AugAssign):
            if parent.target is current:
                return False  # ``files += more``: extended, not read
            if isinstance(parent.target, cst.Name) and isinstance(parent.operator, cst.AddAssign):
                return _variable_order_used(ctx, parent.target.value, parent, site, body)
            return True
        if isinstance(parent, cst.For) and parent.iter is current:
            return not _loop_order_free(ctx, parent, site, body or scope_body(ctx, site))
        if isinstance(parent, cst.Return) and depth < _RETURN_DEPTH:
            return _returned_order_used(ctx, site, depth)
        return True


@lru_cache(maxsize=None)
def _carriers() -> tuple:
    """Expressions whose value holds their operand's order as it is (built on first use:
    this module is imported before libcst is)."""
    return (
        cst.BooleanOperation, cst.Element, cst.StarredElement, cst.List, cst.Tuple, cst.FormattedStringExpression,
        cst.FormattedString,
    )


# How many calls deep a returned listing is followed into the callers.
_RETURN_DEPTH = 3


_LISTING_WRAPPERS = frozenset({"listdir", "glob", "iglob", "rglob", "scandir", "list_dir", "ls"})


def _returned_order_used(ctx, site: CallSite, depth: int) -> bool:
    """Returned from a function of this module: does any caller here use the order?  (Called
    from nowhere here, it is used elsewhere: assume it is.)"""
    fn = site.fn
    callers = ctx.facts.callers.get(id(fn.node)) if fn is not None else None
    if not callers:
        # ``def listdir(path): return os.listdir(path)``: a wrapper that keeps the listing's own
        # contract (arbitrary order); its callers decide, as they would with os.listdir.
        return fn is None or fn.name.lstrip("_") not in _LISTING_WRAPPERS
    return any(order_used(ctx, caller.node, caller, None, depth + 1) for caller in callers)


def _passed_to_local_function(ctx, call: cst.Call, argument, depth: int) -> Optional[bool]:
    """``count(os.listdir(d))`` where ``count`` is defined here: is the order used where the
    function reads that parameter?  None when the call or the parameter cannot be placed."""
    callee = ctx.facts.local_callee.get(id(call))
    if callee is None or not isinstance(callee.node, cst.FunctionDef):
        return None
    params = callee.node.params
    positional = list(params.posonly_params) + list(params.params)
    name = None
    for index, arg in enumerate(call.args):
        if arg.value is argument:
            if arg.star:
                return None
            if arg.keyword is not None:
                name = arg.keyword.value
            else:
                offset = 1 if callee.is_method and positional and positional[0].name.value in ("self", "cls") else 0
                if index + offset >= len(positional):
                    return None
                name = positional[index + offset].name.value
    if name is None:
        return None
    method = _MethodSite(callee)
    body = scope_body(ctx, method)
    for node in body.nodes:
        if isinstance(node, cst.Name) and node.value == name:
            parent = body.parents.get(id(node))
            if isinstance(parent, (cst.Param, cst.AssignTarget)) or parent is None:
                continue
            if order_used(ctx, node, method, body, depth + 1):
                return True
    return False


def _counted(ctx, call: cst.Call, site: CallSite, parents) -> bool:
    """``for k, _ in enumerate(listing):``: only the count is used, the entries are dropped."""
    if builtin_name(call, site) != "enumerate":
        return False
    loop = parents.get(id(call))
    if loop is None:
        loop = scope_body(ctx, site).parents.get(id(call))
    if not isinstance(loop, (cst.For, cst.CompFor)) or loop.iter is not call:
        return False
    target = loop.target
    return (
        isinstance(target, cst.Tuple) and len(target.elements) == 2
        and isinstance(target.elements[1].value, cst.Name) and target.elements[1].value.value == "_"
    )


class _MethodSite:
    """A method's body, placed as ``scope_body`` expects a site."""

    __slots__ = ("fn", "scope", "order")

    def __init__(self, fn) -> None:
        self.fn, self.scope, self.order = fn, fn.scope, 1 << 30


def _attribute_order_used(ctx, attribute: str, assign, site: CallSite, body, depth: int) -> bool:
    """``self.files = os.listdir(root)``: is the order used where any method of the class reads
    ``self.files`` (``self.files[index]`` in ``__getitem__``), before the assigning method sorts it?"""
    klass = enclosing_class(site.scope)
    if klass is None:
        return True
    body = body or scope_body(ctx, site)
    after = body.position.get(id(assign), len(body.nodes))
    for node in body.nodes[after + 1:]:  # ``self.files.sort()`` / ``self.files = sorted(self.files)``
        if isinstance(node, cst.Call) and _sorts_attribute(node, attribute):
            return False
    read = False
    for fn in ctx.index.functions.values():
        if not fn.is_method or fn.parent_scope is not klass:
            continue
        method = _MethodSite(fn)
        method_body = scope_body(ctx, method)
        for node in method_body.nodes:
            if self_attribute(node) != attribute:
                continue
            parent = method_body.parents.get(id(node))
            # Sorting it or filling it (``self.files.append(path)``) takes no order.
            fills = isinstance(parent, cst.Attribute) and parent.attr.value in ("sort",) + _FILLING
            if isinstance(parent, cst.AssignTarget) or fills:
                continue
            read = True
            if order_used(ctx, node, method, method_body, depth + 1):
                return True
    return not read  # never read in the class: read from outside (``dataset.files``), assume used


def _sorts_attribute(call: cst.Call, attribute: str) -> bool:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "sort":
        return self_attribute(func.value) == attribute
    if isinstance(func, cst.Name) and func.value == "sorted" and call.args:
        first = call.args[0].value
        return self_attribute(first) == attribute
    return False


def _equals_at_most_one(target, other) -> bool:
    """``files == []``, ``files != ["log.txt"]``: equal to at most one entry, whatever the order."""
    return (
        isinstance(target.operator, (cst.Equal, cst.NotEqual))
        and isinstance(other, (cst.List, cst.Tuple))
        and len(other.elements) <= 1
    )


def _formats(operation, operand) -> bool:
    """``"..." % value``: string formatting."""
    return (
        isinstance(operation.operator, cst.Modulo)
        and operation.right is operand
        and isinstance(operation.left, (cst.SimpleString, cst.ConcatenatedString))
    )


def _concatenates(operation) -> bool:
    return isinstance(operation.operator, cst.Add)


def _joins(call: cst.Call) -> bool:
    """``", ".join(files)``: a string carrying the order on."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "join"


def _mapped_for_effect(call: cst.Call, operand, parents) -> bool:
    """``pool.map(convert, files)`` as a statement (its results thrown away), or
    ``pool.imap_unordered(...)`` (results in completion order): each entry is processed on
    its own, in whatever order -- the listing's order reaches nothing."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in POOL_MAPS):
        return False
    if len(call.args) < 2 or call.args[1].value is not operand:
        return False
    return func.attr.value in UNORDERED_POOL_MAPS or isinstance(parents.get(id(call)), cst.Expr)


def _order_free_call(ctx, call: cst.Call, site: CallSite) -> bool:
    """A call whose result does not depend on the order of its arguments: ``len``,
    ``set``, a log line, a set method, a build step (``cpp_extension.load(sources=...)``)."""
    name = builtin_name(call, site)
    if name in ORDER_FREE:
        return True
    if is_log_call(call, site) or _set_method_call(call, site):
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


def _set_method_call(call: cst.Call, site: CallSite) -> bool:
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
    return None


def _keyed_by_element(comprehension, comp_for: cst.CompFor) -> bool:
    """``{f: load(f) for f in files}``: a dict keyed by the element, not by its position."""
    if not isinstance(comprehension, cst.DictComp) or comp_for.inner_for_in is not None:
        return False
    targets = _names_in(comp_for.target)
    return bool(targets & _names_in(comprehension.key)) and not _uses_position(comprehension.value, None)


def _variable_order_used(ctx, name: str, assign, site: CallSite, body: Optional[ScopeBody]) -> bool:
    """A listing stored in ``name``: is its order used before anything sorts it?"""
    body = body or scope_body(ctx, site)
    key = (name, id(assign))
    if key in body.following or id(assign) not in body.position:
        return True  # a cycle of assignments, or an assignment we cannot place: assume the worst
    body.following.add(key)
    try:
        loaded = False
        single = []  # ``if len(paths) == 1: load(paths[0])``: blocks that see at most one entry
        for node in body.nodes[body.position[id(assign)] + 1:]:
            if isinstance(node, cst.Call) and _sorts_name(node, name):
                return False  # sorted before any use that takes the order
            if _guards_single_entry(node, name):
                return False  # at most one entry from here on: no order to take
            if isinstance(node, cst.If) and _len_compared(node.test, name, _AT_MOST_ONE):
                single.append(node.body)
            if not isinstance(node, cst.Name) or node.value != name or body.inside(node, assign):
                continue
            if any(body.inside(node, block) for block in single):
                loaded = True
                continue
            if _in_log_line(node, body.parents, site):
                loaded = True
                continue  # ``logger.warning(f"... {files[0]}")``: a message, not a result
            parent = body.parents.get(id(node))
            if parent is None or isinstance(parent, (cst.AssignTarget, cst.Param)):
                continue
            loaded = True
            if order_used(ctx, node, site, body):
                return True
        # Never read here: it may be read elsewhere (a module attribute, a return), so assume it is.
        return not loaded
    finally:
        body.following.discard(key)


def _in_log_line(node, parents, site: CallSite) -> bool:
    """``node`` is part of the arguments of a log call (``print``, ``logger.warning``, ...)."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, (cst.BaseStatement, cst.BaseSmallStatement)):
        if isinstance(current, cst.Call) and is_log_call(current, site):
            return True
        current = parents.get(id(current))
    return False


def _guards_single_entry(node, name: str) -> bool:
    """``assert len(name) == 1``, ``if len(name) > 1: raise ...``: the program stops unless one entry."""
    if isinstance(node, cst.Assert):
        return _len_compared(node.test, name, _AT_MOST_ONE)
    if isinstance(node, cst.If) and _len_compared(node.test, name, _MORE_THAN_ONE):
        statements = node.body.body
        last = statements[-1] if statements else None
        return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)
    return False


# ``len(x) <op> <number>`` tests true exactly when x holds at most one entry / more than one.
# (Operators by class name: libcst is imported only when a file is analysed.)
_AT_MOST_ONE = {"Equal": (0, 1), "LessThanEqual": (0, 1), "LessThan": (1, 2)}
_MORE_THAN_ONE = {"NotEqual": (1,), "GreaterThan": (1,), "GreaterThanEqual": (2,)}


def _len_compared(test, name: str, operators) -> bool:
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    left, target = test.left, test.comparisons[0]
    if not (isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "len"
            and len(left.args) == 1 and isinstance(left.args[0].value, cst.Name) and left.args[0].value.value == name):
        return False
    numbers = operators.get(type(target.operator).__name__, ())
    return isinstance(target.comparator, cst.Integer) and int(target.comparator.value) in numbers


def _sorts_name(call: cst.Call, name: str) -> bool:
    """``name.sort(...)``, ``sorted(name ...)``, ``sorted(set(name))``."""
    return name in _sorted_names(call)


def _sorted_names(call: cst.Call) -> Set[str]:
    """The variables a call sorts: ``name.sort(...)``, or the names in ``sorted()``'s first argument."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "sort" and isinstance(func.value, cst.Name):
        return {func.value.value}
    if isinstance(func, cst.Name) and func.value == "sorted" and call.args:
        return _names_in(call.args[0].value)
    return set()


# ---------------------------------------------------------------- loops


def loop_order_used(ctx, loop: cst.For, site: CallSite) -> bool:
    """``for x in <unordered>:``: does the loop's effect depend on the iteration order?"""
    return not _loop_order_free(ctx, loop, site, scope_body(ctx, site))


def _loop_order_free(ctx, loop: cst.For, site: CallSite, body: ScopeBody) -> bool:
    """Does every iteration do work whose result does not depend on the order of the others?
    Lists it fills in iteration order must not be used in that order afterwards (sorted,
    fed to a set, counted...)."""
    checker = _LoopBody(loop, _names_in(loop.target), site, body, per_entry=not ctx.settings.strict)
    if checker.walk_sorted():
        return True  # os.walk with ``dirs.sort()`` and the files sorted: a fixed traversal
    if not checker.order_free(loop.body):
        return False
    # A list made in the body (``flist = []`` ... ``flist.append(x)``) holds one iteration's items.
    if any(_variable_order_used(ctx, name, loop, site, body) for name in checker.appended - checker.fresh):
        return False
    return not any(_attribute_order_used(ctx, name, loop, site, body, 0) for name in checker.appended_attributes)


class _LoopBody:
    """Classifies the statements of a loop over an unordered collection."""

    def __init__(self, loop, targets: Set[str], site: CallSite, body: ScopeBody, per_entry: bool = True) -> None:
        self.loop, self.targets, self.site, self.body = loop, set(targets), site, body
        self.per_entry = per_entry  # a dropped call on the entry is work on that entry alone
        self.appended: Set[str] = set()  # lists filled in iteration order
        self.appended_attributes: Set[str] = set()  # ``self.<name>`` lists filled so
        self.fresh: Set[str] = set()  # names assigned in the body: new in every iteration
        self.handles: Set[str] = set()  # files opened at a path made from the entry

    def walk_sorted(self) -> bool:
        """``for top, dirs, files in os.walk(...)`` that sorts ``dirs`` and ``files``."""
        target = self.loop.target
        if not isinstance(target, cst.Tuple) or len(target.elements) != 3:
            return False
        names = [e.value.value if isinstance(e.value, cst.Name) else "" for e in target.elements]
        sorted_here = set()
        for node in self.body.nodes:
            if isinstance(node, cst.Call) and self.body.inside(node, self.loop.body):
                sorted_here |= {n for n in names[1:] if n and _sorts_name(node, n)}
        return bool(names[1]) and set(names[1:]) <= sorted_here

    def order_free(self, block) -> bool:
        statements = getattr(block, "body", block)
        if isinstance(statements, cst.CSTNode):
            statements = [statements]
        return all(self.statement(s) for s in statements)

    def statement(self, stmt) -> bool:
        if isinstance(stmt, cst.SimpleStatementLine):
            return all(self.small(s) for s in stmt.body)
        if isinstance(stmt, cst.If):
            return self.order_free(stmt.body) and (stmt.orelse is None or self.else_branch(stmt.orelse))
        if isinstance(stmt, cst.With):
            for item in stmt.items:  # ``with open(out / f"{name}.json", "w") as fh:`` -- a file per entry
                if item.asname is not None and self._per_entry_path(item.item):
                    self.handles |= _names_in(item.asname.name)
            return self.order_free(stmt.body)
        if isinstance(stmt, cst.Try):
            blocks = [stmt.body] + [h.body for h in stmt.handlers]
            blocks += [b.body for b in (stmt.orelse, stmt.finalbody) if b is not None]
            return all(self.order_free(b) for b in blocks)
        if isinstance(stmt, (cst.For, cst.While)):
            if isinstance(stmt, cst.For):
                self.targets |= _names_in(stmt.target)
            return self.order_free(stmt.body) and (stmt.orelse is None or self.order_free(stmt.orelse.body))
        return False

    def else_branch(self, orelse) -> bool:
        if isinstance(orelse, cst.If):
            return self.statement(orelse)
        return self.order_free(orelse.body)

    def small(self, stmt) -> bool:
        if isinstance(stmt, (cst.Pass, cst.Continue, cst.Raise, cst.Assert)):
            return True  # a check that stops on a bad entry, whatever the order: not a result
        if isinstance(stmt, cst.Del):
            return True  # entries removed one by one: the same survivors in any order
        if isinstance(stmt, cst.Return) and (stmt.value is None or literal(stmt.value)[0]):
            return True  # ``return True`` on the first match: an ``any()``
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
            return self.call(stmt.value)
        if isinstance(stmt, cst.Assign):
            return all(self.assignment(t.target, stmt.value) for t in stmt.targets)
        if isinstance(stmt, cst.AnnAssign) and stmt.value is not None:
            return self.assignment(stmt.target, stmt.value)
        if isinstance(stmt, cst.AugAssign):
            if isinstance(stmt.target, cst.Subscript):
                return self.assignment(stmt.target, stmt.value)  # ``best[split] += [row]``: per key
            # ``count += 1``, ``total += size``: a count or sum, whatever the order.
            return isinstance(stmt.target, cst.Name) and not self._read_as_position(stmt.target.value)
        return False  # break, return, yield, del, raise, ...

    def call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            method, receiver = func.attr.value, func.value.value
            if method == "sort":
                return True
            if method in _FILLING:
                self.appended.add(receiver)
                return True
        if isinstance(func, cst.Attribute) and func.attr.value in _FILLING:
            # ``self.files.append(path)``: a list on the instance, read in the class's other
            # methods; any other container outside the loop keeps the iteration order.
            attribute = self_attribute(func.value)
            if attribute:
                self.appended_attributes.add(attribute)
            return bool(attribute)
        if is_log_call(call, self.site) or _set_method_call(call, self.site):
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "discard":
            return True  # only sets have it: the same survivors in any order
        if isinstance(func, cst.Attribute) and self._keyed_by_entry(func.value):
            # ``self.word_map[word].update(...)``: the entry's own value changes, whatever the order.
            container = dotted_name(func.value.value)
            return not any(_uses_position(arg.value, container) for arg in call.args)
        spelled = dotted_name(func)
        if spelled in FILE_OPERATIONS or (isinstance(func, cst.Attribute) and func.attr.value in FILE_OPERATIONS):
            return True  # each entry moved, copied, removed on its own
        method = func.attr.value if isinstance(func, cst.Attribute) else spelled.rsplit(".", 1)[-1]
        receiver = dotted_name(func.value) if isinstance(func, cst.Attribute) else ""
        # One output per entry, named after it, whatever the order: ``fh.write(...)`` on a file
        # opened at a path made from the entry, ``json.dump(x, fh)`` into one, ``np.save(path, x)``.
        if method in CONTENT_WRITERS:
            return receiver in self.handles or any(dotted_name(a.value) in self.handles for a in call.args[1:2])
        if method in PER_ENTRY_WRITERS:
            return any(self._per_entry_path(arg.value) for arg in call.args[:2])
        return self.per_entry and self._processes_the_entry(call, method)

    def _processes_the_entry(self, call: cst.Call, method: str) -> bool:
        """``process(path)``, ``convert(name, out_dir)`` with the result dropped: work on this
        entry alone (default mode; strict mode assumes any call may keep an order).  Not a call
        that feeds state kept across entries in order: training, updating, writing, loading."""
        if method in ORDER_KEEPING_METHODS or method.startswith(ORDER_KEEPING_PREFIXES):
            return False
        return any(self.targets & _names_in(arg.value) for arg in call.args)

    def _per_entry_path(self, expr) -> bool:
        """A path built from the entry (``os.path.join(out, name)``, ``f"{out}/{name}.npy"``,
        ``out / name``), or an ``open`` of one: it names one output per entry."""
        if isinstance(expr, cst.Call) and dotted_name(expr.func) == "open" and expr.args:
            expr = expr.args[0].value
        path_like = isinstance(expr, (cst.FormattedString, cst.BinaryOperation)) or (
            isinstance(expr, cst.Call) and dotted_name(expr.func).rsplit(".", 1)[-1] in PATH_BUILDERS
        )
        return path_like and bool(self.targets & _names_in(expr))

    def _keyed_by_entry(self, expr) -> bool:
        """``index[name]``: a subscript keyed by the element (not by its position)."""
        if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1:
            return False
        key = expr.slice[0].slice
        return isinstance(key, cst.Index) and bool(self.targets & _names_in(key.value))

    def assignment(self, target, value) -> bool:
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self.assignment(element.value, value) for element in target.elements)
        if isinstance(target, cst.Subscript):
            # ``index[name] = load(name)``: keyed by the element, not by its position.
            return self._keyed_by_entry(target) and not _uses_position(value, dotted_name(target.value))
        if isinstance(target, cst.Name):
            self.targets.add(target.value)  # derived from the element
            self.fresh.add(target.value)
            # A temporary of this iteration; one read after the loop keeps the last
            # element (order!), unless only the best one is kept (``if s > best: best = s``).
            return not self._read_after_loop(target.value) or self._under_comparison(target)
        return False

    def _read_as_position(self, name: str) -> bool:
        """A counter that is also read inside the loop (``out[i] = x; i += 1``): a position."""
        return any(
            isinstance(n, cst.Name) and n.value == name and not isinstance(self.body.parents.get(id(n)), cst.AugAssign)
            for n in self.body.nodes
            if self.body.inside(n, self.loop.body)
        )

    def _read_after_loop(self, name: str) -> bool:
        start = self.body.position.get(id(self.loop), 0)  # reads above the loop see none of it
        rebound_in = []  # later loops that assign the name first: their reads see their own value
        for node in self.body.nodes[start:]:
            if isinstance(node, cst.Name) and node.value == name and not self.body.inside(node, self.loop):
                parent = self.body.parents.get(id(node))
                if isinstance(parent, (cst.AssignTarget, cst.Param)):
                    holder = self._enclosing_block(node)
                    if holder is None:
                        return False  # assigned again unconditionally: the loop's last value is gone
                    rebound_in.append(holder)
                elif not any(self.body.inside(node, holder) for holder in rebound_in):
                    return True
        return False

    def _enclosing_block(self, node):
        """The innermost loop, ``if``, ``try`` or ``with`` around ``node`` in this scope (None:
        straight-line code)."""
        node = self.body.parents.get(id(node))
        while node is not None:
            if isinstance(node, (cst.For, cst.While, cst.If, cst.Try, cst.With)):
                return node
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                return None
            node = self.body.parents.get(id(node))
        return None

    def _under_comparison(self, target) -> bool:
        """Assigned under ``if score > best:`` (or ``best is None or score > best``): a max or min."""
        node = self.body.parents.get(id(target))
        while node is not None and node is not self.loop:
            if isinstance(node, cst.If) and _orders(node.test):
                return True
            node = self.body.parents.get(id(node))
        return False


def _orders(test) -> bool:
    """The test compares with ``<``/``>`` (possibly inside ``and``/``or``)."""
    if isinstance(test, cst.BooleanOperation):
        return _orders(test.left) or _orders(test.right)
    ordering = (cst.GreaterThan, cst.LessThan, cst.GreaterThanEqual, cst.LessThanEqual)
    return isinstance(test, cst.Comparison) and any(isinstance(c.operator, ordering) for c in test.comparisons)


def _names_in(expr) -> Set[str]:
    names = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            names.add(node.value)
        elif isinstance(node, cst.CSTNode):
            stack.extend(code_children(node))
    return names


def _uses_position(expr, container: Optional[str]) -> bool:
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
