"""What git knows about the working tree: the commit, the branch, and the files a pull request changes.

Used at the edges only (`llm-gate run`, its history entry, `baseline bless`); every failure (no git, a shallow clone
without the base commit, not a repository) is "unknown" (None), never an error.
"""

from __future__ import annotations

import os
import resource
import select
import stat
import subprocess
import time
from pathlib import Path

TIMEOUT = 20  # seconds; a git that hangs (a lock, a network filesystem) must not hang the gate
LISTING_LIMIT = 64 << 20  # bytes of file names: ~800,000 paths, far more than any cache directory a commit holds
GIT_MEMORY = 512 << 20  # address space git may use to list files, beyond 64x the index's size (`_memory_for`)


def _git(cwd: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, timeout=TIMEOUT,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def toplevel(cwd: Path) -> Path | None:
    out = _git(cwd, "rev-parse", "--show-toplevel")
    return Path(out.strip()) if out and out.strip() else None


def head_commit(cwd: Path) -> str | None:
    out = _git(cwd, "rev-parse", "HEAD")
    return out.strip() if out and out.strip() else None


def head_ref(cwd: Path) -> str | None:
    """The checked-out branch as a full ref (`refs/heads/main`, as GITHUB_REF names it); None when detached."""
    out = _git(cwd, "symbolic-ref", "-q", "HEAD")
    return out.strip() if out and out.strip() else None


def changed_files(cwd: Path, base: str, head: str = "HEAD") -> list[Path] | None:
    """Files changed between the merge base of `base` and `head`, and `head` (what a pull request changes),
    as absolute paths; None when git cannot tell (e.g. a shallow clone without the base commit)."""
    root = toplevel(cwd)
    if root is None:
        return None
    out = _git(root, "diff", "--name-only", "--no-renames", f"{base}...{head}")
    if out is None:
        return None
    return [root / line for line in out.splitlines() if line.strip()]


def tracked(cwd: Path, path: Path) -> list[Path] | None:
    """The files under `path` that git tracks in this checkout, as absolute paths, once each (git lists a
    conflicted file once per merge stage); None when git cannot tell (no git, not a repository, `path` outside
    it). At most `LISTING_LIMIT` bytes of names are read: past them git is stopped and the names read so far are
    the answer (some of the files, enough to say that git tracks files there). An index that is not a regular file
    (a FIFO blocks git until its timeout) is None at once, and git reads the index within `_memory_for` it."""
    index = _git(cwd, "rev-parse", "--git-path", "index")  # relative to `cwd`; git reads no index for this
    if index is None or not index.strip():
        return None
    try:
        found = os.stat(cwd / index.strip())
    except FileNotFoundError:
        found = None  # no index yet: git lists nothing
    except OSError:
        return None
    if found is not None and not stat.S_ISREG(found.st_mode):
        return None
    out = _git_bounded(cwd, LISTING_LIMIT, _memory_for(found.st_size if found else 0),
                       "ls-files", "-z", "--", str(path))  # names relative to `cwd`
    if out is None:
        return None
    names = out.split(b"\0")[:-1]  # each name ends with its NUL; a name cut at the limit is left out
    return list(dict.fromkeys(cwd / os.fsdecode(name) for name in names if name))


def _memory_for(index_size: int) -> int:
    """The address space git may use to list an index of `index_size` bytes: git expands every name of the index in
    memory, and a version-4 index crafted so that its names grow with the square of its entries took git ~4 GB from
    1.5 MB. A real index expands to a few times its size; past this git fails and the gate reads the index itself
    (`gate.io.gitindex`, which says "cannot tell" for such an index)."""
    return GIT_MEMORY + 64 * index_size


def _git_bounded(cwd: Path, limit: int, memory: int, *args: str) -> bytes | None:
    """git's output, stopped after `limit` bytes (a version-4 index crafted so that its names grow with the square
    of its entries makes `ls-files` print gigabytes from a 1.5 MB file), git given at most `memory` bytes of address
    space; None when git fails or takes longer than TIMEOUT."""

    def bounded() -> None:  # in the child, before git starts
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, resource.getrlimit(resource.RLIMIT_AS)[1]))
        except (ValueError, OSError):
            pass  # a lower hard limit already bounds it

    try:
        child = subprocess.Popen(["git", "-C", str(cwd), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, preexec_fn=bounded)  # noqa: PLW1509 (no threads touched)
    except OSError:
        return None
    assert child.stdout is not None
    chunks: list[bytes] = []
    size, deadline = 0, time.monotonic() + TIMEOUT
    try:
        while size <= limit:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([child.stdout], [], [], left)[0]:
                return None  # git hangs
            chunk = os.read(child.stdout.fileno(), 1 << 16)
            if not chunk:
                return b"".join(chunks) if child.wait(max(deadline - time.monotonic(), 0.1)) == 0 else None
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)[:limit]
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()
