"""Small, pure statistics over measured values (None = unmeasured, always skipped, never zero)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


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


@dataclass(frozen=True)
class PairedTest:
    """A paired significance test of two samples; p is None (with a reason) where it cannot be computed."""

    method: str
    n: int
    statistic: float | None
    p_value: float | None
    reason: str | None = None


def wilcoxon_signed_rank(first: Sequence[float], second: Sequence[float]) -> PairedTest:
    """Two-sided Wilcoxon signed-rank test of first − second (scipy; zero differences dropped)."""
    import warnings

    from scipy import stats

    pairs = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    method = "Wilcoxon signed-rank (two-sided)"
    if not any(a != b for a, b in pairs):
        return PairedTest(method, len(pairs), None, None,
                          "no pairs differ" if pairs else "no pairs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about small samples; n is reported instead
        result = stats.wilcoxon([a for a, _ in pairs], [b for _, b in pairs], zero_method="wilcox",
                                alternative="two-sided")
    return PairedTest(method, len(pairs), float(result.statistic), float(result.pvalue))
