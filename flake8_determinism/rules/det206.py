from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Iterator

from ..analysis.flow import order_used
from ..tables.data_order import BUILD_ROOTS, BUILD_SCRIPT_NAMES, LISTINGS, PATH_LISTING_METHODS
from .base import Report, Rule, last_parts

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
    file operations, lists sorted afterwards).  Not in ``setup.py`` and other
    build scripts (modules importing setuptools/distutils).

    Why it matters: listings come in file-system order, which differs between
    machines and runs; two listings paired by index (images and masks) silently
    mismatch, and sample order changes.

    Fix: wrap the listing in ``sorted(...)``.
    """

    code = "DET206"
    triggers = last_parts(LISTINGS) | PATH_LISTING_METHODS
    invalid = ("import os\nfiles = os.listdir('data')\nfirst = files[0]\n",)
    valid = (
        "import os\nfiles = sorted(os.listdir('data'))\n",
        "import os\nn = len(os.listdir('data'))\n",
        "import glob\nfiles = glob.glob('*.png')\nfiles.sort()\n",
    )

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
                )
