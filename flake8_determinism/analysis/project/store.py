"""Caches on disk under the project root, so a warm run parses no module again.

``ROOT/.determinism_cache/`` (which ignores itself for git, as ruff's cache does) holds one
file per module and kind: a module's summary, valid while the module's size and modification
time are the ones it was summarized at; a linted file's findings (``results.py``), valid while
its text and everything its lint read of the project are unchanged.  Written to a temporary
file and renamed into place, so concurrent writers (``flake8 -j``) and readers never see half
a file; anything unreadable is a miss.  A module that changes while it is summarized is not
stored.  ``marshal`` holds plain data only: a corrupt or hostile file can fail to load, never
run code.

Both kinds are made by this package's code, so each kind's folder is named by a stamp of the
installed code (``code_stamp``: the release and each module's size and modification time) and
the Python version: a changed installation (a new release, an edited checkout, an edited
table) never reads what another made, and the first to write a new folder removes the
folders of that kind that other installations left, but for the two written to last.
"""

import functools
import hashlib
import marshal
import os
import re
import shutil
import sys
import tempfile
from importlib import metadata
from typing import Optional, Tuple

from ... import __version__

CACHE_DIRECTORY = ".determinism_cache"
KEPT_INSTALLATIONS = 3  # folders kept per kind: this installation's and the two others written last
_MAGIC = "flake8-determinism cache"

Stamp = Tuple[int, int]  # (size, mtime in ns)


def stamp(path: str) -> Optional[Stamp]:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_size, info.st_mtime_ns


@functools.lru_cache(maxsize=None)
def code_stamp() -> str:
    """This installation's code: a development checkout (or an editable install) changes its
    rules and tables without changing ``__version__``, and what the old code made must not stand."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    stamp = hashlib.blake2b(__version__.encode(), digest_size=12)
    stamp.update(_libcst_version().encode())  # its parser decides what the rules see
    for folder, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            info = os.stat(os.path.join(folder, name))
            stamp.update(("%s/%s %d %d;" % (folder[len(package):], name, info.st_size, info.st_mtime_ns)).encode())
    return stamp.hexdigest()


def _libcst_version() -> str:
    try:
        return metadata.version("libcst")
    except metadata.PackageNotFoundError:  # pragma: no cover - a dependency
        return ""


class Store:
    """One kind of entry (``summaries``, ``findings``), each keyed by a path and checked by a
    ``check`` value stored with it, in a folder of its own per installed code (``code_stamp``)."""

    def __init__(self, root: str, kind: str = "summaries", code: Optional[str] = None) -> None:
        self.top = os.path.join(root, CACHE_DIRECTORY)
        self.kind = kind
        self.python = "py%d%d" % sys.version_info[:2]
        self.code = code_stamp() if code is None else code
        self.directory = os.path.join(self.top, "%s-%s-%s" % (kind, self.code, self.python))
        self.writable = True
        self._prepared = False

    def _file(self, path: str) -> str:
        return os.path.join(self.directory, hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest() + ".m")

    def get(self, path: str, check) -> Optional[object]:
        """The value stored for ``path`` with ``check``, else None."""
        try:
            with open(self._file(path), "rb") as handle:
                magic, stored_path, stored_check, value = marshal.loads(handle.read())
        except (OSError, EOFError, ValueError, TypeError):
            return None
        if magic != _MAGIC or stored_path != path or stored_check != check:
            return None
        return value

    def put(self, path: str, check, value) -> None:
        if not self.writable:
            return
        try:
            self._prepare()
            data = marshal.dumps((_MAGIC, path, check, value))
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, self._file(path))
            except BaseException:
                _remove(temporary)
                raise
        except (OSError, ValueError):
            self.writable = False  # a read-only checkout, a full disk: run without the cache

    # -- module summaries -----------------------------------------------------------------
    def load(self, path: str, current: Stamp) -> Optional[dict]:
        """A module's summary, if it was made from the module as it is now."""
        summary = self.get(path, tuple(current))
        return summary if isinstance(summary, dict) else None

    def save(self, path: str, at: Stamp, summary: dict) -> None:
        if stamp(path) != at:
            return  # changed while it was summarized: the next run summarizes it again
        self.put(path, tuple(at), summary)

    def _prepare(self) -> None:
        if self._prepared:
            return
        try:
            os.makedirs(self.top, exist_ok=True)
            os.mkdir(self.directory)
        except FileExistsError:
            pass
        else:
            self._remove_stale()
        ignore = os.path.join(self.top, ".gitignore")
        if not os.path.exists(ignore):
            _write_small(ignore, "# Created by flake8-determinism: its cache, never committed.\n*\n")
            _write_small(
                os.path.join(self.top, "CACHEDIR.TAG"),
                "Signature: 8a477f597d28d172789f06886806bc55\n# flake8-determinism's cache\n",
            )
        self._prepared = True

    def _remove_stale(self) -> None:
        """The folders of this kind and Python that other installations' code wrote: all but the
        ``KEPT_INSTALLATIONS - 1`` written to last (another environment linting the same
        project, pre-commit's and the editor's, keeps its own) are never read again."""
        mine = re.compile(r"%s-[0-9a-z]+-%s\Z" % (re.escape(self.kind), self.python))
        others = []
        try:
            for name in os.listdir(self.top):
                path = os.path.join(self.top, name)
                if mine.match(name) and path != self.directory:
                    others.append((os.stat(path).st_mtime_ns, path))
        except OSError:
            return
        for _, path in sorted(others, reverse=True)[KEPT_INSTALLATIONS - 1:]:
            shutil.rmtree(path, ignore_errors=True)


def _write_small(path: str, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
