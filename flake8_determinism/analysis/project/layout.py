"""Where a project starts and where its modules are: the root, and imports resolved to files.

Imports are resolved as Python would for a script run from its own directory or from the
root: relative imports from the importer's package; absolute imports from the importer's
directory, the root, ``ROOT/src``, the directory above the importer's top-level package, and
the literal ``sys.path`` additions the importer makes.  Only files under the root count: what
is not found there is a library.  Every lookup is a few ``stat`` calls, remembered for the
process: the project is never listed, so its size does not matter.
"""

import os
from typing import Dict, Iterable, List, Optional, Tuple

from .witness import CHECKS, saw_lookup


MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
# An installed package is a project of its own: the walk up stops below these.
INSTALL_DIRECTORIES = frozenset({"site-packages", "dist-packages"})
NO_PROJECT = "none"

_roots: Dict[str, str] = {}


def find_root(path: str) -> str:
    """The nearest ancestor directory of ``path`` holding a marker, else the file's own
    directory; for a file inside an installed package, that package's directory."""
    start = os.path.dirname(os.path.abspath(path))
    cached = _roots.get(start)
    if cached is not None:
        return cached
    current, below = start, None
    root = start
    while True:
        if os.path.basename(current) in INSTALL_DIRECTORIES:
            root = below or start
            break
        if any(_exists(os.path.join(current, marker)) for marker in MARKERS):
            root = current
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current, below = parent, current
    _roots[start] = root
    return root


def linked_copy_of(path: str, root: str) -> Optional[str]:
    """The project file that ``path`` reaches through a symlink (of the file or of a directory
    under ``root``), when that file is a project file of its own; else None.  Repositories
    link one helper into many recipe folders: the file is judged once, where it lives."""
    absolute = os.path.abspath(path)
    try:
        real = os.path.realpath(absolute)
        real_root = os.path.realpath(root)
    except (OSError, ValueError):
        return None
    relative = os.path.relpath(absolute, os.path.abspath(root))
    if relative.startswith(os.pardir) or real == os.path.join(real_root, relative):
        return None  # outside the root, or no link between the root and the file
    if not os.path.isfile(real):
        return None
    if os.path.commonpath([real, real_root]) != real_root:
        return None  # a link out of the project: this path is the only one that lints it
    return real


_exists_memo: Dict[str, bool] = {}
_isfile_memo: Dict[str, bool] = {}
_isdir_memo: Dict[str, bool] = {}


def _remembered(memo: Dict[str, bool], check: str, path: str) -> bool:
    found = memo.get(path)
    if found is None:
        try:
            found = bool(CHECKS[check](path))
        except (OSError, ValueError):  # a symlink loop, a name the OS rejects
            found = False
        memo[path] = found
    saw_lookup(check, path, found)  # the linted file's findings depend on it (witness.py)
    return found


def _exists(path: str) -> bool:
    return _remembered(_exists_memo, "exists", path)


def isfile(path: str) -> bool:
    return _remembered(_isfile_memo, "isfile", path)


def isdir(path: str) -> bool:
    return _remembered(_isdir_memo, "isdir", path)


def forget_files() -> None:
    """Forget what the file system looked like (a long-lived process: the language server)."""
    for memo in (_roots, _exists_memo, _isfile_memo, _isdir_memo):
        memo.clear()


class Finder:
    """Resolves module names to files under one root."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        self._found: Dict[Tuple[str, str], Optional[str]] = {}

    def inside(self, path: str) -> bool:
        return path == self.root or path.startswith(self.root + os.sep)

    def find(self, importer: str, dotted: str, extra: Iterable[str] = ()) -> Optional[str]:
        """The file of module ``dotted`` (``a.b``, ``..a.b``) imported from ``importer``: a
        ``.py`` file, a package's ``__init__.py``, or a directory (a namespace package)."""
        level = len(dotted) - len(dotted.lstrip("."))
        name = dotted[level:]
        here = os.path.dirname(importer)
        if level:
            base = here
            for _ in range(level - 1):
                base = os.path.dirname(base)
            return self._find_in((base,), name) if name else _package_file(base)
        if not name:
            return None
        # A module of the project shadows a library of the same name, as Python would have it
        # (timm's own repository imports ``timm``): the tables still win for their names.
        return self._find_in(self._bases(here, extra), name)

    def _bases(self, here: str, extra: Iterable[str]) -> List[str]:
        bases = [here, self.root, os.path.join(self.root, "src"), _above_package(here)]
        for added in extra:
            bases.append(added)
        seen, unique = set(), []
        for base in bases:
            if base not in seen and self.inside(base):
                seen.add(base)
                unique.append(base)
        return unique

    def _find_in(self, bases: Iterable[str], name: str) -> Optional[str]:
        for base in bases:
            key = (base, name)
            if key not in self._found:
                self._found[key] = self._lookup(base, name)
            if self._found[key] is not None:
                return self._found[key]
        return None

    def _lookup(self, base: str, name: str) -> Optional[str]:
        path = os.path.join(base, *name.split("."))
        if not self.inside(path):
            return None
        if isfile(path + ".py"):
            return path + ".py"
        if isdir(path):
            init = os.path.join(path, "__init__.py")
            return init if isfile(init) else path
        return None

    def submodule(self, package_file: str, name: str) -> Optional[str]:
        """Module ``name`` inside the package whose ``__init__.py`` (or directory) is given."""
        base = os.path.dirname(package_file) if package_file.endswith("__init__.py") else package_file
        return self._find_in((base,), name)

    def syspath_additions(self, module_path: str, additions: Iterable[str]) -> List[str]:
        """Directories a module's literal ``sys.path`` additions name (relative ones from the
        module's directory and from the root, where a script is usually run)."""
        here = os.path.dirname(module_path)
        found = []
        for added in additions:
            if added.startswith("@"):
                levels, _, tail = added[1:].partition("/")
                base = here
                for _ in range(int(levels or 1) - 1):
                    base = os.path.dirname(base)
                candidates = [os.path.join(base, tail) if tail else base]
            elif os.path.isabs(added):
                candidates = [added]
            else:
                candidates = [os.path.join(here, added), os.path.join(self.root, added)]
            found += [os.path.normpath(c) for c in candidates]
        return found


def _package_file(directory: str) -> Optional[str]:
    init = os.path.join(directory, "__init__.py")
    return init if isfile(init) else (directory if isdir(directory) else None)


def _above_package(here: str) -> str:
    """The directory above the top-level package that holds ``here``."""
    current = here
    while isfile(os.path.join(current, "__init__.py")):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current
