"""Everything a rule may ask about one file, computed once."""

import ast
from typing import Dict, Iterator, List, Optional, Tuple

import libcst as cst

from .facts import ModuleFacts
from .project.views import FileView, project_for
from .project.ast_values import literal_path
from .index import CallSite, ModuleIndex, build_index, dotted_name
from ..tables.aliases import KNOWN_ROOTS
from .scopes import Resolver, lookup


class FileContext:
    def __init__(
        self, module: cst.Module, settings, known_names, filename: str = "", path: Optional[str] = None
    ) -> None:
        self.module = module
        self.settings = settings
        self.filename = filename  # as flake8 names it ("" when unknown)
        self.path = path  # the file on disk, for its project; None: judged alone
        self._project: object = False  # not looked up yet
        self.index: ModuleIndex = build_index(module)
        self.resolver = Resolver(self.index.module_scope, known_names, self.index.assignments, self._star_name)
        self.calls_by_name: Dict[str, List[CallSite]] = {}
        for site in self.index.calls:
            name = self.qualname(site)
            if name is not None:
                self.calls_by_name.setdefault(name, []).append(site)
        self._facts: Optional[ModuleFacts] = None
        self.scope_bodies: Dict = {}  # analysis/flow.py: one walk per function body, when asked
        self._subclasses: Dict[frozenset, Dict[int, cst.ClassDef]] = {}
        self._sites: Optional[Dict[int, CallSite]] = None

    @property
    def facts(self) -> ModuleFacts:
        if self._facts is None:
            self._facts = ModuleFacts(self.index, self.resolver, self.settings, self.qualname, self.project_view,
                                      self.filename or self.path or "", self.path)
        return self._facts

    @property
    def project(self) -> Optional[FileView]:
        """The project as this file sees it (``analysis/project``); None when judged alone."""
        if self._project is False:
            self._project = None
            project = project_for(self.path, self.settings) if self.path else None
            if project is not None:
                self._project = FileView(project, self.path, self._syspath_additions())
        return self._project

    def project_view(self) -> Optional[FileView]:
        return self.project

    def _syspath_additions(self) -> tuple:
        """The file's literal ``sys.path`` additions (``sys.path.insert(0, "..")``)."""
        found = []
        for site in self.index.calls:
            args = site.node.args
            # Spelled, not resolved: resolving may ask the project, which is being set up.
            if args and dotted_name(site.node.func) in ("sys.path.insert", "sys.path.append"):
                try:
                    value = ast.parse(self.module.code_for_node(args[-1].value).strip(), mode="eval").body
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    continue
                path = literal_path(value)
                if path is not None and path not in found:
                    found.append(path)
        return tuple(found)

    def _star_name(self, star_module: str, name: str) -> Optional[str]:
        project = self.project
        return project.star_name(star_module, name) if project is not None else None

    def qualname(self, site: CallSite) -> Optional[str]:
        if not site.resolved:
            site.qualname = self.resolver.resolve(site.node.func, site.scope, site.order)
            site.resolved = True
        return site.qualname

    def site_of(self, call) -> Optional[CallSite]:
        """The call site of a ``Call`` node of this module (None for a node it did not index)."""
        if self._sites is None:
            self._sites = {id(site.node): site for site in self.index.calls}
        return self._sites.get(id(call))

    def project_calls(self) -> Iterator[Tuple[CallSite, str]]:
        """(call, qualified name) of the calls that may reach this project's own code: named, and
        not in a known library (what a rule asks the project model about)."""
        for site in self.index.calls:
            qualname = self.qualname(site)
            if qualname and qualname.split(".", 1)[0] not in KNOWN_ROOTS:
                yield site, qualname

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
        qualname = self.resolver.resolve(expr, scope, order)
        if qualname in bases:
            return True
        project = self.project if qualname and qualname.split(".", 1)[0] not in KNOWN_ROOTS else None
        if project is not None:
            klass = project.class_target(qualname)  # ``class Images(BaseDataset)``, the base elsewhere
            if klass is not None and not bases.isdisjoint(project.project.library_bases(klass)):
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
