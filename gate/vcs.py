"""What git knows about the working tree: the commit, the branch, and the files a pull request changes.

Used at the edges only (`llm-gate run`, its history entry, `baseline bless`); every failure (no git, a shallow clone
without the base commit, not a repository) is "unknown" (None), never an error.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

TIMEOUT = 20  # seconds; a git that hangs (a lock, a network filesystem) must not hang the gate


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
    it)."""
    out = _git(cwd, "ls-files", "-z", "--", str(path))  # names relative to `cwd`
    return None if out is None else list(dict.fromkeys(cwd / name for name in out.split("\0") if name))
