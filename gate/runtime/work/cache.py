"""The persistent cache of model outputs: embeddings, BERTScore token states, classifier softmax windows.

An entry is one text's array under a *namespace*: a digest of everything that decides the array besides
the text -- the engine kind, the model's weights and config/tokenizer files, the library versions, the
device and precision, the layer. So a changed model, library or precision simply misses, and a PR that
changes only candidates re-encodes only candidates. Batch mates change an array in the last bits only
(~1e-6, `gate.runtime.work.plan`), so a warm run agrees with a cold one far inside any gate's tolerance.

Never trusted: an entry is a header (its key, dtype, shape, flag, sha256 of the payload) and the payload;
one that is torn, foreign, of the wrong shape for the model (`expect`) or failing its checksum is
deleted and recomputed. Safe under concurrent runs: entries are written whole and renamed into place
(`gate.io.blobs`). An unwritable or full cache directory costs speed, never the run: writing stops
with one note. The size cap is enforced at the end of a run, least recently used first.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gate.io import blobs

SCHEMA = "v1"
MAGIC = b"llm-gate cache\x01"
_DTYPES = ("float32", "float16", "bfloat16", "float64")  # bfloat16 is stored widened to float32; float64: P/R/F
EVICT_TO = 0.8  # after eviction the cache holds at most this share of the cap, so not every run evicts


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
        key = _key(namespace, text)
        try:
            blobs.write_blob(self._path(namespace, key), encode_entry(key, value, flag))
            self._counts.written += counted
        except OSError as exc:  # read-only mount, permissions, disk full: go on without saving
            self._writable = False
            self._counts.notes.append(
                f"the model cache at {self.root.parent.parent} cannot be written ({exc.strerror or exc}); this run "
                "went on without saving to it: make runtime.cache_dir writable, free space, or set runtime.cache: "
                "false")

    def finish(self) -> CacheStats:
        """Enforce the size cap (least recently used first) and report what the run did with the cache."""
        evicted, size = 0, 0
        if self.root is not None and self.root.is_dir():
            files = sorted(blobs.walk(self.root), key=lambda f: f.mtime)
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
        key = _key(namespace, text)
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

    def _path(self, namespace: str, key: str) -> Path:
        assert self.root is not None
        return self.root / namespace[:24] / key[:2] / key

    def _manifest_path(self, namespace: str) -> Path:
        assert self.root is not None
        return self.root / namespace[:24] / "engine.json"


def _key(namespace: str, text: str) -> str:
    digest = hashlib.sha256(namespace.encode("ascii"))
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def encode_entry(key: str, value: np.ndarray, flag: bool) -> bytes:
    array = np.ascontiguousarray(value, dtype=np.float32 if value.dtype.name == "bfloat16" else value.dtype)
    if array.dtype.name not in _DTYPES:
        raise ValueError(f"cannot cache an array of {array.dtype}")
    payload = array.tobytes()
    header = json.dumps({"key": key, "dtype": array.dtype.name, "shape": list(array.shape), "flag": bool(flag),
                         "sha256": hashlib.sha256(payload).hexdigest()}).encode("ascii")
    return MAGIC + struct.pack(">I", len(header)) + header + payload


def decode_entry(raw: bytes, key: str) -> tuple[np.ndarray, bool] | None:
    """The entry's (array, flag), or None when it is not a whole, intact entry for `key`."""
    start = len(MAGIC) + 4
    if len(raw) < start or not raw.startswith(MAGIC):
        return None
    (length,) = struct.unpack(">I", raw[len(MAGIC):start])
    try:
        header = json.loads(raw[start:start + length].decode("ascii"))
        dtype, shape = np.dtype(header["dtype"]), tuple(int(n) for n in header["shape"])
        flag, checksum, stored_key = bool(header["flag"]), str(header["sha256"]), str(header["key"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    payload = raw[start + length:]
    if (stored_key != key or dtype.name not in _DTYPES or any(n < 0 for n in shape)
            or len(payload) != dtype.itemsize * math.prod(shape)
            or hashlib.sha256(payload).hexdigest() != checksum):
        return None
    return np.frombuffer(payload, dtype=dtype).reshape(shape).copy(), flag
