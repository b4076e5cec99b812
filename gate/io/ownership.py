"""Files the gate writes belong to the workspace's owner, not to root (issue 32, item 3).

GitHub runs Docker actions as root: every report file, cache entry and model the gate wrote was owned by uid 0, so
the runner's own user could not delete them (later steps failed, a self-hosted runner's clean-up failed). After a
command, what it created or changed under the folders it writes to is handed to the owner of the workspace. Only
when the process runs as root and the workspace belongs to someone else; a link is changed, never followed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


@contextmanager
def handed_back(workspace: Path | None, folders: Callable[[], Iterable[Path]]) -> Iterator[None]:
    """Inside the block the command writes; after it (whatever the outcome) the entries under `folders()` (asked
    only when there is something to hand back) that root created or changed since the block began belong to
    `workspace`'s owner."""
    since = _now(workspace)
    try:
        yield
    finally:
        if workspace is not None:
            hand_back(workspace, folders, since)


def hand_back(workspace: Path, folders: Callable[[], Iterable[Path]], since: float) -> int:
    """Give the owner of `workspace` what root created or changed under `folders` since `since` (the folders
    themselves included); how many entries changed hands. Nothing when this process is not root."""
    owner = _new_owner(workspace)
    if owner is None:
        return 0
    changed = 0
    for folder in folders():
        for path in _ours(Path(folder), since):
            try:
                os.lchown(path, *owner)
                changed += 1
            except OSError:
                continue
    return changed


def _new_owner(workspace: Path) -> tuple[int, int] | None:
    """The (uid, gid) of `workspace`'s owner where what this process writes must change hands: the process is root
    and the workspace is someone else's. None otherwise (or when the workspace cannot be read)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    try:
        found = os.stat(workspace)
    except OSError:
        return None
    return None if found.st_uid == 0 else (found.st_uid, found.st_gid)


def _ours(folder: Path, since: float) -> Iterator[str]:
    """`folder` and everything below it that root owns and that changed since `since` (links not followed)."""
    try:
        top = os.lstat(folder)
    except OSError:
        return
    if top.st_uid == 0 and top.st_ctime >= since:
        yield str(folder)
    if not os.path.isdir(folder) or os.path.islink(folder):
        return
    for directory, names, files in os.walk(folder):
        for name in (*names, *files):
            path = os.path.join(directory, name)
            try:
                found = os.lstat(path)
            except OSError:
                continue
            if found.st_uid == 0 and found.st_ctime >= since:
                yield path


def _now(workspace: Path | None) -> float:
    """The file system's idea of now, less a second (ctime granularity): what is created from here on has a ctime at
    or above it. It is the ctime of a file created and removed in the workspace: a file system stamps ctimes with
    its own clock (an NFS server's, a VM host's for a shared folder), and against this process's clock a skew of a
    second or more would leave what the command wrote to root. The process's clock serves where nothing will be
    handed back (not root, or the workspace is root's) or nothing can be created there."""
    import tempfile
    import time

    fallback = time.time() - 1.0
    if workspace is None or _new_owner(workspace) is None:
        return fallback
    try:
        fd, name = tempfile.mkstemp(prefix=".llm-gate-clock-", dir=workspace)
    except OSError:
        return fallback
    try:
        return os.fstat(fd).st_ctime - 1.0
    finally:
        os.close(fd)
        with suppress(OSError):
            os.unlink(name)
