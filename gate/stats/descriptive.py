"""Descriptive statistics over measured values (None = unmeasured, always skipped, never zero)."""

from __future__ import annotations

import math
from collections.abc import Iterable


def measured(values: Iterable[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def mean(values: Iterable[float | None]) -> float | None:
    xs = measured(values)
    return math.fsum(xs) / len(xs) if xs else None


def std(values: Iterable[float | None]) -> float | None:
    """Population standard deviation (ddof=0), as numpy's default and the seed's `np.std`."""
    xs = measured(values)
    if not xs:
        return None
    centre = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - centre) ** 2 for x in xs) / len(xs))


def maximum(values: Iterable[float | None]) -> float | None:
    xs = measured(values)
    return max(xs) if xs else None
