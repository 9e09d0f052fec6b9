"""Which functions an entry module's own entry code reaches (docs/contract.md scope policy).

Entry code is the module-level code (the ``__main__`` block included).  It
reaches a function by calling it or by passing it on by name (``fire.Fire(main)``,
``mp.spawn(worker)``, ``Process(target=f)``, ``{"train": train}``), and the
functions those reach, transitively.  A class it names that derives from a
framework's class (``nn.Module``, ``Dataset``, ``LightningModule``) is reached
with all its methods (the framework calls ``forward``, ``__getitem__``,
``training_step``); a plain class's methods are reached when reached code calls
them by name (``trainer.sample()``), and its dunder methods always.  A module-level
class the module never names at all is reached with all its methods: only something
dynamic can use it (``hydra.utils.instantiate`` from a config, a registry).  A
lambda runs when the body that holds it runs; a click/typer command is reached
through the group its decorator registers it with.  What is never reached is
library code: the seed is its caller's job.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from .._lazy import cst
from .nodes import dotted_name
from .scopes import FunctionInfo, Scope, lookup

# Decorators that register a function to be called by a CLI framework (``@cli.command()``).
REGISTERING_DECORATORS = frozenset({"command", "group", "callback"})


def reachable_functions(index) -> Set[int]:
    """``id(function node)`` of every function reached from module-level code."""
    held: Dict[Optional[int], List[FunctionInfo]] = {}  # body key -> lambdas/commands it defines
    methods: Dict[int, List[FunctionInfo]] = {}  # id(class node) -> its methods
    for info in index.functions.values():
        if info.is_method:
            methods.setdefault(id(info.parent_scope.node), []).append(info)
        if info.name == "<lambda>" or _registered(info):
            held.setdefault(_body_key(info.parent_scope), []).append(info)
    framework = _framework_classes(index)
    for node, body_scope, _ in index.classes:
        own = methods.get(id(node), ())
        if body_scope.parent is index.module_scope and not _named_outside(index, node.name.value, own):
            held.setdefault(None, []).extend(own)
    called = _called_method_names(index)
    reached: Set[int] = set()
    called_here: Set[str] = set()  # method names called by reached code
    plain: List[FunctionInfo] = []  # methods of reached plain classes, waiting for a call by name
    todo: List[Optional[int]] = [None]
    while todo or plain:
        if not todo:  # methods of plain classes that reached code calls by name
            ready = [info for info in plain if info.name in called_here]
            plain = [info for info in plain if info.name not in called_here]
            todo.extend(id(info.node) for info in ready if id(info.node) not in reached)
            reached.update(id(info.node) for info in ready)
            if not todo:
                break
            continue
        key = todo.pop()
        called_here |= called.get(key, set())
        scope = index.module_scope if key is None else index.functions[key].scope
        found = list(held.get(key, ()))
        for name in index.names_by_body.get(key, ()):
            binding = _definition(scope, name)
            if binding is None:
                continue
            if binding.kind == "def":
                info = index.functions.get(id(binding.node))
                if info is not None:
                    found.append(info)
            elif id(binding.node) in framework:
                found.extend(methods.get(id(binding.node), ()))
            else:
                own = methods.get(id(binding.node), ())
                found.extend(info for info in own if _dunder(info.name))
                plain.extend(info for info in own if not _dunder(info.name))
        for info in found:
            if id(info.node) not in reached:
                reached.add(id(info.node))
                todo.append(id(info.node))
    return reached


def _framework_classes(index) -> Set[int]:
    """Classes deriving (here or through local classes) from something not defined here:
    ``nn.Module``, ``Dataset``, ``LightningModule``...  The framework calls their methods
    (``forward``, ``__getitem__``, hooks); a plain class's methods run when called by name."""
    return {id(node) for node, _, _ in index.classes if _derives_from_outside(index, node)}


def _derives_from_outside(index, klass) -> bool:
    for node, scope, order in index.local_ancestry(klass):
        for base in node.bases:
            name = dotted_name(base.value)
            if name in ("object", ""):
                continue
            binding = lookup(scope, name, order) if isinstance(base.value, cst.Name) else None
            if binding is None or binding.kind != "class":
                return True
    return False


def _called_method_names(index) -> Dict[Optional[int], Set[str]]:
    """Per body: the names of the methods it calls (``obj.sample()`` -> ``sample``)."""
    called: Dict[Optional[int], Set[str]] = {}
    for site in index.calls:
        if isinstance(site.node.func, cst.Attribute):
            key = id(site.fn.node) if site.fn is not None else None
            called.setdefault(key, set()).add(site.method_name)
    return called


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _named_outside(index, name: str, own_methods) -> bool:
    """Is ``name`` read anywhere but in the class's own methods (``super(Net, self)``)?"""
    own = {id(info.node) for info in own_methods}
    return any(name in names for key, names in index.names_by_body.items() if key not in own)


def _definition(scope: Scope, name: str):
    """The ``def``/``class`` binding ``name`` refers to from ``scope`` (any point), if any."""
    current, left_function = scope, False
    while current is not None:
        if not (left_function and current.kind == "class"):
            bindings = current.bindings.get(name)
            if bindings:
                defining = [b for b in bindings if b.kind in ("def", "class")]
                return defining[-1] if defining else None
        left_function = left_function or current.kind == "function"
        current = current.parent
    return None


def _body_key(scope: Scope) -> Optional[int]:
    """The body a definition in ``scope`` runs in: its function, else module level."""
    while scope is not None and scope.kind != "function":
        scope = scope.parent
    return id(scope.function.node) if scope is not None and scope.function is not None else None


def _registered(info: FunctionInfo) -> bool:
    for decorator in getattr(info.node, "decorators", ()):
        expr = decorator.decorator
        name = dotted_name(expr.func if hasattr(expr, "func") else expr)
        if name.rsplit(".", 1)[-1] in REGISTERING_DECORATORS:
            return True
    return False
