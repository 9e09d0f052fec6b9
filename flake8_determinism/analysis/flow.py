"""Where a value goes: the use context of an expression (data-order rules).

``order_used`` follows an expression up through order-preserving wrappers
(``list(...)``, comprehensions, ``filter``) and decides whether its order can
reach the program: not inside ``sorted``/``len``/``set``, not a membership
test, not when the variable it is stored in is sorted later in the same scope
(``files.sort()``, ``files = sorted(files)``), or only counted/tested.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional, Set, Tuple

from .._lazy import cst
from ..tables.data_order import ORDER_FREE, ORDER_PASSING
from .nodes import code_children
from .scopes import lookup

if TYPE_CHECKING:  # only for annotations: importing it would load libcst
    from .index import CallSite


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


def order_used(ctx, expr: cst.CSTNode, site: CallSite) -> bool:
    parents = ctx.index.parents
    current = expr
    while True:
        parent = parents.get(id(current))
        if isinstance(parent, cst.Call):
            if parent.func is current:
                return True
            name = builtin_name(parent, site)
            if name in ORDER_FREE:
                return False
            if name in ORDER_PASSING:
                current = parent
                continue
            return True
        if isinstance(parent, cst.CompFor) and parent.iter is current:
            comprehension = comprehension_of(parent, parents)
            if isinstance(comprehension, cst.SetComp):
                return False
            if comprehension is None:
                return True
            current = comprehension
            continue
        if isinstance(parent, cst.ComparisonTarget):
            return not isinstance(parent.operator, (cst.In, cst.NotIn))
        if isinstance(parent, cst.Assign):
            targets = [t.target for t in parent.targets]
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                return _variable_order_used(ctx, targets[0].value, site)
            return True
        if isinstance(parent, cst.For) and parent.iter is current:
            return not _loop_results_sorted(ctx, parent, site)
        return True


def _scope_body(site: CallSite):
    return site.fn.node.body if site.fn is not None else site.scope.module_scope().node


def _walk_with_parents(root) -> Iterator[Tuple[cst.CSTNode, Optional[cst.CSTNode]]]:
    stack = [(root, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not root:
            continue  # another scope
        # An argument's parent is the call itself (as in the index).
        owner = parent if isinstance(node, cst.Arg) else node
        stack.extend((child, owner) for child in reversed(code_children(node)))


def _variable_order_used(ctx, name: str, site: CallSite) -> bool:
    """A listing stored in ``name``: is its order used before anything sorts it?"""
    used = loaded = False
    for node, parent in _walk_with_parents(_scope_body(site)):
        if isinstance(node, cst.Call) and _sorts_name(node, name):
            return False
        if not isinstance(node, cst.Name) or node.value != name or parent is None:
            continue
        if isinstance(parent, (cst.AssignTarget, cst.Param)):
            continue
        loaded = True
        if isinstance(parent, cst.Call) and parent.func is not node:
            if isinstance(parent.func, cst.Name) and parent.func.value in ORDER_FREE:
                continue
        elif isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)):
            continue
        used = True
    # Never read here: it may be read elsewhere (a module attribute, a return), so assume it is.
    return used or not loaded


def _sorts_name(call: cst.Call, name: str) -> bool:
    """``name.sort(...)`` or ``sorted(name ...)``."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "sort":
        return isinstance(func.value, cst.Name) and func.value.value == name
    if isinstance(func, cst.Name) and func.value == "sorted" and call.args:
        first = call.args[0].value
        return isinstance(first, cst.Name) and first.value == name
    return False


def _names_sorted_in(root) -> Set[str]:
    """Names that ``root`` sorts: ``name.sort()`` or ``sorted(name ...)``."""
    names = set()
    for node, _ in _walk_with_parents(root):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "sort" and isinstance(func.value, cst.Name):
            names.add(func.value.value)
        elif isinstance(func, cst.Name) and func.value == "sorted" and node.args:
            if isinstance(node.args[0].value, cst.Name):
                names.add(node.args[0].value.value)
    return names


def _loop_results_sorted(ctx, loop: cst.For, site: CallSite) -> bool:
    """The loop only accumulates into lists that are sorted afterwards, or sorts
    what it iterates (``os.walk``: ``dirs.sort()`` and ``sorted(files)``)."""
    targets = _target_names(loop.target)
    appended: Set[str] = set()
    sorted_targets: Set[str] = set()
    for node, _ in _walk_with_parents(loop.body):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if func.attr.value in ("append", "extend", "add"):
                appended.add(func.value.value)
        for target in targets:
            if _sorts_name(node, target):
                sorted_targets.add(target)
    if appended and appended <= _names_sorted_in(_scope_body(site)):
        return True
    # os.walk: the dirs list sorted in place fixes traversal order; files sorted where used.
    return len(targets) == 3 and set(targets[1:]) <= sorted_targets


def _target_names(target) -> list:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [e.value.value if isinstance(e.value, cst.Name) else "" for e in target.elements]
    return []
