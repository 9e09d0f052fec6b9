from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Iterator, Optional

from ..analysis.flow import order_used
from .._lazy import cst
from .common import edits
from ..tables.data_order import (
    BUILD_ROOTS, BUILD_SCRIPT_NAMES, ITERATING_BUILTINS, LIST_LISTINGS, LISTINGS, PATH_LISTING_METHODS,
)
from .common.base import Report, Rule, last_parts

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


_CALLED_OR_RENAMED = re.compile(r"\b(?:listdir|scandir|walk|glob|iglob|iterdir|rglob)\s*(?:\(|as\b)")


class UnsortedListing(Rule):
    """DET206: a directory listing whose order is used without sorting.

    What it does: reports ``os.listdir``, ``os.scandir``, ``os.walk``,
    ``glob.glob``/``iglob``, ``Path.glob``/``rglob``/``iterdir`` (also on a Path
    held in a variable or on ``self``, and ``tf.io.gfile``'s) when the order can
    reach the program, followed through local variables (``analysis/flow.py``):
    not when it is sorted before its order is used, nor when it is only counted
    (``len``), tested (``in``, ``if files:``), fed to ``set(...)``/``min``/``max``,
    logged, or looped over doing per-entry work only (a dict keyed by the entry,
    file operations, an output named after the entry, lists sorted afterwards;
    a loop by ``enumerate`` or ``range(len(...))`` whose position is only
    reported).  Default mode takes a call in the loop's body for per-entry work
    unless it is seen to keep state across entries (training, updating, writing
    to one shared file, loading); strict mode assumes any call may.  Not in ``setup.py`` and other
    build scripts (modules importing setuptools/distutils).

    Why it matters: listings come in file-system order, which differs between
    machines and runs; two listings paired by index (images and masks) silently
    mismatch, and sample order changes.

    Fix: wrap the listing in ``sorted(...)``.
    """

    code = "DET206"
    fixes = "sometimes"
    triggers = last_parts(LISTINGS) | PATH_LISTING_METHODS
    invalid = ("import os\nfiles = os.listdir('data')\nfirst = files[0]\n",)
    valid = (
        "import os\nfiles = sorted(os.listdir('data'))\n",
        "import os\nn = len(os.listdir('data'))\n",
        "import glob\nfiles = glob.glob('*.png')\nfiles.sort()\n",
    )
    sources = (
        (
            "``os.listdir``: the list is in arbitrary order.",
            "https://docs.python.org/3/library/os.html#os.listdir",
        ),
        (
            "``glob.glob``: whether or not the results are sorted depends on the file system.",
            "https://docs.python.org/3/library/glob.html#glob.glob",
        ),
        (
            "``Path.iterdir``: the children are yielded in arbitrary order.",
            "https://docs.python.org/3/library/pathlib.html#pathlib.Path.iterdir (facts §10)",
        ),
    )
    fix_description = (
        "Wraps the listing in ``sorted(...)`` (``list(x)`` becomes ``sorted(x)``); ``os.scandir`` gets "
        "``key=lambda entry: entry.name``; ``os.walk`` gets ``dirs.sort()`` and ``files.sort()`` first "
        "thing in its loop. Safe, except for an iterator (``iglob``, ``Path.glob``) used other than by "
        "iterating it: unsafe. ``with os.scandir(...)``: not fixed."
    )
    scope_note = "Not reported in ``setup.py`` or in modules that import setuptools/distutils."

    def might_fire(self, text, settings) -> bool:
        # A listing function called, or renamed on import (``from os import walk as w``).
        return super().might_fire(text, settings) and text.search(_CALLED_OR_RENAMED)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        if os.path.basename(ctx.filename) in BUILD_SCRIPT_NAMES or ctx.index.imported_roots & BUILD_ROOTS:
            return  # a build script: sources and package data in build order, not a result
        for site in ctx.index.calls:
            name = ctx.qualname(site)
            if not name:
                continue
            listing = name in LISTINGS or (name.startswith("pathlib.") and site.method_name in PATH_LISTING_METHODS)
            if listing and order_used(ctx, site.node, site):
                yield Report(
                    site.node,
                    "%s() returns entries in arbitrary file-system order, which differs between machines and runs"
                    " — wrap it in sorted(...)" % ctx.spelling(site),
                    fix=_fix(ctx, site, name),
                )


def _fix(ctx: FileContext, site, name: str) -> Optional[edits.Fix]:
    """``sorted(...)`` around the listing; ``os.scandir`` by name; ``os.walk`` by sorting
    ``dirs`` and ``files`` in its loop.  An iterator used other than by iterating it
    (``next(...)``, ``.close()``) gets the fix as unsafe."""
    parent = ctx.index.parents.get(id(site.node))
    if name == "os.walk":
        loop = parent if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is site.node else None
        if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Tuple) or len(loop.target.elements) != 3:
            return None
        names = [e.value.value for e in loop.target.elements[1:] if isinstance(e.value, cst.Name)]
        return edits.sort_in_loop(loop, names, "sort dirs and files in the loop") if len(names) == 2 else None
    if isinstance(parent, cst.WithItem):
        return None  # ``with os.scandir(p) as it``: a context manager, not a list
    safe = name in LIST_LISTINGS or _only_iterated(ctx, site, parent)
    key = "lambda entry: entry.name" if name == "os.scandir" else None
    return edits.sorted_fix(ctx, site.node, "wrap in sorted(...)", safe, key)


def _only_iterated(ctx: FileContext, site, parent) -> bool:
    if isinstance(parent, (cst.For, cst.CompFor)):
        return parent.iter is site.node
    if isinstance(parent, cst.Arg):
        call = ctx.index.parents.get(id(parent))
        return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in ITERATING_BUILTINS
    return False
