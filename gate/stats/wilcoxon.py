"""The two-sided Wilcoxon signed-rank test, as `scipy.stats.wilcoxon(x, y)` computes it (zero_method="wilcox",
correction=False, method="auto"), without importing scipy.stats: that import alone costs ~0.8 s of every run
that uses it, more than the rest of a fully cached run. The tests compare it with scipy on
many inputs (ties, zeros, every method's range of n).

scipy 1.17's "auto" picks, on d = x − y (n counts zeros):
- n ≤ 50, no zeros and no tied |d|: the exact null distribution of r+ (the same float pmf, summed by numpy as
  scipy sums it, so p is bit-identical);
- n ≤ 13 with zeros or ties: an exact permutation test over all 2ⁿ sign flips (zeros stay dropped);
- otherwise: the normal approximation with the tie correction, p = 2·Φ(−|z|).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from gate.stats.distributions import normal_cdf

EXACT_MAX_N = 50  # scipy: method "auto" → "asymptotic" above this many pairs (zeros included)
PERMUTATION_MAX_N = 13  # scipy: 2**13 ≤ 9999 resamples, so its permutation test enumerates every sign flip


def signed_rank_test(d: Sequence[float]) -> tuple[float, float]:
    """(statistic min(r+, r−), two-sided p) of the differences d; NaN in d gives (nan, nan) as scipy's
    nan_policy="propagate" does. At least one d must be non-zero."""
    if any(math.isnan(v) for v in d):
        return math.nan, math.nan
    ranks, ties = _ranks([abs(v) for v in d if v != 0])
    signs = [v > 0 for v in d if v != 0]
    r_plus = sum(r for r, positive in zip(ranks, signs, strict=True) if positive)
    r_minus = sum(r for r, positive in zip(ranks, signs, strict=True) if not positive)
    has_ties, has_zeros = any(t > 1 for t in ties), len(ranks) < len(d)
    if len(d) <= EXACT_MAX_N and not (has_ties or has_zeros):
        p = _exact(len(ranks), round(r_plus))
    elif len(d) <= PERMUTATION_MAX_N:
        p = _permutation(ranks, r_plus)
    else:
        p = _asymptotic(len(ranks), ties, r_plus)
    return min(r_plus, r_minus), p


def _ranks(values: list[float]) -> tuple[list[float], list[int]]:
    """Average ranks (1-based) of values, and the size of each group of equal values."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    ties = []
    start = 0
    for _, group in itertools.groupby(order, key=values.__getitem__):
        members = list(group)
        for i in members:
            ranks[i] = start + 1 + (len(members) - 1) / 2
        ties.append(len(members))
        start += len(members)
    return ranks, ties


def _exact(n: int, r_plus: int) -> float:
    """2·min(P(R+ ≥ r+), P(R+ ≤ r+)) under the exact null distribution (scipy's `_get_wilcoxon_distr`, and
    `WilcoxonDistribution`'s choice of summing the nearer tail)."""
    import numpy as np

    pmf = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev = pmf
        pmf = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        m = len(prev)
        pmf[:m] = prev * 0.5
        pmf[-m:] += prev * 0.5
    middle = n * (n + 1) / 4
    sf = pmf[r_plus:].sum() if r_plus <= middle else 1 - pmf[:r_plus].sum()
    cdf = pmf[:r_plus + 1].sum() if r_plus <= middle else 1 - pmf[r_plus + 1:].sum()
    return float(min(max(2 * min(sf, cdf), 0.0), 1.0))


def _permutation(ranks: list[float], r_plus: float) -> float:
    """The exact permutation test: r+ of every assignment of signs to the non-zero differences (each zero's two
    signs give the same r+, so they scale both counts equally)."""
    below = above = 0
    tolerance = abs(100 * 2.0 ** -52 * r_plus)
    for signs in itertools.product((False, True), repeat=len(ranks)):
        value = sum(r for r, positive in zip(ranks, signs, strict=True) if positive)
        below += value <= r_plus + tolerance
        above += value >= r_plus - tolerance
    total = 2 ** len(ranks)
    return min(max(min(below / total, above / total) * 2, 0.0), 1.0)


def _asymptotic(n: int, ties: list[int], r_plus: float) -> float:
    """The normal approximation with the tie correction and no continuity correction: 2·Φ(−|z|)."""
    count = float(n)
    mean = count * (count + 1.0) * 0.25
    variance = count * (count + 1.0) * (2.0 * count + 1.0)
    se = math.sqrt((variance - float(sum(t ** 3 - t for t in ties)) / 2) / 24)
    return 2 * normal_cdf(-abs((r_plus - mean) / se))
