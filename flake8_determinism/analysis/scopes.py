"""Scopes, bindings and the light name resolver.

Resolution follows Python's rules closely enough for a linter: a name bound
anywhere in a function is local to the whole function; module and class bodies
run top to bottom, so there the latest binding before the use wins; a function
body looking outward sees the enclosing scope's last binding (functions run
after the module body).  A local ``def``/``class``/assignment/parameter shadows
an import.  Only imports produce qualified names, so ``mylib.randn`` or a local
``def random()`` never match a library table.
"""

from __future__ import annotations

import builtins
from functools import lru_cache
from typing import Dict, List, Optional, Set

from .._lazy import cst

from ..tables.aliases import PREFIX_REWRITES

_BUILTIN_NAMES = frozenset(dir(builtins))


class Binding:
    __slots__ = ("name", "kind", "order", "node", "value", "scope")

    def __init__(self, name, kind, order, node=None, value=None, scope=None) -> None:
        self.name = name
        self.kind = kind  # import | def | class | assign | param
        self.order = order
        self.node = node
        self.value = value  # import: qualified name; assign: the assigned expression; param: annotation
        self.scope = scope


class FunctionInfo:
    __slots__ = ("node", "name", "scope", "parent_scope", "decorated")

    def __init__(self, node, name, scope, parent_scope, decorated) -> None:
        self.node = node
        self.name = name
        self.scope = scope
        self.parent_scope = parent_scope
        self.decorated = decorated

    @property
    def is_method(self) -> bool:
        return self.parent_scope.kind == "class"


class Scope:
    __slots__ = ("kind", "parent", "node", "bindings", "globals", "star_imports", "function")

    def __init__(self, kind: str, parent: Optional["Scope"], node) -> None:
        self.kind = kind  # module | function | class | comprehension
        self.parent = parent
        self.node = node
        self.bindings: Dict[str, List[Binding]] = {}
        self.globals: Set[str] = set()
        self.star_imports: List[str] = []
        self.function: Optional[FunctionInfo] = None

    def add(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)

    def module_scope(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def _is_none_placeholder(binding: Binding) -> bool:
    # ``except ImportError: np = None`` must not hide ``import numpy as np``.
    return binding.kind == "assign" and isinstance(binding.value, cst.Name) and binding.value.value == "None"


def _choose(bindings: List[Binding], order: int, flow_sensitive: bool) -> Optional[Binding]:
    candidates = bindings
    if len(bindings) > 1 and any(b.kind == "import" for b in bindings):
        candidates = [b for b in bindings if not _is_none_placeholder(b)] or bindings
    if not flow_sensitive:
        return candidates[-1]
    before = [b for b in candidates if b.order < order]
    return before[-1] if before else None


def lookup(scope: Scope, name: str, order: int) -> Optional[Binding]:
    """The binding a use of ``name`` at ``order`` in ``scope`` refers to."""
    current: Optional[Scope] = scope
    deferred = False  # True once we have left a function body: outer code already ran
    while current is not None:
        if deferred and current.kind == "class":
            current = current.parent
            continue
        if name in current.globals and current.parent is not None:
            current = current.module_scope()
            deferred = True
            continue
        bindings = current.bindings.get(name)
        if bindings:
            if current.kind in ("function", "comprehension") and not deferred:
                # Local anywhere in the function: prefer the latest before the use.
                return _choose(bindings, order, True) or bindings[0]
            chosen = _choose(bindings, order, flow_sensitive=not deferred)
            if chosen is not None:
                return chosen
        if current.kind == "function":
            deferred = True
        current = current.parent
    return None


def enclosing_class(scope: Scope) -> Optional[Scope]:
    """The class whose method body ``scope`` is (directly, or through comprehensions)."""
    while scope is not None and scope.kind == "comprehension":
        scope = scope.parent
    if scope is None or scope.kind != "function" or scope.parent is None or scope.parent.kind != "class":
        return None
    return scope.parent


@lru_cache(maxsize=1 << 16)
def canonical(qualname: str) -> str:
    """Apply the longest matching rewrite until none applies (``pytorch_lightning.seed_everything``
    -> ``lightning.pytorch.seed_everything`` -> ``lightning.seed_everything``)."""
    for _ in range(4):  # rewrites are few and acyclic; the bound only guards against mistakes
        best = None
        for prefix, replacement in PREFIX_REWRITES:
            if qualname.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
                best = (prefix, replacement)
        if best is None:
            break
        qualname = best[1] + qualname[len(best[0]):]
    return qualname


class Resolver:
    """Qualified names of expressions: ``np.random.rand`` -> ``numpy.random.rand``.

    An instance created by calling a resolved name gets ``()`` appended
    (``g = torch.Generator(); g.seed`` -> ``torch.Generator().seed``).
    """

    def __init__(self, module_scope: Scope, known_names, assignments=(), star_name=None) -> None:
        self.module_scope = module_scope
        self.known_names = known_names  # for star imports
        self.assignments = assignments  # attribute assignments, for ``self.root = Path(...)``
        # ``(star module, name) -> qualified name``: a project module's star import (``from utils import *``)
        self.star_name = star_name
        self._self_attributes = None

    def resolve(self, expr, scope: Scope, order: int, depth: int = 0) -> Optional[str]:
        raw = self._resolve(expr, scope, order, depth)
        return canonical(raw) if raw else None

    def _resolve(self, expr, scope: Scope, order: int, depth: int) -> Optional[str]:
        if depth > 8:
            return None
        parts = []
        while isinstance(expr, cst.Attribute):
            parts.append(expr.attr.value)
            expr = expr.value
        if isinstance(expr, cst.Name):
            if expr.value == "self" and parts:
                held = self._self_attribute(scope, parts[-1], depth)
                if held is not None:
                    base, parts = held, parts[:-1]
                    return base + "." + ".".join(reversed(parts)) if parts else base
            base = self._resolve_name(expr.value, scope, order, depth)
        elif isinstance(expr, cst.Call):
            inner = self._resolve(expr.func, scope, order, depth + 1)
            base = inner + "()" if inner else None
        elif isinstance(expr, cst.Subscript):
            inner = self._resolve(expr.value, scope, order, depth + 1)
            base = inner + "[]" if inner else None
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Divide):
            # ``root / "images"`` is a Path again when ``root`` is one.
            inner = self._resolve(expr.left, scope, order, depth + 1)
            base = inner if inner and inner.endswith("Path()") else None
        else:
            base = None
        if base is None:
            return None
        if parts:
            return base + "." + ".".join(reversed(parts))
        return base

    def _resolve_name(self, name: str, scope: Scope, order: int, depth: int) -> Optional[str]:
        binding = lookup(scope, name, order)
        if binding is None:
            for module in self.module_scope.star_imports:
                candidate = canonical(module + "." + name)
                if candidate in self.known_names:
                    return candidate
            if self.star_name is not None and name not in _BUILTIN_NAMES:
                for module in self.module_scope.star_imports:
                    found = self.star_name(module, name)
                    if found is not None:
                        return found
            return None
        if binding.kind == "import":
            return binding.value
        if binding.kind == "param" and binding.value is not None:
            # ``root: Path``: an instance of the annotated class.
            annotation = binding.value.annotation
            if isinstance(annotation, (cst.Name, cst.Attribute)):
                kind = self._resolve(annotation, binding.scope.parent or binding.scope, order, depth + 1)
                return kind + "()" if kind else None
            return None
        if binding.kind == "assign" and binding.value is not None:
            value = binding.value
            if isinstance(value, (cst.Call, cst.Attribute, cst.Name, cst.Subscript, cst.BinaryOperation)):
                if isinstance(value, cst.Name) and value.value == name:
                    return None
                return self._resolve(value, binding.scope, binding.order, depth + 1)
        return None

    def _self_attribute(self, scope: Scope, attribute: str, depth: int) -> Optional[str]:
        """``self.root`` in a method: what every ``self.root = ...`` of its class resolves to."""
        klass = enclosing_class(scope)
        if klass is None:
            return None
        if self._self_attributes is None:
            self._self_attributes = {}
            for assignment in self.assignments:
                target, fn = assignment.target, assignment.fn
                if (
                    isinstance(target, cst.Attribute)
                    and isinstance(target.value, cst.Name)
                    and target.value.value == "self"
                    and fn is not None
                    and fn.is_method
                ):
                    key = (id(fn.parent_scope.node), target.attr.value)
                    self._self_attributes.setdefault(key, []).append(assignment)
        found = set()
        for assignment in self._self_attributes.get((id(klass.node), attribute), ()):
            if assignment.value is None:
                return None
            found.add(self._resolve(assignment.value, assignment.scope, assignment.order, depth + 1))
        return found.pop() if len(found) == 1 else None

    def local_function(self, func, scope: Scope, order: int, functions) -> Optional[FunctionInfo]:
        """The function defined in this module that a call's ``func`` refers to, if any."""
        if isinstance(func, cst.Name):
            binding = lookup(scope, func.value, order)
            if binding is not None and binding.kind == "def":
                return functions.get(id(binding.node))
            return None
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in ("self", "cls")
        ):
            klass = scope
            while klass is not None and klass.kind != "class":
                klass = klass.parent
            if klass is not None:
                for binding in klass.bindings.get(func.attr.value, ()):
                    if binding.kind == "def":
                        return functions.get(id(binding.node))
        return None
