"""What git knows, asked without letting git's answer exhaust the gate (issue 31, item 7): a version-4 index
crafted so that its names grow with the square of its entries makes `git ls-files` print ~size²/512 bytes."""

from __future__ import annotations

import shutil
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from gate import vcs
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
