"""Everything a rule may ask about one file, computed once."""

from typing import Dict, Iterator, List, Optional

import libcst as cst

from .facts import ModuleFacts
from .index import CallSite, ModuleIndex, build_index, dotted_name
from .scopes import Resolver


class FileContext:
    def __init__(self, module: cst.Module, settings, known_names) -> None:
        self.module = module
        self.settings = settings
        self.index: ModuleIndex = build_index(module)
        self.resolver = Resolver(self.index.module_scope, known_names)
        self.calls_by_name: Dict[str, List[CallSite]] = {}
        for site in self.index.calls:
            name = self.qualname(site)
            if name is not None:
                self.calls_by_name.setdefault(name, []).append(site)
        self._facts: Optional[ModuleFacts] = None

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

    @property
    def imports_torch(self) -> bool:
        return "torch" in self.index.imported_roots
