"""The persistent model-output cache: entries never trusted, faults cost speed only, LRU size cap, concurrency."""

from __future__ import annotations

import multiprocessing
import resource
import signal
from pathlib import Path

import numpy as np
import pytest

from gate.io import blobs
from gate.io.write import is_temporary
from gate.runtime.work.cache import MAGIC, ArrayCache, decode_entry, encode_entry

NS = ArrayCache.namespace("embedding", "sha256:abc", "cpu", "float32")


def entry_files(cache: ArrayCache) -> list[Path]:
    return sorted(f.path for f in blobs.walk(cache.root))


def test_an_entry_round_trips_bitwise():
    value = np.random.default_rng(0).standard_normal((7, 5)).astype(np.float32)
    array, flag = decode_entry(encode_entry("k" * 64, value, True), "k" * 64)
    assert flag is True and array.dtype == np.float32 and np.array_equal(array, value)


@pytest.mark.parametrize("damage", [
    lambda raw: raw[:-1],  # torn write
    lambda raw: raw[:len(MAGIC) + 2],  # header cut
    lambda raw: raw[:-4] + bytes(4),  # payload changed: the checksum catches it
    lambda raw: b"garbage" + raw,  # not an entry
    lambda raw: raw.replace(b'"float32"', b'"float64"'),  # a header that lies about the payload
    lambda raw: b"",
], ids=["torn", "header-cut", "payload-flipped", "garbage", "lying-header", "empty"])
def test_damaged_entries_are_rejected(damage):
    raw = encode_entry("k" * 64, np.arange(6, dtype=np.float32), False)
    assert decode_entry(damage(raw), "k" * 64) is None


def test_an_entry_of_another_key_is_rejected():
    """A file renamed or copied under another key (or a hash collision) is not trusted."""
    raw = encode_entry("a" * 64, np.ones(3, dtype=np.float32), False)
    assert decode_entry(raw, "b" * 64) is None


def test_put_then_get_and_misses_are_counted(tmp_path):
    cache = ArrayCache(tmp_path, 2**30)
    cache.put(NS, "hello", np.full(4, 0.5, np.float32), True)
    found = cache.get_many(NS, ["hello", "unseen", "hello"])
    assert list(found) == ["hello"] and found["hello"][1] is True
    assert np.array_equal(found["hello"][0], np.full(4, 0.5, np.float32))
    assert cache.get_many(ArrayCache.namespace("another model"), ["hello"]) == {}  # namespaces never mix
    stats = cache.finish()
    assert (stats.hits, stats.misses, stats.written, stats.rejected) == (1, 2, 1, 0)


def test_a_corrupt_entry_on_disk_is_deleted_and_missed(tmp_path):
    cache = ArrayCache(tmp_path, 2**30)
    cache.put(NS, "hello", np.ones(4, np.float32))
    cache.flush()  # one small entry: a loose file
    (path,) = entry_files(cache)
    path.write_bytes(path.read_bytes()[:-3])
    assert cache.get_many(NS, ["hello"]) == {}
    assert not path.exists() and cache.finish().rejected == 1


def test_an_entry_of_the_wrong_shape_for_the_model_is_deleted(tmp_path):
    cache = ArrayCache(tmp_path, 2**30)
    cache.put(NS, "hello", np.ones(4, np.float32))
    assert cache.get_many(NS, ["hello"], expect=lambda text, v: v.shape == (384,)) == {}
    assert entry_files(cache) == []


def test_a_disabled_cache_reads_and_writes_nothing(tmp_path):
    cache = ArrayCache(None, 2**30)
    cache.put(NS, "hello", np.ones(4, np.float32))
    assert not cache.enabled and cache.get_many(NS, ["hello"]) == {}
    assert cache.finish().misses == 1


def test_an_unwritable_cache_directory_costs_speed_not_the_run(tmp_path):
    """The cache directory's place is taken by a file: nothing can be created under it."""
    blocked = tmp_path / "cache"
    blocked.write_text("not a directory")
    cache = ArrayCache(blocked, 2**30)
    cache.put(NS, "a", np.ones(4, np.float32))
    cache.put(NS, "b", np.ones(4, np.float32))  # no second attempt, no second note
    stats = cache.finish()
    assert stats.written == 0 and len(stats.notes) == 1
    assert "cannot be written" in stats.notes[0] and str(blocked) in stats.notes[0]
    assert "runtime.cache_dir" in stats.notes[0]


def test_a_full_disk_mid_write_leaves_no_torn_entry(tmp_path):
    """A real EFBIG from the kernel (RLIMIT_FSIZE) while writing an entry: the temp file goes, the run goes on."""
    cache = ArrayCache(tmp_path, 2**30)
    cache.put(NS, "small", np.ones(4, np.float32))
    cache.flush()  # written before the disk fills
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, old_limit[1]))
        cache.put(NS, "large", np.ones(100_000, np.float32))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)
    stats = cache.finish()
    assert stats.written == 1 and len(stats.notes) == 1
    assert [is_temporary(p.name) for p in (tmp_path / "vectors").rglob("*") if p.is_file()] == [False]
    assert set(ArrayCache(tmp_path, 2**30).get_many(NS, ["small", "large"])) == {"small"}


def test_the_size_cap_evicts_least_recently_used_first(tmp_path):
    entry = np.ones(1000, np.float32)  # ~4 KB per entry
    cache = ArrayCache(tmp_path, 10 * 4200)
    for i in range(10):
        cache.put(NS, f"text {i}", entry)
        cache.flush()  # loose files, one each
    for path, age in zip(entry_files(cache), range(100, 0, -10), strict=False):
        import os

        os.utime(path, (0, 1_000_000 - age))  # distinct, old mtimes
    assert cache.get_many(NS, ["text 0"])  # used now: the newest
    cache.put(NS, "text 10", entry)
    stats = cache.finish()
    assert stats.evicted >= 3 and stats.size_bytes <= 10 * 4200 * 0.8
    survivors = ArrayCache(tmp_path, 2**30).get_many(NS, [f"text {i}" for i in range(11)])
    assert "text 0" in survivors and "text 10" in survivors


def _hammer(root: str, seed: int) -> tuple[int, int]:
    """Write and read the same 40 keys as another process does; count reads that were not exact."""
    cache = ArrayCache(Path(root), 2**30)
    rng = np.random.default_rng(seed)
    wrong = 0
    for _ in range(300):
        i = int(rng.integers(40))
        expected = np.full(2000, i, np.float32)
        if rng.random() < 0.5:
            cache.put(NS, f"text {i}", expected)
        else:
            found = cache.get_many(NS, [f"text {i}"])
            wrong += bool(found) and not np.array_equal(found[f"text {i}"][0], expected)
    stats = cache.finish()
    return wrong, stats.rejected


def test_concurrent_runs_never_read_a_torn_entry(tmp_path):
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        outcomes = pool.starmap(_hammer, [(str(tmp_path), seed) for seed in range(3)])
    assert outcomes == [(0, 0)] * 3
    assert not [p for p in (tmp_path / "vectors").rglob("*") if is_temporary(p.name)]
