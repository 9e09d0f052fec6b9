"""Reading a source file as it is, and writing it back atomically.

Every failure is a ``SourceError`` whose message is one line for the user
(``determinism-fix: PATH: message``); the file is then left exactly as it was.
"""

import os
import re
import stat
import tempfile
import tokenize
from io import BytesIO
from typing import NamedTuple

# PEP 263: a coding cookie on the first or second line.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))
TEMPORARY_PREFIX = ".determinism-fix-"  # a temporary file is ``.determinism-fix-NAME.XXXXXXXX.tmp``
TEMPORARY_SUFFIX = ".tmp"


class SourceError(Exception):
    """A file that cannot be read, decoded or written: one line for the user."""


class Source(NamedTuple):
    path: str
    raw: bytes
    text: str  # decoded, line endings as in the file
    encoding: str  # ``utf-8-sig`` when the file starts with a BOM (written back with it)


def read_source(path: str) -> Source:
    """The file's bytes and text.  Never blocks: a named pipe (or any file that is not a
    regular file) is refused before it is read."""
    try:
        # O_NONBLOCK: opening a named pipe would otherwise wait for a writer, forever.
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        if os.path.islink(path):
            raise SourceError("is a dangling symlink (to %s, which does not exist)" % os.readlink(path)) from None
        raise SourceError("No such file or directory") from None
    except IsADirectoryError:
        raise SourceError("is a directory") from None
    except OSError as error:
        raise SourceError(error.strerror or str(error)) from None
    try:
        mode = os.fstat(handle).st_mode
        if stat.S_ISDIR(mode):
            raise SourceError("is a directory")
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "a special file")
            raise SourceError("is %s, not a regular file; not read" % kind)
        with os.fdopen(handle, "rb") as stream:
            handle = -1
            raw = stream.read()
    except OSError as error:
        raise SourceError(error.strerror or str(error)) from None
    finally:
        if handle != -1:
            os.close(handle)
    return decode(path, raw)


def decode(path: str, raw: bytes) -> Source:
    cookie = any(_COOKIE.match(first) for first in raw.splitlines()[:2])
    try:
        try:
            encoding, _ = tokenize.detect_encoding(BytesIO(raw).readline)
        except SyntaxError:
            if cookie:
                raise
            encoding = "utf-8"  # no cookie, and one of the first two lines is not UTF-8: say where
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        if cookie:
            said = "valid %s, the encoding its coding cookie declares" % encoding
        else:
            said = "UTF-8, and no coding cookie declares another encoding"
        raise SourceError("cannot decode: byte 0x%02x on line %d is not %s" % (raw[error.start], line, said)) from None
    except (SyntaxError, LookupError) as error:
        raise SourceError("cannot decode: %s" % str(error).splitlines()[0]) from None
    if "\0" in text:
        raise SourceError("contains NUL bytes (line %d)" % (text[:text.index("\0")].count("\n") + 1))
    return Source(path, raw, text, encoding)


def encode(source: Source, text: str) -> bytes:
    return text.encode(source.encoding)


def write_atomically(source: Source, text: str) -> None:
    """Write ``text`` over ``source.path`` through a temporary file in the same directory and a
    rename, keeping the mode bits and the owner; through a symlink, not over it.

    Refused, the file left as it is (``SourceError``): a read-only file (no write permission
    bit, or not writable by us: the rename would replace it all the same, even as root), a
    file that changed or was deleted since it was read.  If the process is killed before the
    rename, the file is intact and a ``.determinism-fix-NAME.XXXXXXXX.tmp`` may be left
    beside it (never read as source: it does not end in ``.py``)."""
    target = os.path.realpath(source.path)
    data = encode(source, text)
    directory = os.path.dirname(target) or "."
    try:
        status = os.stat(target)
    except FileNotFoundError:
        raise SourceError("was deleted while it was being fixed; not written") from None
    except OSError as error:
        raise SourceError("cannot write: %s" % (error.strerror or error)) from None
    mode = stat.S_IMODE(status.st_mode)
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise SourceError("is read-only (mode %04o); left as it is" % mode)
    if not os.access(target, os.W_OK):
        raise SourceError("is not writable by this user (mode %04o); left as it is" % mode)
    temporary = ""
    try:
        handle, temporary = tempfile.mkstemp(
            prefix="%s%s." % (TEMPORARY_PREFIX, os.path.basename(target)[:80]), suffix=TEMPORARY_SUFFIX,
            dir=directory)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        _keep_owner(temporary, status)  # first: a change of owner may clear the set-id bits
        os.chmod(temporary, mode)
        try:
            with open(target, "rb") as current:
                if current.read() != source.raw:
                    raise SourceError("changed while it was being fixed; left as it is")
        except FileNotFoundError:
            raise SourceError("was deleted while it was being fixed; not written") from None
        os.replace(temporary, target)
        temporary = ""
    except OSError as error:
        raise SourceError("cannot write: %s" % (error.strerror or error)) from None
    finally:
        if temporary and os.path.lexists(temporary):
            os.unlink(temporary)


def _keep_owner(temporary: str, status: os.stat_result) -> None:
    """The new file gets the old one's owner and group (run as root on a user's file, the rename
    would otherwise hand it to root); when that is not allowed, the file is left as it is."""
    if not hasattr(os, "chown"):
        return
    mine = os.stat(temporary)
    if (mine.st_uid, mine.st_gid) == (status.st_uid, status.st_gid):
        return
    try:
        os.chown(temporary, status.st_uid, status.st_gid)
    except PermissionError:
        raise SourceError("is owned by another user or group (%d:%d) that the rewritten file could not keep;"
                          " left as it is" % (status.st_uid, status.st_gid)) from None
