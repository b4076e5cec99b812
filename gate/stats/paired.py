"""Paired tests of two samples: the Wilcoxon signed-rank test (as scipy computes it) and the paired bootstrap of a
mean difference, for the kinds that compare two paired runs inside one run."""

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
    """Two-sided Wilcoxon signed-rank test of first − second (zero differences dropped): scipy.stats.wilcoxon's
    figures, computed by `gate.stats.wilcoxon` without importing scipy.stats (~0.8 s)."""
    from gate.stats.wilcoxon import signed_rank_test

    pairs = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    method = "Wilcoxon signed-rank (two-sided)"
    if not any(a != b for a, b in pairs):
        return PairedTest(method, len(pairs), None, None,
                          "no pairs differ" if pairs else "no pairs")
    statistic, p = signed_rank_test([float(a) - float(b) for a, b in pairs])
    return PairedTest(method, len(pairs), statistic, p)


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
    return paired_differences([(candidate, baseline)], method=method, alpha=alpha, resamples=resamples, seed=seed)[0]


def paired_differences(pairs: Sequence[tuple[Sequence[float], Sequence[float]]], *, method: str = "bootstrap",
                       alpha: float = 0.05, resamples: int = 10_000, seed: int = 0) -> list[PairedDifference]:
    """`paired_difference` of each (candidate, baseline) pair, the bootstrap of all pairs of one length drawn once
    (`gate.stats.bootstrap`: linear memory, the figures of resampling each pair on its own)."""
    import numpy as np

    diffs = [np.asarray(c, dtype=float) - np.asarray(b, dtype=float) for c, b in pairs]
    out: list[PairedDifference | None] = [None] * len(pairs)
    resampled: dict[int, list[int]] = {}
    for i, d in enumerate(diffs):
        n = len(d)
        if n == 0:
            out[i] = PairedDifference(0, None, None, None, None, False, method)
        elif method == "wilcoxon":
            test = wilcoxon_signed_rank(list(pairs[i][0]), list(pairs[i][1]))
            out[i] = PairedDifference(n, float(d.mean()), None, None, test.p_value,
                                      test.p_value is not None and test.p_value < alpha, "Wilcoxon signed-rank")
        elif n < 2 or not d.any():
            mean = float(d.mean())
            out[i] = PairedDifference(n, mean, mean, mean, None, False, "paired bootstrap")
        else:
            resampled.setdefault(n, []).append(i)
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    for same_n in resampled.values():
        for i, (low, high) in zip(same_n, _intervals([diffs[i] for i in same_n], resamples, seed, q), strict=True):
            out[i] = PairedDifference(len(diffs[i]), float(diffs[i].mean()), low, high, None, low > 0 or high < 0,
                                      f"paired bootstrap, {resamples} resamples, {100 * (1 - alpha):g}% CI")
    return [o for o in out if o is not None]


# A run scores a suite twice (the planning pass of gate.steps.model_work, then for real) on the same per-item
# values: the intervals, small, are kept for the process by the data's digest (as generation.py keeps ROUGE/BLEU).
_MEMO: dict[tuple, tuple[float, float]] = {}
_MEMO_SIZE = 4096


def _intervals(diffs: list, resamples: int, seed: int, q: tuple[float, float]) -> list[tuple[float, float]]:
    import hashlib

    from gate.stats.bootstrap import percentile_intervals

    keys = [(hashlib.blake2b(d.tobytes(), digest_size=16).digest(), len(d), resamples, seed, q) for d in diffs]
    missing = [i for i, key in enumerate(keys) if key not in _MEMO]
    if missing:
        if len(_MEMO) + len(missing) > _MEMO_SIZE:
            _MEMO.clear()
        for i, interval in zip(missing, percentile_intervals([diffs[i] for i in missing], resamples, seed, q),
                               strict=True):
            _MEMO[keys[i]] = interval
    return [_MEMO[key] for key in keys]
