"""What the command-line tools (``determinism-fix``, ``determinism-verify``) share when
they write to a terminal."""

import sys


def plural(count: int, noun: str, suffix: str = "s") -> str:
    """``1 file``, ``2 files``; ``plural(2, "fix", "es")``: ``2 fixes``."""
    return "%d %s%s" % (count, noun, "" if count == 1 else suffix)


def escape_what_terminals_cannot_show() -> None:
    """A terminal that cannot show "é" or "—" gets backslash escapes, not a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
