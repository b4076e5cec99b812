"""Packs of the model-output cache (`gate.runtime.work.cache.packs`): small entries end up one file per namespace,
read back bit for bit; damage costs the damaged entries only; many small packs merge; large entries stay loose."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from gate.io import blobs
from gate.runtime.work.cache import ArrayCache, packs

NS = ArrayCache.namespace("embedding", "sha256:abc", "cpu", "float32")
OTHER = ArrayCache.namespace("classifier", "sha256:def", "cpu", "float32")


def vector(i: int, width: int = 384) -> np.ndarray:
    return np.random.default_rng(i).standard_normal(width).astype(np.float32)


def files(root: Path) -> tuple[list[Path], list[Path]]:
    """(packs, loose entries) under a cache root."""
    found = sorted(f.path for f in blobs.walk(root / "vectors"))
    return ([p for p in found if p.name.endswith(packs.PACK_SUFFIX)],
            [p for p in found if not p.name.endswith(packs.PACK_SUFFIX) and p.name != "engine.json"])


def fill(root: Path, texts: list[str], namespace: str = NS, width: int = 384) -> None:
    cache = ArrayCache(root, 2**30)
    for text in texts:
        cache.put(namespace, text, vector(int(text.split()[-1]), width), flag=text.endswith("7"))
    cache.finish()


def test_small_entries_are_packed_at_the_end_of_a_run_and_read_back_bit_for_bit(tmp_path):
    texts = [f"text {i}" for i in range(40)]
    fill(tmp_path, texts)
    pack_files, loose = files(tmp_path)
    assert len(pack_files) == 1 and loose == []
    cache = ArrayCache(tmp_path, 2**30)
    found = cache.get_many(NS, [*texts, "unseen 1"])
    assert list(found) == texts
    assert all(np.array_equal(found[t][0], vector(i)) and found[t][1] == t.endswith("7") for i, t in enumerate(texts))
    stats = cache.finish()
    assert (stats.hits, stats.misses, stats.rejected) == (40, 1, 0)
    assert files(tmp_path)[0] == pack_files  # reading alone rewrites nothing


def test_a_run_writes_its_small_entries_as_one_pack_and_no_loose_file(tmp_path, monkeypatch):
    written: list[Path] = []
    original = blobs.write_blob
    monkeypatch.setattr(blobs, "write_blob", lambda path, data: written.append(path) or original(path, data))
    cache = ArrayCache(tmp_path, 2**30)
    for i in range(40):
        cache.put(NS, f"text {i}", vector(i))
    assert written == [] and files(tmp_path) == ([], [])  # held until the run ends
    found = cache.get_many(NS, ["text 3"])  # a lookup in the same run finds what it put
    assert np.array_equal(found["text 3"][0], vector(3))
    assert cache.finish().written == 40
    assert len(written) == 1 and written[0].name.endswith(packs.PACK_SUFFIX) and files(tmp_path)[1] == []


def test_small_entries_are_written_once_flush_bytes_wait_and_a_killed_run_loses_only_those(tmp_path, monkeypatch):
    from gate.runtime.work import cache as cache_module

    entry_bytes = len(cache_module.encode_entry("k" * 64, vector(0), False))
    monkeypatch.setattr(cache_module, "FLUSH_BYTES", 20 * entry_bytes)
    cache = ArrayCache(tmp_path, 2**30)
    assert cache.get_many(NS, ["text 0"]) == {}  # the namespace's packs opened before any was written
    for i in range(30):
        cache.put(NS, f"text {i}", vector(i))
    assert len(files(tmp_path)[0]) == 1  # the first 20, as a pack
    found = cache.get_many(NS, [f"text {i}" for i in range(30)])  # written or waiting: all found this run
    assert all(np.array_equal(found[f"text {i}"][0], vector(i)) for i in range(30))
    del cache  # killed before `finish`: the 10 waiting are lost, recomputed next time
    survivors = ArrayCache(tmp_path, 2**30).get_many(NS, [f"text {i}" for i in range(30)])
    assert sorted(survivors, key=lambda t: int(t.split()[-1])) == [f"text {i}" for i in range(20)]


def test_a_few_entries_and_large_ones_stay_loose(tmp_path):
    fill(tmp_path, [f"text {i}" for i in range(packs.PACK_AT - 1)])
    fill(tmp_path / "large", [f"text {i}" for i in range(40)], width=packs.SMALL // 4 + 1)
    assert files(tmp_path)[0] == [] and len(files(tmp_path)[1]) == packs.PACK_AT - 1
    assert files(tmp_path / "large")[0] == [] and len(files(tmp_path / "large")[1]) == 40


def test_namespaces_are_packed_apart_and_never_answer_for_each_other(tmp_path):
    fill(tmp_path, [f"text {i}" for i in range(20)])
    fill(tmp_path, [f"text {i}" for i in range(20)], namespace=OTHER)
    assert len(files(tmp_path)[0]) == 2
    cache = ArrayCache(tmp_path, 2**30)
    assert len(cache.get_many(NS, ["text 3"])) == len(cache.get_many(OTHER, ["text 3"])) == 1
    assert cache.get_many(ArrayCache.namespace("a third"), ["text 3"]) == {}


def test_a_damaged_packed_entry_is_recomputed_and_the_pack_rewritten_without_it(tmp_path):
    texts = [f"text {i}" for i in range(30)]
    fill(tmp_path, texts)
    (pack,) = files(tmp_path)[0]
    opened = packs.open_pack(pack)
    assert opened is not None
    offset, length = opened.entries[next(iter(opened.entries))]
    opened.reader.close()
    data = bytearray(pack.read_bytes())
    data[offset + length - 1] ^= 0xFF  # one payload byte of one entry
    pack.write_bytes(bytes(data))
    cache = ArrayCache(tmp_path, 2**30)
    found = cache.get_many(NS, texts)
    assert len(found) == 29 and cache.finish().rejected == 1
    again = ArrayCache(tmp_path, 2**30)
    assert len(again.get_many(NS, texts)) == 29 and again.finish().rejected == 0  # the damage is gone, once


def test_an_entry_of_the_wrong_shape_is_left_out_of_its_pack_only_by_a_counted_lookup(tmp_path):
    texts = [f"text {i}" for i in range(20)]
    fill(tmp_path, texts)
    cache = ArrayCache(tmp_path, 2**30)
    assert cache.get_many(NS, ["text 1"], lambda t, v: v.shape == (8,), counted=False) == {}
    assert len(cache.get_many(NS, texts, lambda t, v: t != "text 1")) == 19
    assert cache.finish().rejected == 1
    assert len(ArrayCache(tmp_path, 2**30).get_many(NS, texts)) == 19


def test_many_small_packs_are_merged(tmp_path):
    for run in range(packs.MAX_PACKS + 1):
        fill(tmp_path, [f"text {run * 100 + i}" for i in range(packs.PACK_AT)])
    assert len(files(tmp_path)[0]) == 1
    everything = [f"text {run * 100 + i}" for run in range(packs.MAX_PACKS + 1) for i in range(packs.PACK_AT)]
    assert len(ArrayCache(tmp_path, 2**30).get_many(NS, everything)) == len(everything)


def test_a_foreign_file_named_like_a_pack_is_a_miss_not_an_error(tmp_path):
    fill(tmp_path, [f"text {i}" for i in range(20)])
    (pack,) = files(tmp_path)[0]
    (pack.parent / "pack-foreign.pack").write_bytes(b"not a pack at all")
    (pack.parent / "pack-truncated.pack").write_bytes(pack.read_bytes()[:40])
    assert len(ArrayCache(tmp_path, 2**30).get_many(NS, [f"text {i}" for i in range(20)])) == 20


def test_a_used_pack_is_touched_so_the_size_cap_evicts_the_unused_one_first(tmp_path):
    fill(tmp_path, [f"text {i}" for i in range(20)])
    fill(tmp_path, [f"text {i}" for i in range(20)], namespace=OTHER)
    for pack in files(tmp_path)[0]:
        os.utime(pack, (0, 1_000_000))
    cache = ArrayCache(tmp_path, 2**30)
    assert len(cache.get_many(OTHER, ["text 1"])) == 1
    cache.finish()
    size = sum(p.stat().st_size for p in files(tmp_path)[0])
    capped = ArrayCache(tmp_path, size - 1)
    assert capped.finish().evicted == 1
    survivors = ArrayCache(tmp_path, 2**30)
    assert survivors.get_many(NS, ["text 1"]) == {} and len(survivors.get_many(OTHER, ["text 1"])) == 1


def test_a_cache_that_cannot_be_written_keeps_its_loose_entries(tmp_path, monkeypatch):
    fill(tmp_path, [f"text {i}" for i in range(10)])
    cache = ArrayCache(tmp_path, 2**30)
    for i in range(10, 30):
        cache.put(NS, f"text {i}", vector(i))
        cache.flush()  # one at a time: loose files, as an earlier version wrote every entry

    def full(path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(blobs, "write_blob", full)
    cache.finish()
    assert files(tmp_path)[0] == [] and len(files(tmp_path)[1]) == 30
    monkeypatch.undo()
    assert len(ArrayCache(tmp_path, 2**30).get_many(NS, [f"text {i}" for i in range(30)])) == 30
