"""The git index reader on indexes no git wrote (issue 31, item 7): a version-4 index crafted so that its names
grow with the square of its entries, and a FIFO where the index should be. Built by hand: no git needed."""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from gate.io.gitindex import _index_names, tracked_files


def index_v4(names: list[bytes], keep: list[int]) -> bytes:
    """A version-4 index (SHA-1) listing `names`, each stored as "keep `keep[i]` bytes of the previous name"."""
    body = bytearray()
    previous = b""
    for name, kept in zip(names, keep, strict=True):
        assert name[:kept] == previous[:kept]
        strip = len(previous) - kept
        assert strip < 0x80  # one varint byte
        body += bytes(40) + bytes(20) + struct.pack(">H", min(len(name), 0xFFF)) + bytes([strip])
        body += name[kept:] + b"\0"
        previous = name
    data = struct.pack(">4sII", b"DIRC", 4, len(names)) + bytes(body)
    return data + hashlib.sha1(data).digest()


def crafted(size: int, append: int = 64) -> bytes:
    """About `size` bytes of entries that each keep the whole previous name and append `append` bytes: the names
    add up to ~size²/512 bytes (1.5 MB of index named ~4.4 GB)."""
    count = (size - 32) // (64 + append + 1)
    names = [b"gate-cache/" + b"a" * (append * (i + 1)) for i in range(count)]
    return index_v4(names, [0] + [len(n) for n in names[:-1]])


def checkout(tmp_path: Path, index: bytes | None) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/HEAD").write_text("ref: refs/heads/main\n")
    if index is not None:
        (tmp_path / ".git/index").write_bytes(index)
    return tmp_path


def test_a_crafted_version_4_index_is_refused_within_a_linear_budget(tmp_path: Path):
    data = crafted(150_000)  # its names: ~44 MB, read whole before the fix
    tracemalloc.start()
    try:
        names = _index_names(data, 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert names is None  # "cannot tell", as for any index it cannot read
    assert peak < 16 * len(data) + (2 << 20), peak
    repo = checkout(tmp_path, data)
    assert tracked_files(repo, repo / "gate-cache") is None


def test_a_version_4_index_of_long_shared_paths_is_still_read(tmp_path: Path):
    """Deep paths of a kilobyte that differ in their last bytes: within the budget, read exactly."""
    stem = b"gate-cache/" + b"/".join([b"d" * 99] * 10) + b"/"
    names = sorted(stem + b"%05d.npy" % i for i in range(2000))
    keep = [0] + [len(os.path.commonprefix([a, b])) for a, b in zip(names, names[1:], strict=False)]
    data = index_v4(names, keep)
    assert sum(map(len, names)) > 10 * len(data)  # far more name than file
    assert _index_names(data, 20) == names
    repo = checkout(tmp_path, data)
    assert sorted(tracked_files(repo, repo / "gate-cache") or []) == [repo / os.fsdecode(n) for n in names]


def test_no_index_is_nothing_tracked_but_an_unreadable_one_cannot_tell(tmp_path: Path):
    repo = checkout(tmp_path, None)
    assert tracked_files(repo, repo) == []
    (repo / ".git/index").mkdir()
    assert tracked_files(repo, repo) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_at_git_index_is_never_opened_for_a_blocking_read(tmp_path: Path):
    repo = checkout(tmp_path, None)
    os.mkfifo(repo / ".git/index")
    code = ("import sys; from pathlib import Path; from gate.io.gitindex import tracked_files; "
            "r = Path(sys.argv[1]); print(tracked_files(r, r / 'gate-cache'))")
    try:  # in a child: a read that blocks would hang the test run itself
        done = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True, timeout=30,
                              check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("reading the index blocked on the FIFO")
    assert (done.returncode, done.stdout.strip()) == (0, "None"), done.stderr
