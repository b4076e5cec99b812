"""Two checkouts of one repository compared file by file: which of the gate's own files (snapshots, baselines,
rubrics) a pull request's tree holds differently from the base branch's (`gate.config.changes`).

Patterns are relative to a tree's root. Only regular files inside the tree count: a link that leads out of it, a
FIFO or a device is reported as such instead of being opened (the pull request's tree is hostile input).
"""

from __future__ import annotations

import glob
import hashlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

MAX_FILES = 10_000  # per tree and pattern set: a gate's own files are few; more is a tree to refuse, not to hash


def digests(root: Path, patterns: Iterable[str]) -> dict[str, str]:
    """Repository-relative path → sha256 of every regular file under `root` that a pattern matches; a link out of
    the tree or a file that is not regular gets a digest saying so (it always differs from a real file's)."""
    base = Path(os.path.realpath(root))
    found: dict[str, str] = {}
    for pattern in patterns:
        for name in glob.iglob(str(root / pattern), recursive=True):
            if len(found) >= MAX_FILES:
                return found
            path = Path(name)
            rel = path.relative_to(root).as_posix()
            if rel in found:
                continue
            digest = _digest(path, base)
            if digest is not None:
                found[rel] = digest
    return found


def read_regular(path: Path, root: Path, limit: int = 1 << 20) -> bytes | None:
    """A regular file's bytes (at most `limit`), when it lies inside `root` (symlinks followed); else None."""
    target = Path(os.path.realpath(path))
    base = Path(os.path.realpath(root))
    if target != base and base not in target.parents:
        return None
    try:
        if not stat.S_ISREG(os.stat(target).st_mode):
            return None
        with open(target, "rb") as stream:
            data = stream.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _digest(path: Path, base: Path) -> str | None:
    target = Path(os.path.realpath(path))
    if target != base and base not in target.parents:
        return "link leaving the tree"
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return None
    if not stat.S_ISREG(mode):
        return "not a regular file"
    digest = hashlib.sha256()
    try:
        with open(target, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "unreadable"
    return digest.hexdigest()
