"""Real training scripts, adapted to run offline on CPU in seconds: one module per case.

Each case module names a pinned copy of public code (``REPO``, ``COMMIT``, ``FILES`` with
their git blob ids) and ``adapt(root)``, our edit of that copy: its data source and size
only (synthetic data instead of a download, fewer epochs and samples).  The copies live
outside this repository; ``benchmarks/real_runs.py`` checks them against the blob ids,
adapts a scratch copy, and runs ``determinism-verify`` before and after ``determinism-fix``.
"""

import hashlib
from pathlib import Path


def replace(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in ``path``: exactly ``count`` times, or fail loudly (a pin
    that moved would otherwise be adapted silently wrong)."""
    text = path.read_text(encoding="utf-8")
    found = text.count(old)
    if found != count:
        raise AssertionError("%s: expected %d of %r, found %d" % (path, count, old, found))
    path.write_text(text.replace(old, new), encoding="utf-8")


def blob_id(data: bytes) -> str:
    """The id git gives a file's bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
