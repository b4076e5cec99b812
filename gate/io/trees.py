"""Two checkouts of one repository compared file by file: which of the gate's own files (snapshots, baselines,
rubrics) a pull request's tree holds differently from the base branch's (`gate.config.changes`).

Patterns are relative to a tree's root. Only regular files inside the tree count: a link that leads out of it, a
FIFO or a device is reported as such instead of being opened (the pull request's tree is hostile input).
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from gate.io import regular

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


def read_inside(path: Path, root: Path, limit: int = 1 << 20) -> bytes | None:
    """A regular file's bytes (at most `limit`), when it lies inside `root` (symlinks followed); else None."""
    target = Path(os.path.realpath(path))
    if not _inside(target, Path(os.path.realpath(root))):
        return None
    try:
        return regular.read_regular(target, limit)
    except OSError:  # missing, unreadable, not a regular file, past the limit
        return None


def _digest(path: Path, base: Path) -> str | None:
    target = Path(os.path.realpath(path))
    if not _inside(target, base):
        return "link leaving the tree"
    digest = hashlib.sha256()
    try:
        with regular.open_regular(target) as stream:  # never blocks on a FIFO, as every workspace read
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except IsADirectoryError:
        return None
    except regular.NotRegular:
        return "not a regular file"
    except FileNotFoundError:
        return None
    except OSError:
        return "unreadable"
    return digest.hexdigest()


def _inside(target: Path, base: Path) -> bool:
    return target == base or base in target.parents
