"""Everything a rule may ask about one file, computed once."""

from typing import Dict, Iterator, List, Optional

import libcst as cst

from .facts import ModuleFacts
from .index import CallSite, ModuleIndex, build_index, dotted_name
from .scopes import Resolver, lookup


class FileContext:
    def __init__(self, module: cst.Module, settings, known_names, filename: str = "") -> None:
        self.module = module
        self.settings = settings
        self.filename = filename  # as flake8 names it ("" when unknown)
        self.index: ModuleIndex = build_index(module)
        self.resolver = Resolver(self.index.module_scope, known_names, self.index.assignments)
        self.calls_by_name: Dict[str, List[CallSite]] = {}
        for site in self.index.calls:
            name = self.qualname(site)
            if name is not None:
                self.calls_by_name.setdefault(name, []).append(site)
        self._facts: Optional[ModuleFacts] = None
        self.scope_bodies: Dict = {}  # analysis/flow.py: one walk per function body, when asked
        self._subclasses: Dict[frozenset, Dict[int, cst.ClassDef]] = {}

    @property
    def facts(self) -> ModuleFacts:
        if self._facts is None:
            self._facts = ModuleFacts(self.index, self.resolver, self.settings, self.qualname)
        return self._facts

    def qualname(self, site: CallSite) -> Optional[str]:
        if not site.resolved:
            site.qualname = self.resolver.resolve(site.node.func, site.scope, site.order)
            site.resolved = True
        return site.qualname

    def calls_to(self, names) -> Iterator[CallSite]:
        """Calls whose callee resolves to one of ``names``, in source order."""
        found = []
        for name in names if len(names) < len(self.calls_by_name) else self.calls_by_name:
            if name in names:
                found.extend(self.calls_by_name.get(name, ()))
        found.sort(key=lambda s: s.order)
        return iter(found)

    def resolve(self, expr, site: CallSite) -> Optional[str]:
        return self.resolver.resolve(expr, site.scope, site.order)

    @staticmethod
    def spelling(site: CallSite) -> str:
        """How the callee is written in the source (``np.random.rand``)."""
        return dotted_name(site.node.func) or site.method_name or "call"

    def local_subclasses(self, bases) -> Dict[int, cst.ClassDef]:
        """Classes defined here that derive (directly or through each other) from ``bases``."""
        key = frozenset(bases)
        cached = self._subclasses.get(key)
        if cached is not None:
            return cached
        found: Dict[int, cst.ClassDef] = {}
        changed = True
        while changed:
            changed = False
            for node, body_scope, order in self.index.classes:
                if id(node) in found:
                    continue
                for arg in node.bases:
                    if self._is_base(arg.value, body_scope.parent, order, key, found):
                        found[id(node)] = node
                        changed = True
                        break
        self._subclasses[key] = found
        return found

    def _is_base(self, expr, scope, order, bases, found) -> bool:
        if self.resolver.resolve(expr, scope, order) in bases:
            return True
        if isinstance(expr, cst.Name):
            binding = lookup(scope, expr.value, order)
            return binding is not None and binding.kind == "class" and id(binding.node) in found
        return False

    def called_class(self, site: CallSite) -> Optional[cst.ClassDef]:
        """The class defined here that a call instantiates, if any."""
        func = site.node.func
        if isinstance(func, cst.Name):
            binding = lookup(site.scope, func.value, site.order)
            if binding is not None and binding.kind == "class":
                return binding.node
        return None

    @property
    def imports_torch(self) -> bool:
        return "torch" in self.index.imported_roots
