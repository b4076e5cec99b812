"""The run-to-run noise of one metric at one level, and the checks it supports (the maths of the package
docstring). Pure: lists of floats in, numbers out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from gate.stats import POWER, t_cdf, t_quantile

HOMOGENEITY_LEVEL = 0.05  # Bartlett's p below this: the groups' variances differ, each group keeps its own s
THRESHOLD_DIGITS = 4  # significant digits of a min/max, rounded outward (never stricter than computed)
CHANGE_DIGITS = 2  # significant digits of a max_decrease/max_increase, rounded up (never below the MDE)


@dataclass(frozen=True)
class Noise:
    """x[g][r], the metric of group g in run r, summarised: each group's mean and the s (and its degrees of
    freedom) its interval uses — the pooled s, or the group's own where the variances differ."""

    k: int  # runs
    means: tuple[float, ...]
    sds: tuple[float, ...]
    dfs: tuple[int, ...]
    sigma: float  # pooled sd, sqrt(mean_g s_g²)
    pooled: bool
    homogeneity_p: float | None

    @property
    def factor(self) -> float:
        """A fresh run against the mean of k runs: the prediction interval's sqrt(1 + 1/k)."""
        return math.sqrt(1 + 1 / self.k)


def noise_of(series: Sequence[Sequence[float]]) -> Noise | None:
    """The noise of k ≥ 2 runs of every group (equal lengths), or None when the metric never moved."""
    k, groups = len(series[0]), len(series)
    means = [math.fsum(v) / k for v in series]
    variances = [math.fsum((x - m) ** 2 for x in v) / (k - 1) for v, m in zip(series, means, strict=True)]
    sigma = math.sqrt(math.fsum(variances) / groups)
    scale = max(1.0, max(abs(m) for m in means))
    if sigma <= 1e-12 * scale:
        return None
    varying = [g for g, v in enumerate(variances) if math.sqrt(v) > 1e-12 * scale]
    p = _bartlett([series[g] for g in varying]) if len(varying) >= 2 else None
    # A group that never moved while another did is itself evidence of unequal variances (a continuous noise
    # is never exactly constant); it has no s of its own, so it borrows the pooled s of the groups that vary.
    if (p is not None and p < HOMOGENEITY_LEVEL) or len(varying) < groups:
        shared = math.sqrt(math.fsum(variances[g] for g in varying) / len(varying))
        own = set(varying) if p is not None and p < HOMOGENEITY_LEVEL else set()
        sds = tuple(math.sqrt(variances[g]) if g in own else shared for g in range(groups))
        dfs = tuple(k - 1 if g in own else len(varying) * (k - 1) for g in range(groups))
        return Noise(k, tuple(means), sds, dfs, sigma, False, p)
    return Noise(k, tuple(means), (sigma,) * groups, (groups * (k - 1),) * groups, sigma, True, p)


def constant(series: Sequence[Sequence[float]]) -> Noise:
    """The noise of a metric that never moved over the k runs: σ = 0 in every group. It gets no floor (k agreeing
    runs cannot bound how often a fresh run moves it) but a change check, whose test floors its noise at what
    k agreeing runs can rule out (`gate.stats.known_noise`): the best detector there is, not one to drop."""
    k, groups = len(series[0]), len(series)
    means = tuple(math.fsum(v) / k for v in series)
    return Noise(k, means, (0.0,) * groups, (groups * (k - 1),) * groups, 0.0, True, None)


def _bartlett(samples: Sequence[Sequence[float]]) -> float:
    """Bartlett's test of equal variances (the tests check it against scipy.stats.bartlett): T = ((N − g)·ln s²_p
    − Σ (n_i − 1)·ln s²_i) / C, C = 1 + (Σ 1/(n_i − 1) − 1/(N − g)) / (3(g − 1)), referred to χ²_{g−1}."""
    from scipy import special

    g, n = len(samples), [len(x) for x in samples]
    variances = [math.fsum((v - math.fsum(x) / len(x)) ** 2 for v in x) / (len(x) - 1) for x in samples]
    total = sum(n) - g
    pooled = math.fsum((ni - 1) * v for ni, v in zip(n, variances, strict=True)) / total
    statistic = total * math.log(pooled) - math.fsum((ni - 1) * math.log(v) for ni, v in zip(n, variances, strict=True))
    correction = 1 + (math.fsum(1 / (ni - 1) for ni in n) - 1 / total) / (3 * (g - 1))
    return float(special.chdtrc(g - 1, statistic / correction))


def threshold(noise: Noise, higher: bool, rate: float) -> float:
    """The single min (higher is better) or max that a fresh run of each group crosses with probability at most
    `rate`: each group's prediction bound m_g ∓ t_{1−rate, df_g}·s_g·sqrt(1 + 1/k), the worst group's one,
    rounded outward."""
    bounds = [m - (1 if higher else -1) * t_quantile(df, 1 - rate) * s * noise.factor
              for m, s, df in zip(noise.means, noise.sds, noise.dfs, strict=True)]
    return round_to(min(bounds) if higher else max(bounds), THRESHOLD_DIGITS, ROUND_FLOOR if higher else ROUND_CEILING)


def fail_rate(noise: Noise, higher: bool, value: float) -> float:
    """The estimated chance that a fresh run fails `value` on at least one group (groups independent): exactly
    the promised rate for the group that set it (less after rounding outward), the t tail beyond it for the
    others."""
    passing = [1 - t_cdf(df, ((value - m) if higher else (m - value)) / (s * noise.factor))
               for m, s, df in zip(noise.means, noise.sds, noise.dfs, strict=True)]
    return 1.0 - math.prod(passing)


def cross_rate(noise: Noise, higher: bool, value: float | None) -> float | None:
    """The estimated chance that a fresh run of some group is past `value` (a warn level), as `fail_rate`."""
    return None if value is None else fail_rate(noise, higher, value)


def detectable_change(noise: Noise, alpha: float, tests: int, power: float = POWER) -> tuple[float, float, int]:
    """(X, se, df): the change a significance test at Holm's strictest level α/m detects with `power` in
    every group — (t_{1−α/m, df} + t_{power, df})·s·sqrt(1 + 1/k) of the noisiest group, rounded up."""
    level = alpha / max(1, tests)
    sizes = [((t_quantile(df, 1 - level) + t_quantile(df, power)) * s * noise.factor, s * noise.factor, df)
             for s, df in zip(noise.sds, noise.dfs, strict=True)]
    size, se, df = max(sizes)
    return round_to(size, CHANGE_DIGITS, ROUND_CEILING), se, df


def round_to(value: float, digits: int, rounding: str) -> float:
    """`value` to `digits` significant digits, in the given direction."""
    if value == 0 or not math.isfinite(value):
        return float(value)
    exact = Decimal(repr(value))
    quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    return float(exact.quantize(quantum, rounding=rounding))


def phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))
