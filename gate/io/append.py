"""Appending whole lines to a shared file: concurrent appenders (processes, CI jobs on one disk) never
interleave, and a line torn by a crashed writer never swallows the next one.

Part of `gate.io`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from gate.io.regular import read_regular

try:  # POSIX; elsewhere appends rely on O_APPEND alone
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]


def append_line_locked(path: Path, line: str, unless: Callable[[bytes], bool] | None = None) -> bool:
    """Append `line` + newline under an exclusive flock, in one write, then fsync; True when appended.

    `unless` sees the file's bytes, read under the same lock: when it returns True nothing is appended. A
    check made before taking the lock ("is this run already recorded?") would let two concurrent writers
    both pass it; made here, the second one sees the first one's line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            size = os.fstat(fd).st_size
            if unless is not None and unless(_read_all(fd, size)):
                return False
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # a writer crashed mid-line: leave its fragment on a line of its own
            written = os.write(fd, data)
            while written < len(data):  # short writes (full disk, signals) are finished under the same lock
                written += os.write(fd, data[written:])
            os.fsync(fd)
            return True
        finally:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    chunks, offset = [], 0
    while offset < size:
        chunk = os.pread(fd, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def read_bytes_or_empty(path: Path) -> bytes:
    """A file's bytes; b"" when it does not exist yet (an empty history, a first run). A path that is not a regular
    file raises `gate.io.regular.NotRegular` (an OSError) at once: a FIFO is never read."""
    try:
        return read_regular(path)
    except FileNotFoundError:
        return b""
