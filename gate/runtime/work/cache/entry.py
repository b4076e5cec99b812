"""One cache entry's bytes: a header (its key, dtype, shape, flag, sha256 of the payload) and the payload.

An entry verifies itself: one that is torn, foreign (another key) or failing its checksum decodes to None, and
the cache recomputes it. The same bytes are a loose file or one entry of a pack (`gate.runtime.work.cache.packs`).
"""

from __future__ import annotations

import hashlib
import json
import math
import struct

import numpy as np

SCHEMA = "v1"
MAGIC = b"llm-gate cache\x01"
# What an entry stores (bfloat16 is stored widened to float32; float64: BERTScore's P/R/F), looked up by name on
# read: numpy's dtype.name costs ~8 µs a call.
_STORED = {name: np.dtype(name) for name in ("float32", "float16", "float64")}


def cache_key(namespace: str, text: str) -> str:
    digest = hashlib.sha256(namespace.encode("ascii"))
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def encode_entry(key: str, value: np.ndarray, flag: bool) -> bytes:
    array = np.ascontiguousarray(value, dtype=np.float32 if value.dtype.name == "bfloat16" else value.dtype)
    if array.dtype.name not in _STORED:
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
        dtype, shape = _STORED.get(header["dtype"]), tuple(int(n) for n in header["shape"])
        flag, checksum, stored_key = bool(header["flag"]), str(header["sha256"]), str(header["key"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    payload = raw[start + length:]
    if (stored_key != key or dtype is None or any(n < 0 for n in shape)
            or len(payload) != dtype.itemsize * math.prod(shape)
            or hashlib.sha256(payload).hexdigest() != checksum):
        return None
    return np.frombuffer(payload, dtype=dtype).reshape(shape).copy(), flag
