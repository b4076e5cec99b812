"""Paired tests of two samples: the stereotype suite's Wilcoxon signed-rank test (scipy) and the RAG
comparison's paired bootstrap of a mean difference."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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


@dataclass(frozen=True)
class PairedDifference:
    """candidate − baseline over paired values: mean, a confidence interval or p, and significance."""

    n: int
    mean_difference: float | None
    low: float | None
    high: float | None
    p_value: float | None
    significant: bool
    method: str


def paired_difference(candidate: Sequence[float], baseline: Sequence[float], *, method: str = "bootstrap",
                      alpha: float = 0.05, resamples: int = 10_000, seed: int = 0) -> PairedDifference:
    """Is the mean paired difference different from 0? Bootstrap: the percentile CI excludes 0 (the
    resampling is seeded, so the same data gives the same interval); Wilcoxon: p < alpha."""
    import numpy as np

    diffs = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    n = len(diffs)
    if n == 0:
        return PairedDifference(0, None, None, None, None, False, method)
    mean_difference = float(diffs.mean())
    if method == "wilcoxon":
        test = wilcoxon_signed_rank(list(candidate), list(baseline))
        significant = test.p_value is not None and test.p_value < alpha
        return PairedDifference(n, mean_difference, None, None, test.p_value, significant, "Wilcoxon signed-rank")
    if n < 2 or not diffs.any():
        return PairedDifference(n, mean_difference, mean_difference, mean_difference, None, False,
                                "paired bootstrap")
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    low, high = (float(x) for x in np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)]))
    return PairedDifference(n, mean_difference, low, high, None, low > 0 or high < 0,
                            f"paired bootstrap, {resamples} resamples, {100 * (1 - alpha):g}% CI")
