"""Opening a file the workspace names: a regular file only, and never more of it than a limit.

Part of `gate.io`, the leaf every reader of a workspace path builds on (`gate.io.source.read_text`, the records
readers, `gate.io.blobs.read_blob` and so the git index reader). A FIFO, a device, a socket or a directory where a
file is expected is refused before it is read: opening a FIFO for reading blocks until a writer comes, so a named
pipe at `.git/index` or at an input path hung a run forever. The file is opened with O_NONBLOCK (which a FIFO's
open honours and a regular file's reads ignore) and its kind checked on the open descriptor, so a path swapped
for a FIFO after the check cannot block either.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"))


class NotRegular(OSError):
    """`path` names something other than a regular file (a directory raises IsADirectoryError instead)."""

    def __init__(self, path: Path, kind: str):
        super().__init__(errno.EINVAL, f"not a regular file: {kind}", str(path))
        self.kind = kind


class TooLarge(OSError):
    """The file holds more than the reader's limit of bytes."""

    def __init__(self, path: Path, limit: int, size: int | None):
        super().__init__(errno.EFBIG, f"larger than {limit} bytes", str(path))
        self.limit, self.size = limit, size


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for binary reading, buffered; raises NotRegular (IsADirectoryError for a directory) without
    blocking, and OSError as `open` does (FileNotFoundError, PermissionError)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise NotRegular(path, kind_of(mode))
        return open(fd, "rb")  # noqa: SIM115 (the caller owns the stream)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`; TooLarge past `limit` bytes (never reading more than one byte past
    it: a file that grows while it is read, or one whose size the system reports as 0, is bounded too)."""
    with open_regular(path) as stream:
        if limit is None:
            return stream.read()
        size = os.fstat(stream.fileno()).st_size
        if size > limit:
            raise TooLarge(path, limit, size)
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(path, limit, None)
    return data
