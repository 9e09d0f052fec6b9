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

What takes no order is told by ``analysis/order_free.py``; whether a loop's body is
order-free, by ``analysis/loop_body.py``.  This module follows the value (through
variables, ``self`` attributes, returns and the parameters of local functions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .._lazy import cst
from ..tables.data_order import ORDER_KEEPING_CALLS, ORDER_PASSING, ORDER_TAKING
from .body import ScopeBody, scope_body
from .loop_body import LoopBody
from .nodes import names_in, self_attribute
from .order_free import (
    AT_MOST_ONE, FILLING, builtin_name, carriers, concatenates, equals_at_most_one, formats, guards_single_entry,
    in_log_line, is_log_call, joins, keyed_by_element, len_compared, mapped_for_effect, order_free_call,
    sorts_attribute, sorts_name,
)
from .scopes import enclosing_class

if TYPE_CHECKING:  # only for annotations: importing it would load libcst
    from .index import CallSite


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
        if isinstance(parent, cst.BinaryOperation) and (formats(parent, current) or concatenates(parent)):
            current = parent  # ``"%s" % files``, ``[0] + files``: the order carried on
            continue
        if isinstance(parent, cst.Call):
            if parent.func is current:
                return True
            if builtin_name(parent, site) == "next" and _walks(current):
                part = _walk_part(parent, parents)  # ``next(os.walk(top))[1]``: the top's folders
                if part is None:
                    return _walk_top_used(ctx, parent, site, parents, body)
                if part is False:
                    return False  # ``[0]``: the top folder's own path
                current = part
                continue
            if order_free_call(ctx, parent, site) or _counted(ctx, parent, site, parents):
                return False
            progress_loop = _enumerated_for_progress(ctx, parent, site, parents)
            if progress_loop is not None:
                return not _loop_order_free(ctx, progress_loop, site, body or scope_body(ctx, site),
                                            names_in(progress_loop.target.elements[1].value))
            if mapped_for_effect(parent, current, parents):
                return False
            if builtin_name(parent, site) in ORDER_PASSING or joins(parent):
                current = parent
                continue
            if depth < _RETURN_DEPTH:
                passed = _passed_to_local_function(ctx, parent, current, depth)
                if passed is not None:
                    return passed
            # A call we cannot see into: it may keep the order (a dataset built from the list) or
            # not (a copy, a lookup).  Default mode reports only what is seen to take it.
            return ctx.settings.strict or takes_order(ctx, parent, site)
        if isinstance(parent, cst.CompFor) and parent.iter is current:
            comprehension = comprehension_of(parent, parents)
            if isinstance(comprehension, cst.SetComp) or keyed_by_element(comprehension, parent):
                return False
            if comprehension is None:
                return True
            current = comprehension
            continue
        if isinstance(parent, cst.ComparisonTarget):
            if isinstance(parent.operator, (cst.In, cst.NotIn)):
                return False
            comparison = parents.get(id(parent))
            return not (isinstance(comparison, cst.Comparison) and equals_at_most_one(parent, comparison.left))
        if isinstance(parent, cst.Comparison) and parent.left is current and len(parent.comparisons) == 1:
            return not equals_at_most_one(parent.comparisons[0], parent.comparisons[0].comparator)
        if isinstance(parent, (cst.If, cst.While, cst.Assert)) and parent.test is current:
            return False  # a truth test: empty or not
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return False
        if isinstance(parent, cst.IfExp):
            if parent.test is current:
                return False
            current = parent
            continue
        if isinstance(parent, carriers()):
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


def _walks(node) -> bool:
    """``os.walk(top)`` (also ``tf.io.gfile.walk``)."""
    func = node.func if isinstance(node, cst.Call) else None
    return isinstance(func, cst.Attribute) and func.attr.value == "walk" or \
        isinstance(func, cst.Name) and func.value == "walk"


def _walk_part(call: cst.Call, parents):
    """``next(os.walk(top))[i]``: the subscript for the folders (1) or files (2), False for the
    top's path (0); None when the step is not subscripted by a number."""
    subscript = parents.get(id(call))
    if not (isinstance(subscript, cst.Subscript) and subscript.value is call and len(subscript.slice) == 1):
        return None
    index = subscript.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer)):
        return None
    return False if index.value.value == "0" else subscript


def _walk_top_used(ctx, call: cst.Call, site: CallSite, parents, body) -> bool:
    """``root, dirs, files = next(os.walk(top))``: the walk's first step is always the top
    folder, so ``next`` picks no entry; the order is in ``dirs`` and ``files``, followed as
    variables (autovc's ``for speaker in sorted(subdirList)``)."""
    statement = parents.get(id(call))
    if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0].target, (cst.Tuple, cst.List))):
        return True
    names = [element.value.value for element in statement.targets[0].target.elements[1:]
             if isinstance(element.value, cst.Name) and element.value.value != "_"]
    return any(_variable_order_used(ctx, name, statement, site, body) for name in names)


# How many calls deep a returned listing is followed into the callers.
_RETURN_DEPTH = 3


_LISTING_WRAPPERS = frozenset({"listdir", "glob", "iglob", "rglob", "scandir", "list_dir", "ls"})


def takes_order(ctx, call: cst.Call, site: CallSite) -> bool:
    """A call seen to turn the order of what it is given into a result: positions (``enumerate``,
    ``zip``, ``next``), rows of an array (``np.concatenate``, ``torch.stack``), or a seeded draw
    over the entries (``random.shuffle``, ``np.random.choice``: the same seed picks other entries)."""
    if builtin_name(call, site) in ORDER_TAKING:
        return True
    callee = ctx.resolver.resolve(call.func, site.scope, site.order) or ""
    return callee in ORDER_KEEPING_CALLS


def _returned_order_used(ctx, site: CallSite, depth: int) -> bool:
    """Returned from a function of this module: does any caller here use the order?  Called
    from nowhere here, its use is unknown: strict mode assumes it is used, default mode does not
    ("Default mode reports facts about reruns"), except for a listing wrapper."""
    fn = site.fn
    callers = ctx.facts.callers.get(id(fn.node)) if fn is not None else None
    if not callers:
        # ``def listdir(path): return os.listdir(path)``: a wrapper that keeps the listing's own
        # contract (arbitrary order); its callers decide, as they would with os.listdir.
        if fn is None:
            return True
        return fn.name.lstrip("_") not in _LISTING_WRAPPERS and ctx.settings.strict
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


def _enumerated_for_progress(ctx, call: cst.Call, site: CallSite, parents) -> Optional[cst.For]:
    """``for idx, path in enumerate(files):`` whose ``idx`` is read only in progress lines
    (``if idx % 50 == 0: print(...)``, ``print(idx, len(files))``): the loop over the entries,
    the position only reported.  None for any other use of the position."""
    if builtin_name(call, site) != "enumerate":
        return None
    body = scope_body(ctx, site)
    loop = body.parents.get(id(call))
    if not isinstance(loop, cst.For) or loop.iter is not call:
        return None
    target = loop.target
    if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
            and isinstance(target.elements[0].value, cst.Name)):
        return None
    index = target.elements[0].value.value
    for node in body.nodes:
        if isinstance(node, cst.Name) and node.value == index and body.inside(node, loop.body):
            if not (in_log_line(node, body.parents, site) or _in_progress_test(node, body, site)):
                return None
    return loop


def _in_progress_test(node, body: ScopeBody, site: CallSite) -> bool:
    """``node`` is read in the test of an ``if`` whose body only logs."""
    current = body.parents.get(id(node))
    while current is not None and not isinstance(current, cst.BaseStatement):
        current = body.parents.get(id(current))
    if not isinstance(current, cst.If) or current.orelse is not None or not body.inside(node, current.test):
        return False
    for stmt in current.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                    and is_log_call(small.value, site)):
                return False
    return True


def _indexed_by_range_loop(ctx, node: cst.Name, body: ScopeBody, site: CallSite) -> Optional[cst.For]:
    """``files[i]`` inside ``for i in range(len(files)):`` (or ``range(0, len(files))``): the
    loop visits the entries one by one, as ``for f in files`` would.  The loop, else None."""
    subscript = body.parents.get(id(node))
    if not isinstance(subscript, cst.Subscript) or subscript.value is not node or len(subscript.slice) != 1:
        return None
    key = subscript.slice[0].slice
    if not (isinstance(key, cst.Index) and isinstance(key.value, cst.Name)):
        return None
    current = body.parents.get(id(subscript))
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef)):
        if isinstance(current, cst.For) and isinstance(current.target, cst.Name) \
                and current.target.value == key.value.value and _ranges_over(current.iter, node.value, site):
            return current
        current = body.parents.get(id(current))
    return None


def _ranges_over(expr, name: str, site: CallSite) -> bool:
    """``range(len(name))`` or ``range(0, len(name))``."""
    if not (isinstance(expr, cst.Call) and builtin_name(expr, site) == "range" and expr.args):
        return False
    args = [a.value for a in expr.args]
    if len(args) == 2 and not (isinstance(args[0], cst.Integer) and args[0].value == "0"):
        return False
    last = args[-1]
    return (
        len(args) <= 2 and isinstance(last, cst.Call) and builtin_name(last, site) == "len" and len(last.args) == 1
        and isinstance(last.args[0].value, cst.Name) and last.args[0].value.value == name
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
        if isinstance(node, cst.Call) and sorts_attribute(node, attribute):
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
            fills = isinstance(parent, cst.Attribute) and parent.attr.value in ("sort",) + FILLING
            if isinstance(parent, cst.AssignTarget) or fills:
                continue
            read = True
            if order_used(ctx, node, method, method_body, depth + 1):
                return True
    return not read  # never read in the class: read from outside (``dataset.files``), assume used


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
        visited_loops = set()  # ``for i in range(len(paths))`` loops already judged
        rebinding = None  # ``files = {f.stem: f for f in files}``: after it, the name holds another value
        for node in body.nodes[body.position[id(assign)] + 1:]:
            if rebinding is not None and not body.inside(node, rebinding):
                break
            if isinstance(node, cst.Call) and sorts_name(node, name):
                return False  # sorted before any use that takes the order
            if guards_single_entry(node, name):
                return False  # at most one entry from here on: no order to take
            if isinstance(node, cst.If) and len_compared(node.test, name, AT_MOST_ONE):
                single.append(node.body)
            if not isinstance(node, cst.Name) or node.value != name or body.inside(node, assign):
                continue
            if any(body.inside(node, block) for block in single):
                loaded = True
                continue
            if in_log_line(node, body.parents, site):
                loaded = True
                continue  # ``logger.warning(f"... {files[0]}")``: a message, not a result
            parent = body.parents.get(id(node))
            if isinstance(parent, cst.AssignTarget) and _rebinds(body, assign, parent):
                rebinding = body.parents.get(id(parent))
                continue
            if parent is None or isinstance(parent, (cst.AssignTarget, cst.Param)):
                continue
            if _still_filled(node, parent, body) or _assigned_to_itself(node, parent, name):
                continue  # ``files.append(d)``, ``files.remove("3")``, ``files = files``: the list is being built
            loaded = True
            range_loop = _indexed_by_range_loop(ctx, node, body, site)
            if range_loop is not None:
                if id(range_loop) not in visited_loops:
                    visited_loops.add(id(range_loop))
                    if not _loop_order_free(ctx, range_loop, site, body, {name}):
                        return True
                continue
            if order_used(ctx, node, site, body):
                return True
        if loaded:
            return False
        # Never read here.  A function's own local is gone, its order reaches nothing; a module's
        # global may be read by an importer (unknown: strict mode only); a parameter or a global
        # filled here is read by the caller.
        if site.fn is None:
            return ctx.settings.strict
        return not _own_local(site.fn.node, name, body)
    finally:
        body.following.discard(key)


# List methods that add or remove entries: the list is being built, its order not yet taken.
_BUILDING = FILLING + ("remove",)


def _still_filled(node, parent, body: ScopeBody) -> bool:
    """``name.append(x)`` / ``name.extend(xs)`` / ``name.remove(x)`` called as a statement."""
    if not (isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in _BUILDING):
        return False
    call = body.parents.get(id(parent))
    return isinstance(call, cst.Call) and call.func is parent and isinstance(body.parents.get(id(call)), cst.Expr)


def _rebinds(body: ScopeBody, assign, target) -> bool:
    """``name = ...`` again, in the same block as the assignment followed: from the end of that
    statement on, the name holds the new value (reads in its value are of the old one)."""
    again = body.parents.get(id(target))
    if not (isinstance(assign, cst.Assign) and isinstance(again, cst.Assign)) or len(again.targets) != 1:
        return False
    line, other = body.parents.get(id(assign)), body.parents.get(id(again))
    return line is not None and other is not None and body.parents.get(id(line)) is body.parents.get(id(other))


def _assigned_to_itself(node, parent, name: str) -> bool:
    """``files = files``: the same list under the same name."""
    return isinstance(parent, cst.Assign) and parent.value is node and all(
        isinstance(t.target, cst.Name) and t.target.value == name for t in parent.targets)


def _own_local(function, name: str, body: ScopeBody) -> bool:
    """``name`` is a local of ``function``: not a parameter, nor declared global or nonlocal."""
    params = function.params
    every = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    if any(param.name.value == name for param in every):
        return False
    return not any(
        isinstance(node, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in node.names)
        for node in body.nodes
    )


def loop_order_used(ctx, loop: cst.For, site: CallSite) -> bool:
    """``for x in <unordered>:``: does the loop's effect depend on the iteration order?"""
    return not _loop_order_free(ctx, loop, site, scope_body(ctx, site))


def _loop_order_free(ctx, loop: cst.For, site: CallSite, body: ScopeBody, entries=None) -> bool:
    """Does every iteration do work whose result does not depend on the order of the others?
    Lists it fills in iteration order must not be used in that order afterwards (sorted,
    fed to a set, counted...).  ``entries``: the names that stand for the entry, when not the
    loop's target (an ``enumerate``'s entry, ``files`` in ``files[i]``)."""
    targets = names_in(loop.target) if entries is None else set(entries)
    checker = LoopBody(loop, targets, site, body, per_entry=not ctx.settings.strict)
    if checker.walk_sorted():
        return True  # os.walk with ``dirs.sort()`` and the files sorted: a fixed traversal
    if not checker.order_free(loop.body):
        return False
    # A list made in the body (``flist = []`` ... ``flist.append(x)``) holds one iteration's items.
    if any(_variable_order_used(ctx, name, loop, site, body) for name in checker.appended - checker.fresh):
        return False
    return not any(_attribute_order_used(ctx, name, loop, site, body, 0) for name in checker.appended_attributes)
