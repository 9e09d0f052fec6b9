"""Reading a source file as it is, and writing it back atomically."""

import os
import stat
import tempfile
import tokenize
from io import BytesIO
from typing import NamedTuple


class SourceError(Exception):
    """A file that cannot be read or decoded: one line for the user."""


class Source(NamedTuple):
    path: str
    raw: bytes
    text: str  # decoded, line endings as in the file
    encoding: str  # ``utf-8-sig`` when the file starts with a BOM (written back with it)


def read_source(path: str) -> Source:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except IsADirectoryError:
        raise SourceError("is a directory") from None
    except OSError as error:
        raise SourceError(error.strerror or str(error)) from None
    return decode(path, raw)


def decode(path: str, raw: bytes) -> Source:
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(raw).readline)
        text = raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise SourceError("cannot decode: %s" % str(error).splitlines()[0]) from None
    if "\0" in text:
        raise SourceError("contains NUL bytes")
    return Source(path, raw, text, encoding)


def encode(source: Source, text: str) -> bytes:
    return text.encode(source.encoding)


def write_atomically(source: Source, text: str) -> None:
    """Write ``text`` over ``source.path`` through a temporary file in the same directory and a
    rename, keeping the mode bits; a file that changed since it was read is not overwritten."""
    target = os.path.realpath(source.path)  # through a symlink, not over it
    data = encode(source, text)
    directory = os.path.dirname(target) or "."
    mode = stat.S_IMODE(os.stat(target).st_mode)
    handle, temporary = tempfile.mkstemp(prefix=".determinism-fix-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        with open(target, "rb") as current:
            if current.read() != source.raw:
                raise SourceError("changed while it was being fixed; left as it is")
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
