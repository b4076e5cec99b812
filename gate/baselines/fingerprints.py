"""Fingerprints: what a measurement was computed with (model, sha256 of the weights, layer, idf, dtype, library
versions, the rubric's hash…), and how two of them differ — the reason a snapshot or a history entry is not
comparable with a run. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Where a model was loaded from (a cache path, a package) does not change what it computes.
_INFORMATIONAL = frozenset({"source"})


def fingerprint_differences(then: Mapping[str, Any], now: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`path: then → now` for every setting that differs (where a model was loaded from is ignored)."""
    differences = []
    for name in sorted(set(then) | set(now), key=str):
        if name in _INFORMATIONAL:
            continue
        a, b = then.get(name, "absent"), now.get(name, "absent")
        path = f"{prefix}{name}"
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            differences += fingerprint_differences(a, b, f"{path}.")
        elif _normal(a) != _normal(b):
            differences.append(f"{path}: {_short(a)} → {_short(b)}")
    return differences


def _normal(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value  # JSON turns tuples into lists


def _short(value: Any) -> str:
    text = str(value)
    return text[:12] + "…" if len(text) == 64 and all(c in "0123456789abcdef" for c in text) else text
