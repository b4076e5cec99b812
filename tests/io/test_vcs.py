"""What git knows, asked without letting git's answer exhaust the gate (issue 31, item 7): a version-4 index
crafted so that its names grow with the square of its entries makes `git ls-files` print ~size²/512 bytes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from gate.io import vcs
from tests.io.test_gitindex_hostile import crafted

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def checkout(root: Path, index: bytes | None) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if index is not None:
        (root / ".git/index").write_bytes(index)
    return root


def test_a_listing_of_gigabytes_is_cut_at_the_limit(tmp_path: Path, monkeypatch):
    repo = checkout(tmp_path, crafted(150_000))  # git lists ~44 MB of names
    monkeypatch.setattr(vcs, "LISTING_LIMIT", 1 << 20)
    tracemalloc.start()
    try:
        listed = vcs.tracked(repo, repo / "gate-cache")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert listed, "git lists the crafted names: some of them are the answer"
    assert all(path.parent == repo / "gate-cache" for path in listed)
    assert sum(len(str(p)) for p in listed) < 2 << 20 and peak < 8 << 20, peak


def test_an_ordinary_listing_is_whole(tmp_path: Path):
    repo = checkout(tmp_path, None)
    assert vcs.tracked(repo, repo / "gate-cache") == []
    assert vcs.tracked(tmp_path / "nowhere", tmp_path) is None


def test_git_lists_a_crafted_index_within_bounded_memory(tmp_path: Path):
    """git expands every name of the index in memory (~4 GB for a 1.5 MB crafted index): it is given an address
    space in proportion to the index, and past it the gate reads the index itself. In a child, whose children's
    peak RSS is git's alone."""
    repo = checkout(tmp_path, crafted(300_000))  # ~175 MB of names
    code = ("import resource, sys; from pathlib import Path; from gate.io import vcs; vcs.GIT_MEMORY = 32 << 20; "
            "r = Path(sys.argv[1]); found = vcs.tracked(r, r / 'gate-cache'); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, found is None)")
    done = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True, timeout=60,
                          check=False, env={**os.environ, "PYTHONPATH": str(Path.cwd())})
    peak_kb, refused = done.stdout.split()
    assert int(peak_kb) < 100_000 and refused == "True", done.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_at_git_index_is_cannot_tell_without_waiting_for_git(tmp_path: Path):
    repo = checkout(tmp_path, None)
    os.mkfifo(repo / ".git/index")
    started = time.monotonic()
    assert vcs.tracked(repo, repo / "gate-cache") is None
    assert time.monotonic() - started < vcs.TIMEOUT / 2  # git itself blocks on the FIFO until its timeout
