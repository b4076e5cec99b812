"""The persistent cache of model outputs: embeddings, BERTScore token states, classifier softmax windows.

An entry is one text's array under a *namespace*: a digest of everything that decides the array besides
the text -- the engine kind, the model's weights and config/tokenizer files, the library versions, the
device and precision, the layer. So a changed model, library or precision simply misses, and a PR that
changes only candidates re-encodes only candidates. Batch mates change an array in the last bits only
(~1e-6, `gate.runtime.work.plan`), so a warm run agrees with a cold one far inside any gate's tolerance.

Never trusted: an entry is a header (its key, dtype, shape, flag, sha256 of the payload) and the payload
(`entry`); one that is torn, foreign, of the wrong shape for the model (`expect`) or failing its checksum is
deleted -- a packed one left out when its pack is rewritten -- and recomputed. A run writes each large entry
(BERTScore's token states) as a file of its own at once; it holds the small ones (embeddings, classifier windows,
pair scores) until `FLUSH_BYTES` of them are waiting or the run ends, then writes them as one pack per namespace
(`packs`): creating a file costs ~0.5 ms on ext4, most of a warm run's cache time when each small entry was a file
packed again at the end. A run killed before then loses at most `FLUSH_BYTES` of small entries, recomputed next
time. Safe under concurrent runs: files are written whole and renamed into place (`gate.io.blobs`). An
unwritable or full cache directory costs speed, never the run: writing stops with one note. The size cap is
enforced at the end of a run, least recently used file first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gate.io import blobs
from gate.runtime.work.cache import packs
from gate.runtime.work.cache.entry import MAGIC, SCHEMA, cache_key, decode_entry, encode_entry

__all__ = ["MAGIC", "SCHEMA", "ArrayCache", "CacheStats", "decode_entry", "encode_entry", "cache_key"]

EVICT_TO = 0.8  # after eviction the cache holds at most this share of the cap, so not every run evicts
FLUSH_BYTES = 4 * 2**20  # small entries held before they are written (what a killed run can lose)


@dataclass(frozen=True)
class CacheStats:
    hits: int = 0
    misses: int = 0
    written: int = 0
    rejected: int = 0  # entries found corrupt or foreign, deleted and recomputed
    evicted: int = 0
    size_bytes: int = 0
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"hits": self.hits, "misses": self.misses, "written": self.written, "rejected": self.rejected,
                "evicted": self.evicted, "size_bytes": self.size_bytes}


@dataclass
class _Counters:
    hits: int = 0
    misses: int = 0
    written: int = 0
    rejected: int = 0
    notes: list[str] = field(default_factory=list)


class ArrayCache:
    """`root` None: disabled (every lookup misses, nothing is written)."""

    def __init__(self, root: Path | None, max_bytes: int):
        self.root = root / "vectors" / SCHEMA if root is not None else None
        self.max_bytes = int(max_bytes)
        self._counts = _Counters()
        self._writable = root is not None
        self._packs: dict[str, list[packs.Pack]] = {}  # by namespace, opened at its first lookup
        self._pending: dict[str, dict[str, tuple[bytes, bool]]] = {}  # small entries not yet written: key -> (entry,
        self._pending_bytes = 0                                       # counted)

    @property
    def enabled(self) -> bool:
        return self.root is not None

    @staticmethod
    def namespace(*parts: object) -> str:
        return hashlib.sha256(json.dumps([SCHEMA, *parts], default=str).encode("utf-8")).hexdigest()

    def get_many(self, namespace: str, texts: Sequence[str],
                 expect: Callable[[str, np.ndarray], bool] = lambda text, value: True, *, counted: bool = True
                 ) -> dict[str, tuple[np.ndarray, bool]]:
        """The valid entries among `texts`: text -> (array, flag). `expect` rejects arrays of the wrong shape.
        `counted` False: a lookup the statistics leave out (BERTScore's pair scores; the stats count texts)."""
        found: dict[str, tuple[np.ndarray, bool]] = {}
        for text in dict.fromkeys(texts):
            entry = self._get(namespace, text, expect, counted)
            if entry is None:
                self._counts.misses += counted
            else:
                self._counts.hits += counted
                found[text] = entry
        return found

    def count_hits(self, texts: int) -> None:
        """`texts` answered from the cache by entries looked up uncounted (an engine whose pairs were all cached)."""
        self._counts.hits += texts

    def get_manifest(self, namespace: str) -> dict[str, Any] | None:
        """What a loaded engine said about itself (limits, width, labels), saved under its namespace by
        `put_manifest`: with it, an engine whose outputs are all cached is never loaded."""
        if self.root is None:
            return None
        path = self._manifest_path(namespace)
        raw = blobs.read_blob(path)
        try:
            found = json.loads(raw.decode("utf-8")) if raw is not None else None
        except (UnicodeDecodeError, ValueError):
            return None
        if not isinstance(found, dict) or found.get("namespace") != namespace:
            return None
        blobs.touch(path)  # used: not the least recently used file when the size cap evicts
        return found

    def put_manifest(self, namespace: str, manifest: dict[str, object]) -> None:
        if not self._writable or self.root is None:
            return
        try:
            blobs.write_blob(self._manifest_path(namespace),
                             json.dumps({**manifest, "namespace": namespace}, sort_keys=True).encode("utf-8"))
        except OSError:
            pass  # `put` says once that the cache is unwritable; a missing manifest only costs a model load

    def put(self, namespace: str, text: str, value: np.ndarray, flag: bool = False, *, counted: bool = True) -> None:
        if not self._writable or self.root is None:
            return
        key = cache_key(namespace, text)
        data = encode_entry(key, value, flag)
        if len(data) <= packs.SMALL:
            self._pending.setdefault(namespace, {})[key] = (data, counted)
            self._pending_bytes += len(data)
            if self._pending_bytes >= FLUSH_BYTES:
                self.flush()
            return
        try:
            blobs.write_blob(self._path(namespace, key), data)
            self._counts.written += counted
        except OSError as exc:  # read-only mount, permissions, disk full: go on without saving
            self._unwritable(exc)

    def flush(self) -> None:
        """Write the small entries waiting: a pack per namespace with `packs.PACK_AT` or more, else loose files."""
        pending, self._pending, self._pending_bytes = self._pending, {}, 0
        for namespace, entries in pending.items():
            if not self._writable:
                return
            try:
                if len(entries) >= packs.PACK_AT:
                    paths = packs.write_packs(self._directory(namespace), {k: data for k, (data, _) in entries.items()})
                    if namespace in self._packs:  # opened already: later lookups find the entries in the new packs
                        self._packs[namespace] += [p for path in paths if (p := packs.open_pack(path)) is not None]
                else:
                    for key, (data, _) in entries.items():
                        blobs.write_blob(self._path(namespace, key), data)
            except OSError as exc:
                self._unwritable(exc)
                return
            self._counts.written += sum(counted for _, counted in entries.values())

    def _unwritable(self, exc: OSError) -> None:
        """Read-only mount, permissions, disk full: the run goes on without saving, and says so once."""
        assert self.root is not None
        self._writable = False
        self._counts.notes.append(
            f"the model cache at {self.root.parent.parent} cannot be written ({exc.strerror or exc}); this run "
            "went on without saving to it: make runtime.cache_dir writable, free space, or set runtime.cache: "
            "false")

    def finish(self) -> CacheStats:
        """Pack the small entries, enforce the size cap (least recently used first) and report what the run did
        with the cache."""
        evicted, size = 0, 0
        self.flush()
        for opened in self._packs.values():
            for pack in opened:
                pack.reader.close()
                if pack.rejected and self._writable:
                    packs.rewrite(pack)
                elif pack.used:
                    blobs.touch(pack.path)  # used: not the least recently used file when the size cap evicts
        self._packs = {}
        if self.root is not None and self.root.is_dir():
            files = list(blobs.walk(self.root))
            if self._writable and packs.consolidate(files):
                files = list(blobs.walk(self.root))
            files.sort(key=lambda f: f.mtime)
            size = sum(f.size for f in files)
            if size > self.max_bytes:
                for entry in files:
                    if size <= self.max_bytes * EVICT_TO:
                        break
                    if blobs.remove(entry.path):
                        size -= entry.size
                        evicted += 1
        c = self._counts
        return CacheStats(c.hits, c.misses, c.written, c.rejected, evicted, size, tuple(c.notes))

    def _get(self, namespace: str, text: str, expect: Callable[[str, np.ndarray], bool], counted: bool = True
             ) -> tuple[np.ndarray, bool] | None:
        if self.root is None:
            return None
        key = cache_key(namespace, text)
        waiting = self._pending.get(namespace, {}).get(key)
        if waiting is not None:  # put by this run, not yet written
            entry = decode_entry(waiting[0], key)
            if entry is not None and expect(text, entry[0]):
                return entry
        for pack in self._packs_of(namespace):
            if key in pack.entries and key not in pack.rejected:
                raw = pack.read(key)
                entry = decode_entry(raw, key) if raw is not None else None
                if entry is not None and expect(text, entry[0]):
                    pack.used = True
                    return entry
                if counted:  # damaged, or not what this model gives: left out when the pack is rewritten
                    self._counts.rejected += 1
                    pack.rejected.add(key)
        path = self._path(namespace, key)
        raw = blobs.read_blob(path)
        if raw is None:
            return None
        entry = decode_entry(raw, key)
        if entry is None or not expect(text, entry[0]):
            if counted:  # an uncounted lookup leaves it to the counted one that follows (`cached.from_cache`)
                self._counts.rejected += 1
                blobs.remove(path)
            return None
        blobs.touch(path)
        return entry

    def _packs_of(self, namespace: str) -> list[packs.Pack]:
        opened = self._packs.get(namespace)
        if opened is None:
            assert self.root is not None
            paths = blobs.files_named(self._directory(namespace), packs.PACK_SUFFIX)
            opened = self._packs[namespace] = [p for path in paths if (p := packs.open_pack(path)) is not None]
        return opened

    def _directory(self, namespace: str) -> Path:
        """A namespace's directory: its loose entries (in two-hex-digit folders), packs and engine manifest."""
        assert self.root is not None
        return self.root / namespace[:24]

    def _path(self, namespace: str, key: str) -> Path:
        return self._directory(namespace) / key[:2] / key

    def _manifest_path(self, namespace: str) -> Path:
        return self._directory(namespace) / "engine.json"
