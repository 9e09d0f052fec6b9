"""One function body (or the module) walked once, on demand: its nodes in source order and
every node's parent.  The flow questions (``analysis/flow.py``) and "where does this value
go" ask it; ``FileContext.scope_bodies`` keeps one per body per file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, Optional, Set, Tuple

from .._lazy import cst
from .nodes import code_children

if TYPE_CHECKING:  # only for annotations: importing it would load libcst
    from .index import CallSite


class ScopeBody:
    """One scope's body (a function, or the module) walked once: nodes in source order, parents."""

    def __init__(self, site: CallSite) -> None:
        self.root = site.fn.node.body if site.fn is not None else site.scope.module_scope().node
        self.parents: Dict[int, Optional[cst.CSTNode]] = {}
        self.nodes = []
        for node, parent in walk_with_parents(self.root):
            self.parents[id(node)] = parent
            self.nodes.append(node)
        self.position = {id(node): i for i, node in enumerate(self.nodes)}
        self.following: Set[tuple] = set()  # (name, assignment) pairs being followed: no cycles

    def inside(self, node, ancestor) -> bool:
        while node is not None:
            if node is ancestor:
                return True
            node = self.parents.get(id(node))
        return False


def scope_body(ctx, site: CallSite) -> ScopeBody:
    """The body ``site`` runs in, walked once per file (kept on ``ctx``)."""
    key = id(site.fn.node) if site.fn is not None else None
    bodies = ctx.scope_bodies
    if key not in bodies:
        bodies[key] = ScopeBody(site)
    return bodies[key]


def walk_with_parents(root) -> Iterator[Tuple[cst.CSTNode, Optional[cst.CSTNode]]]:
    stack = [(root, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not root:
            continue  # another scope
        # An argument's parent is the call itself (as in the index).
        owner = parent if isinstance(node, cst.Arg) else node
        stack.extend((child, owner) for child in reversed(code_children(node)))


def only_feeds(ctx, site: CallSite, callees, methods) -> bool:
    """Does the value of ``site`` (a draw) reach nothing but arguments of ``callees`` /
    ``methods`` (``torch.onnx.export(model, torch.randn(...))``)?"""
    body = scope_body(ctx, site)
    return _only_feeds(ctx, site.node, site, body, callees, methods, 0)


def _only_feeds(ctx, expr, site, body: ScopeBody, callees, methods, depth: int) -> bool:
    current = expr
    while True:
        parent = body.parents.get(id(current))
        if isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            current = parent
            continue
        if isinstance(parent, cst.Call) and parent.func is not current:
            name = ctx.resolver.resolve(parent.func, site.scope, site.order) or ""
            method = parent.func.attr.value if isinstance(parent.func, cst.Attribute) else ""
            return name in callees or method in methods
        if isinstance(parent, cst.Assign) and depth < 3:
            targets = [t.target for t in parent.targets]
            if len(targets) != 1 or not isinstance(targets[0], cst.Name):
                return False
            loads = [
                n for n in body.nodes
                if isinstance(n, cst.Name) and n.value == targets[0].value and not body.inside(n, parent)
                and not isinstance(body.parents.get(id(n)), (cst.AssignTarget, cst.Param))
            ]
            return bool(loads) and all(_only_feeds(ctx, n, site, body, callees, methods, depth + 1) for n in loads)
        return False


def after_an_exit(ctx, site: CallSite) -> bool:
    """Dead code (docs/contract.md "Dead code"): ``site`` follows, in its block or an enclosing one
    of its body, a statement that always leaves it: ``raise ...`` or ``assert False``."""
    body = scope_body(ctx, site)
    child, parent = site.node, body.parents.get(id(site.node))
    while parent is not None:
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            for statement in parent.body:
                if statement is child:
                    break
                if _always_leaves(statement):
                    return True
        child, parent = parent, body.parents.get(id(parent))
    return False


def enclosing_ifs(ctx, site, node) -> Iterator[Tuple[cst.If, bool]]:
    """The ``if`` statements of ``site``'s body that hold ``node`` (in a branch, not in the test),
    innermost first, each with whether ``node`` is in its ``else``/``elif`` branch.  ``site`` is
    anything placed in a body (a call site, an ``index.Assignment``)."""
    parents = scope_body(ctx, site).parents
    child, parent = node, parents.get(id(node))
    while parent is not None:
        if isinstance(parent, cst.If) and child is not parent.test:
            yield parent, child is parent.orelse
        child, parent = parent, parents.get(id(parent))


def _always_leaves(statement) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Raise):
            return True
        if isinstance(small, cst.Assert) and isinstance(small.test, (cst.Name, cst.Integer)) and \
                getattr(small.test, "value", None) in ("False", "0"):
            return True
    return False
