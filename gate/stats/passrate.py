"""k-of-n per item (issue 35, item 1): the pass rate of an item's n draws against a per-item criterion, and what
it says about k draws. Pure; the criterion is the caller's (a draw either meets it or not).

- pass rate c/n and its Wilson score interval's lower bound (95 % by default, the interval statsmodels'
  `proportion_confint(method="wilson")` gives): a rate from 5 draws is not known to two digits;
- pass@k, the chance that at least one of k draws passes, by the unbiased estimator of Chen et al. (2021,
  "Evaluating Large Language Models Trained on Code"): 1 − C(n−c, k)/C(n, k) for k ≤ n;
- pass^k, the chance that all k pass, unbiased the same way: C(c, k)/C(n, k).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gate.stats.distributions import normal_quantile


def wilson_interval(passed: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided Wilson score interval of passed/n at `confidence`, inside [0, 1]; (nan, nan) without draws.
    No pass gives exactly 0 below, every pass exactly 1 above: the formula's terms cancel there only to within
    rounding (3e-17 at 0 of 5)."""
    if n <= 0:
        return math.nan, math.nan
    z = normal_quantile(1 - (1 - confidence) / 2)
    p = passed / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if passed <= 0 else max(0.0, (centre - margin) / (1 + z * z / n))
    high = 1.0 if passed >= n else min(1.0, (centre + margin) / (1 + z * z / n))
    return low, high


def wilson_lower(passed: int, n: int, confidence: float = 0.95) -> float:
    """The lower end of the two-sided Wilson score interval of passed/n at `confidence`."""
    return wilson_interval(passed, n, confidence)[0]


def pass_at_k(n: int, passed: int, k: int) -> float:
    """P(at least one of k draws passes), unbiased from n draws of which `passed` passed (k ≤ n)."""
    if not 0 < k <= n:
        return math.nan
    return 1.0 - math.comb(n - passed, k) / math.comb(n, k)


def pass_hat_k(n: int, passed: int, k: int) -> float:
    """P(all k draws pass), unbiased from n draws of which `passed` passed (k ≤ n)."""
    if not 0 < k <= n:
        return math.nan
    return math.comb(passed, k) / math.comb(n, k)


@dataclass(frozen=True)
class PassRate:
    passed: int
    draws: int
    rate: float
    wilson_low: float
    pass_at_k: float
    pass_hat_k: float


def pass_rate(meets: Sequence[bool], k: int | None = None, confidence: float = 0.95) -> PassRate:
    """An item's pass rate over its draws; pass@k and pass^k at `k` (default: every draw, k = n)."""
    n, c = len(meets), sum(1 for m in meets if m)
    k = n if k is None else k
    return PassRate(c, n, c / n if n else math.nan, wilson_lower(c, n, confidence), pass_at_k(n, c, k),
                    pass_hat_k(n, c, k))
