"""The project as a linted file sees it: the project a file belongs to (shared in the process),
the file's own view of it (its imports resolved from its path), who imports a module, and the
pre-check's question whether a module imports one of its project's modules."""

import ast
import os
import re
from typing import Dict, FrozenSet, List, Optional, Tuple

from ...tables import seeding as T
from .. import calls as C
from . import summary as S
from .layout import NO_PROJECT, find_root, forget_files
from .model import MAX_FILE_EXPANSIONS, Effects, Module, Project, Target, Use
from .store import stamp
from .witness import saw_module

_projects: Dict[tuple, Project] = {}


def forget() -> None:
    """Forget every project and what the file system looked like: a long-lived process (the
    language server) calls this when files may have changed."""
    _projects.clear()
    forget_files()


def project_for(filename: str, settings) -> Optional[Project]:
    """The project a file belongs to (``--determinism-project-root``), shared in the process."""
    option = getattr(settings, "project_root", "") or ""
    if option.lower() == NO_PROJECT or not filename or filename in ("-", "stdin"):
        return None
    path = os.path.abspath(filename)
    if not os.path.isdir(os.path.dirname(path)):
        return None
    root = os.path.abspath(option) if option else find_root(path)
    key = (root, getattr(settings, "cache", True), settings.seed_functions)
    project = _projects.get(key)
    if project is None:
        project = _projects[key] = Project(root, settings, use_cache=key[1])
    return project


class FileView:
    """The project as one linted file sees it: its imports resolved from its own path."""

    def __init__(self, project: Project, filename: str, syspath: Tuple[str, ...] = ()) -> None:
        self.project = project
        self.path = os.path.abspath(filename)
        self.module = Module(self.path, {"syspath": tuple(syspath)})
        self.extra = project.finder.syspath_additions(self.path, syspath)
        self._targets: Dict[str, Optional[Target]] = {}
        self._spent = 0  # bodies composed for this file's questions

    def target(self, qualname: Optional[str]) -> Optional[Target]:
        if not qualname:
            return None
        if qualname not in self._targets:
            self._targets[qualname] = self.project.resolve(self.module, qualname)
        return self._targets[qualname]

    def call_effects(self, qualname: Optional[str], signature=None) -> Optional[Effects]:
        """What calling ``qualname`` does, when it is the project's; None otherwise.
        ``signature``: (positional count, keywords) of the call, when known."""
        target = self.target(qualname)
        if target is None or self._spent > MAX_FILE_EXPANSIONS:
            return None  # not the project's; or this file has asked enough: unknown from here
        self.project.begin_question()
        effects = self.project.target_effects(target, signature=signature)
        self._spent += self.project._expansions
        return effects

    def import_seeds(self, dotted: str) -> FrozenSet[str]:
        self.project.begin_question()
        return self.project.import_seeds(self.module, dotted)

    def import_effects(self, dotted: str) -> Effects:
        """What importing the project module ``dotted`` does here (EMPTY for a library)."""
        self.project.begin_question()
        return self.project.import_effects(self.module, dotted)

    def star_name(self, star_module: str, name: str) -> Optional[str]:
        """``from utils import *`` then ``name``: ``utils.name`` when the project's ``utils``
        defines or imports it."""
        target = self.target(star_module + "." + name)
        return star_module + "." + name if target is not None else None

    def class_target(self, qualname: Optional[str]) -> Optional[Target]:
        target = self.target(qualname)
        return target if target is not None and target.kind == "class" else None

    def returned_set(self, qualname: Optional[str]) -> str:
        """``utils.py:12`` when the project function ``qualname`` returns a set (of strings or
        unknown elements), else ''."""
        target = self.target(qualname)
        if target is None or target.kind != "function":
            return ""
        found = target.module.summary.get("returns", {}).get(target.key)
        return "%s:%d" % (self.project.relative(target.module.path), found[1]) if found else ""

    def checkpoint_facts(self, qualname: Optional[str]) -> str:
        """What the project function ``qualname`` does with checkpoints: ``summary.checkpoint_facts``
        (``R`` restores an optimizer, ``S`` saves, ``G`` keeps RNG states); '' when nothing."""
        target = self.target(qualname)
        if target is None or target.kind != "function":
            return ""
        return target.module.summary.get("checkpoints", {}).get(target.key, "")

    def returned_draw(self, qualname: Optional[str]) -> Optional[Tuple[str, str, str]]:
        """(``utils.py:12``, framework, what it calls) when the project function ``qualname``
        returns a value drawn from a global RNG or made from the clock, ``os.urandom`` and the
        like (framework ``""``): ``summary.returned_draws``."""
        target = self.target(qualname)
        if target is None or target.kind != "function":
            return None
        found = target.module.summary.get("draws", {}).get(target.key)
        if not found:
            return None
        return "%s:%d" % (self.project.relative(target.module.path), found[0]), found[1], found[2]

    def where(self, use: Use) -> str:
        return "%s:%d" % (self.project.relative(use.path), use.line)

    def config_seeds(self, loader: str) -> Optional[FrozenSet[str]]:
        """What the configuration files that ``loader`` may load seed (tables/seeding.py
        CONFIG_FILE_SEEDERS): the files beside this entry script, and one folder down; None
        when there are none.  Each file read is witnessed: editing one re-lints."""
        suffixes, words = T.CONFIG_FILE_SEEDERS[loader]
        found: Optional[FrozenSet[str]] = None
        for path in _config_files(os.path.dirname(self.path), suffixes, T.CONFIG_FILES_READ):
            saw_module(path, stamp(path))
            try:
                with open(path, "rb") as handle:
                    text = handle.read(1 << 20).decode("utf-8", "replace")
            except OSError:
                continue
            found = (found or frozenset()).union(*(seeds for word, seeds in words.items() if word in text))
        return found


SKIPPED_FOLDERS = frozenset({"site-packages", "dist-packages", "node_modules", "__pycache__", "build", "dist"})
IMPORTERS_SCANNED = 20000  # files: a larger tree is not scanned (the answer is then "unknown")


def importers_of(project: Project, path: str) -> Optional[List[str]]:
    """The project modules that import the module at ``path`` (``determinism-fix`` asks before
    seeding a guard-less script at import time); None when the tree is too large to tell.
    Read at fix time only, never by a lint: each candidate's text is searched for the module's
    name first, and only those are parsed and their imports resolved."""
    target = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(target))[0]
    word = re.compile(r"\b%s\b" % re.escape(stem))
    found, seen = [], 0
    for folder, folders, files in os.walk(project.root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            seen += 1
            if seen > IMPORTERS_SCANNED:
                return None
            candidate = os.path.join(folder, name)
            if candidate == target:
                continue
            try:
                with open(candidate, "rb") as handle:
                    text = handle.read().decode("utf-8", "replace")
            except OSError:
                continue
            if word.search(text) and _imports(project, candidate, text, target):
                found.append(candidate)
    return found


def _imports(project: Project, importer: str, text: str, target: str) -> bool:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    view = FileView(project, importer, S.syspath_additions(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [module] + [module + ("." if module and not module.endswith(".") else "") + a.name
                                for a in node.names]
        else:
            continue
        for dotted in names:
            if dotted and project.finder.find(importer, dotted, view.extra) == target:
                return True
    return False


def _config_files(folder: str, suffixes: Tuple[str, ...], limit: int) -> List[str]:
    """Files ending in ``suffixes`` in ``folder`` and its direct subfolders, sorted, at most ``limit``."""
    found: List[str] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return found
    subfolders = []
    for entry in entries:
        try:
            if entry.is_file() and entry.name.endswith(suffixes):
                found.append(entry.path)
            elif entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                subfolders.append(entry.path)
        except OSError:
            continue
    for sub in subfolders:
        if len(found) >= limit:
            break
        try:
            names = sorted(os.listdir(sub))
        except OSError:
            continue
        found += [os.path.join(sub, n) for n in names if n.endswith(suffixes)]
    return found[:limit]


# The last parts of ``calls.IMPORTERS`` (``import_module``, ``__import__``): what the pre-check looks for.
_IMPORTER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in C.IMPORTERS)


def imports_project_module(tree: ast.Module, path: str, settings) -> bool:
    """Does a module import (anywhere in it) a module of its project?  A few ``stat`` calls."""
    project = project_for(path, settings)
    if project is None:
        return False
    view = FileView(project, path, S.syspath_additions(tree))
    stack = list(tree.body)
    dynamic = False
    while stack:  # statements only: an import is one
        node = stack.pop()
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
            dynamic = dynamic or "importlib" in names
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
            dynamic = dynamic or node.module == "importlib"
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(getattr(node, field, ()) or ())
            continue
        if any(project.finder.find(view.path, name, view.extra) is not None for name in names):
            return True
    # ``importlib.import_module("configs.exp")`` (``calls.dynamic_import``): looked for only in a
    # module that imports importlib.
    return dynamic and any(
        project.finder.find(view.path, node.args[0].value, view.extra) is not None
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and (node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", ""))
        in _IMPORTER_NAMES)
