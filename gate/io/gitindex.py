"""The files a checkout's git index lists, read without git: for the Docker action, whose image carries no git
(and where a git would refuse a workspace another user owns), so that `gate.steps.model_work`'s refusal of a
committed cache holds there too. `gate.io.vcs.tracked` asks git first; this is its fallback.

Reproduces what `git ls-files -- PATH` lists for the index formats git writes (Documentation/gitformat-index.txt:
versions 2, 3 and 4, SHA-1 and SHA-256 object names, extended flags, prefix-compressed names, merge stages). A
sparse index's directory entry (`dir/`) stands for every file under it and is listed as the directory. Whatever
it cannot read with certainty -- a split index (its entries live in a second file), an unknown version, a
truncated or foreign file, no repository -- is None ("cannot tell"), never an error.
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

from gate.io.blobs import read_blob

_HEADER = struct.Struct(">4sII")  # "DIRC", version, number of entries
_STAT = 40  # ctime, mtime (seconds and nanoseconds each), dev, ino, mode, uid, gid, size: ten 32-bit fields
_HASH_SIZE = {"sha1": 20, "sha256": 32}
_EXTENDED = 0x4000
_NAME_MASK = 0x0FFF
_SPLIT_INDEX = b"link"  # the extension of a split index: most entries are in .git/sharedindex.<hash>
# Version 4 stores each name as "drop N bytes of the previous name, then append these": an entry of ~64 bytes can
# name a path as long as all before it, so a crafted 1.5 MB index named ~4 GB of paths (memory grew with the square
# of its entries). What the names may add up to is bounded by the file: a real index's names take about as many
# bytes as its entries (one of ~64 bytes and a path of ~80); 16x leaves room for paths of a kilobyte that differ
# in a few bytes each, and the slack covers a small index with one long path. Past it: None ("cannot tell", as
# for any index this cannot read; `gate.io.vcs.tracked` asks git first).
_NAMES_PER_BYTE = 16
_NAMES_SLACK = 1 << 20
_OBJECT_FORMAT = re.compile(rb"^\s*objectformat\s*=\s*(\w+)\s*$", re.IGNORECASE | re.MULTILINE)


def tracked_files(start: Path, path: Path) -> list[Path] | None:
    """The files (and sparse directories) under `path` that the index of the checkout holding `start` lists, as
    absolute paths; None when it cannot tell (see the module)."""
    found = _checkout(start.resolve())
    if found is None:
        return None
    root, git_dir = found
    try:
        relative = path.resolve().relative_to(root).as_posix()
    except ValueError:  # outside the checkout, as git ls-files refuses it
        return None
    data, config = read_blob(git_dir / "index"), read_blob(_common_dir(git_dir) / "config")
    if data is None:  # a repository without an index tracks nothing yet; one it cannot read (a FIFO): cannot tell
        return [] if (git_dir / "HEAD").is_file() and not os.path.lexists(git_dir / "index") else None
    hash_size = _HASH_SIZE.get(_object_format(config or b""))
    names = None if hash_size is None else _index_names(data, hash_size)
    if names is None:
        return None
    if relative != ".":
        exact = os.fsencode(relative)
        prefix = exact + b"/"
        names = [name for name in names if name == exact or name.startswith(prefix)
                 or (name.endswith(b"/") and prefix.startswith(name))]  # or a sparse directory holding `path`
    return [root / os.fsdecode(name).rstrip("/") for name in names]


def _index_names(data: bytes, hash_size: int) -> list[bytes] | None:
    """Every path an index file lists, once each and in index order; None for what this does not read, and for
    an index whose names would hold more than `_NAMES_PER_BYTE` bytes per byte of the file (see `_NAMES_PER_BYTE`)."""
    if len(data) < _HEADER.size:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3, 4):
        return None
    names: list[bytes] = []
    offset, previous = _HEADER.size, b""
    budget = _NAMES_PER_BYTE * len(data) + _NAMES_SLACK  # bytes of names this file may expand to
    try:
        for _ in range(count):
            start = offset
            (flags,) = struct.unpack_from(">H", data, start + _STAT + hash_size)
            offset = start + _STAT + hash_size + 2
            if flags & _EXTENDED:
                if version < 3:
                    return None
                offset += 2
            if version == 4:
                strip, offset = _varint(data, offset)
                end = data.index(b"\0", offset)
                if strip > len(previous):
                    return None
                name = previous[:len(previous) - strip] + data[offset:end]
                offset = end + 1
            else:
                end = data.index(b"\0", offset)
                name = data[offset:end]
                offset = start + ((end - start + 8) & ~7)  # NUL-padded to a multiple of eight bytes
            if (flags & _NAME_MASK) != min(len(name), _NAME_MASK):  # the entry says how long its name is
                return None
            if name != previous:  # the stages of a conflicted path are consecutive entries of one name
                budget -= len(name)
                if budget < 0:
                    return None
                names.append(name)
            previous = name
    except (struct.error, ValueError, IndexError):
        return None
    if offset > len(data) - hash_size or _has_extension(data, offset, len(data) - hash_size, _SPLIT_INDEX):
        return None
    return names


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset varint (varint.c): 7 bits a byte, high bit set on all but the last, +1 per continuation."""
    byte = data[offset]
    offset += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[offset]
        offset += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, offset


def _has_extension(data: bytes, offset: int, end: int, wanted: bytes) -> bool:
    """Whether the extensions between the entries and the trailing checksum include `wanted`; an unreadable
    extension area counts as having it (cannot tell)."""
    while offset + 8 <= end:
        signature, size = struct.unpack_from(">4sI", data, offset)
        if signature == wanted:
            return True
        offset += 8 + size
    return offset != end


def _checkout(start: Path) -> tuple[Path, Path] | None:
    """The working tree's top directory and its git directory: the nearest `.git` from `start` upwards, a
    directory or a `gitdir:` file (a worktree, a submodule)."""
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return directory, dot_git
        if dot_git.is_file():
            text = read_blob(dot_git) or b""
            if not text.startswith(b"gitdir:"):
                return None
            target = Path(os.fsdecode(text[len(b"gitdir:"):].strip()))
            git_dir = (directory / target).resolve()
            return (directory, git_dir) if git_dir.is_dir() else None
    return None


def _common_dir(git_dir: Path) -> Path:
    """Where a worktree's shared files (the config) live: `commondir` names it, relative to the git directory."""
    named = read_blob(git_dir / "commondir")
    return (git_dir / os.fsdecode(named.strip())).resolve() if named else git_dir


def _object_format(config: bytes) -> str:
    found = _OBJECT_FORMAT.search(config)
    return found.group(1).decode("ascii").lower() if found else "sha1"
