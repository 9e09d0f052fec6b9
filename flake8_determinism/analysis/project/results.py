"""A linted file's findings, cached: a warm run re-lints only what changed.

A file's findings depend on its text, the settings (the options, and the environment facts
``Settings`` reads), the installed code (the store's folder is named by its stamp), and what
its lint read of the project (``witness.py``): a module another file seeds in, a Dataset
defined elsewhere, a module that did not exist yet.  The cache keeps them all and gives the
findings back only while every one is the same (ruff keeps its diagnostics the same way).
The plugin uses it; the codemod, which needs the trees to fix, does not.
"""

import hashlib
from typing import List, Optional, Tuple

from .layout import linked_copy_of
from .views import project_for
from .store import Store

Found = Tuple[int, int, str, str]  # (line, column, code, message)


class Results:
    def __init__(self, root: str) -> None:
        self.store = Store(root, kind="findings")  # keyed on the installed code (``code_stamp``)

    @staticmethod
    def check(source: str, filename: str, settings) -> tuple:
        digest = hashlib.blake2b(source.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()
        return (repr(tuple(settings)), filename, digest)

    def get(self, path: str, check: tuple) -> Optional[List[Found]]:
        from .witness import still_true

        stored = self.store.get(path, check)
        if not isinstance(stored, tuple) or len(stored) != 2:
            return None
        witnessed, found = stored
        if not still_true(witnessed):
            return None
        return [tuple(f) for f in found]

    def put(self, path: str, check: tuple, witnessed: tuple, found: List[Found]) -> None:
        self.store.put(path, check, (witnessed, tuple(tuple(f) for f in found)))


_results: dict = {}


def linked_copy(path: Optional[str], settings) -> Optional[str]:
    """The project file this path links to (see ``layout.linked_copy_of``), else None."""
    project = project_for(path, settings) if path else None
    return linked_copy_of(path, project.root) if project is not None else None


def results_for(path: Optional[str], settings) -> Optional[Results]:
    """The findings cache of the file's project; None without a project or with the cache off."""
    if not path or not getattr(settings, "cache", False):
        return None
    project = project_for(path, settings)
    if project is None:
        return None
    found = _results.get(project.root)
    if found is None:
        found = _results[project.root] = Results(project.root)
    return found
