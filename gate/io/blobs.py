"""Small content-addressed files for the persistent cache (`gate.runtime.work.cache`): the file operations only
(entries one file each, and packs read at offsets).

Writes are atomic (`gate.io.write.write_bytes_atomic`), so a reader (another run sharing the directory, or
`actions/cache` saving it) sees a whole entry or none. Without fsync: a cache entry lost or torn by a crash
is detected by its checksum on the next read and recomputed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from gate.io.regular import open_regular, read_regular
from gate.io.write import is_temporary, write_bytes_atomic

LEGACY_TEMP_PREFIX = ".tmp-"  # how earlier versions named temporary files: a restored cache may still hold some
STALE_TEMP_SECONDS = 3600  # a temp file this old belongs to a run that died mid-write


@dataclass(frozen=True)
class BlobFile:
    path: Path
    size: int
    mtime: float


def read_blob(path: Path) -> bytes | None:
    """The file's bytes, or None when it is absent, unreadable or not a regular file (a miss, never an error; a
    FIFO is refused without blocking, `gate.io.regular`)."""
    try:
        return read_regular(path)
    except OSError:
        return None


def write_blob(path: Path, data: bytes) -> None:
    """Atomically create or replace `path`; raises OSError (unwritable directory, disk full)."""
    write_bytes_atomic(path, data, fsync=False)


def touch(path: Path) -> None:
    """Mark an entry as just used (eviction is least-recently-used by mtime; atime is often not kept)."""
    try:
        os.utime(path)
    except OSError:
        pass


class BlobReader:
    """An open file read at offsets (a pack); a failed read is None, never an error. A file another run removes
    meanwhile stays readable through this handle (POSIX)."""

    def __init__(self, path: Path, handle: BinaryIO):
        self.path = path
        self._handle = handle

    def read(self, offset: int, length: int) -> bytes | None:
        try:
            self._handle.seek(offset)
            data = self._handle.read(length)
        except (OSError, ValueError):
            return None
        return data if len(data) == length else None

    def close(self) -> None:
        self._handle.close()


def open_reader(path: Path) -> BlobReader | None:
    try:
        return BlobReader(path, open_regular(path))
    except OSError:
        return None


def files_named(directory: Path, suffix: str) -> list[Path]:
    """The files directly in `directory` whose names end with `suffix` (temp files excluded), sorted; none when
    the directory is absent or unreadable."""
    try:
        with os.scandir(directory) as entries:
            return sorted(Path(e.path) for e in entries
                          if e.name.endswith(suffix) and not is_temporary(e.name) and e.is_file())
    except OSError:
        return []


def remove(path: Path) -> bool:
    return _unlink(path)


def walk(root: Path) -> Iterator[BlobFile]:
    """Every entry under `root`; temp files of runs that died long ago are deleted on the way."""
    now = time.time()
    for directory, _, names in os.walk(root):
        for name in names:
            path = Path(directory, name)
            try:
                stat = path.stat()
            except OSError:
                continue  # removed by a concurrent run
            if is_temporary(name) or name.startswith(LEGACY_TEMP_PREFIX):
                if now - stat.st_mtime > STALE_TEMP_SECONDS:
                    _unlink(path)
                continue
            yield BlobFile(path, stat.st_size, stat.st_mtime)


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except OSError:
        return False
