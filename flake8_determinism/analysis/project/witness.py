"""What one file's lint read of its project: the modules (with their size and modification
time) and the paths it looked for (and whether they were there).  While all of that is as it
was, the file's findings are too (``results.py``)."""

import os
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Tuple

from .store import stamp

# The checks a lookup made: name -> function (``layout`` asks these).
CHECKS = {"exists": os.path.lexists, "isfile": os.path.isfile, "isdir": os.path.isdir}


class Witness:
    def __init__(self) -> None:
        self.modules: Dict[str, Optional[Tuple[int, int]]] = {}
        self.lookups: Dict[Tuple[str, str], bool] = {}

    def as_data(self) -> tuple:
        """Plain data for the cache, in a stable order."""
        return (
            tuple(sorted((path, tuple(found) if found else None) for path, found in self.modules.items())),
            tuple(sorted((check, path, found) for (check, path), found in self.lookups.items())),
        )


_current: List[Optional[Witness]] = [None]


@contextmanager
def recording() -> Iterator[Witness]:
    witness, outer = Witness(), _current[0]
    _current[0] = witness
    try:
        yield witness
    finally:
        _current[0] = outer


def saw_module(path: str, at) -> None:
    witness = _current[0]
    if witness is not None:
        witness.modules[path] = at


def saw_lookup(check: str, path: str, found: bool) -> None:
    witness = _current[0]
    if witness is not None:
        witness.lookups[(check, path)] = found


def still_true(data) -> bool:
    """Is everything a lint read as it was then?"""
    try:
        modules, lookups = data
        for path, at in modules:
            now = stamp(path)
            if (tuple(now) if now else None) != (tuple(at) if at else None):
                return False
        for check, path, found in lookups:
            try:
                if bool(CHECKS[check](path)) != found:
                    return False
            except (OSError, ValueError):
                if found:
                    return False
        return True
    except (TypeError, ValueError, KeyError):
        return False
