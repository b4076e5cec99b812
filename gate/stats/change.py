"""Is a metric's change against the baseline real? A paired test on items, with the baseline's own noise.

The model. Item i has a current value c_i (one run) and a baseline value b_i (the mean over the K blessed
runs, K ≥ 1). The metric is a statistic f of the items (`gate.stats.statistics`); the change is
Δ = f(c) − f(b) over the n items present in both. Under "nothing changed" c_i and b_i differ only by noise.

1. Item noise. For a mean (`linear`) against a one-run snapshot, SE_item = sd(c − b, ddof 1) / √n —
   Student's paired t-test, which the tests check against `scipy.stats.ttest_rel`. Against a snapshot of
   K ≥ 2 runs the noise is *known*: each item's run-to-run variance s_i² (ddof 1, over its K_i runs), so
   SE_item² = Σ s_i²·(1 + 1/K_i) / n² — the variance Δ has when the system did not change — with
   Welch–Satterthwaite degrees of freedom (few when a few items carry the noise), and never below the noise
   K agreeing runs can rule out on the values' lattice (`gate.stats.known_noise`: agreement is evidence of
   low noise, not of none). (The sample sd of c − b would also absorb the change itself: a regression that
   breaks a few items inflates it and hides itself; the noise of re-running the same system does not.)
   For any other statistic (percentiles, corpus BLEU, a weighted score), SE_item is the standard deviation
   of Δ over B paired bootstrap resamples of the items (the same items drawn for both runs), times
   √(n / (n − 1)) so that it equals the t-test's SE for a mean. Each d_i carries the noise of both runs.
2. Shared noise. Item noise assumes items vary independently; a whole run can also move together (an LLM
   grader's mood, a sampling seed). When the snapshot has K ≥ 2 runs it knows the metric's run-to-run sd
   s_run. The part that item noise does not explain, τ² = max(0, s_run² − v), is shared noise, where v is the
   variance item noise alone gives one run's metric (Σ s_i² / n² for a mean with known item noise, else
   SE_item² / (1 + 1/K)); a fresh run against the K-run mean adds τ²·(1 + 1/K). SE² = SE_item² + τ²·(1 + 1/K), with
   Welch–Satterthwaite degrees of freedom from n − 1 and K − 1.
3. The one-sided p-value for the bad side is P(T_df ≤ Δ/SE) (a decrease) or P(T_df ≥ Δ/SE) (an increase).
   Where the blessed runs show skewed noise (a mean against K ≥ 3 runs whose items' third moments are known:
   rare jumps one way, a system that now and then leaks a stereotype), Δ/SE is first mapped by Hall's (1992)
   monotone transformation h(s) = s − γ(s² − 1)/6 + γ²s³/108, γ the skewness of Δ (`known_noise.skewness`):
   the one-term Edgeworth correction of a skewed sum, which the symmetric t reference misses (one leak too
   many in a fresh run is not a regression).
4. The minimum detectable effect at level α with power 1 − β is (t_{1−α, df} + t_{1−β, df})·SE: a true
   change of that size is detected with probability 1 − β.

Degenerate inputs are explicit: fewer than 2 pairs cannot be tested (`None`); identical pairs (with no
lattice the agreement floor could use) give SE 0, so a zero change has p = 1 and a non-zero one p = 0 on
its side. An SE (and a change) below 1e-12 of the metric's size is floating-point rounding of the blessed
means, not noise, and is taken as 0: a deterministic metric never fails on rounding. Pure numpy; the t and F
tails from `gate.stats.distributions`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

import gate.stats.distributions as distributions
from gate.stats.known_noise import Draws, known_noise
from gate.stats.statistics import ItemStatistic

RESAMPLES = 2000
POWER = 0.8
_ROUNDING = 1e-12  # relative size below which an SE or a change is floating-point rounding, not signal
SHARED_LEVEL = 0.2  # shared noise enters the SE when the runs' spread exceeds the items' at this level
_BLOCK = 250  # resamples per vectorised block (bounds memory at 10,000 items)


@dataclass(frozen=True)
class ChangeTest:
    """Δ = f(current) − f(baseline) over paired items, and how noisy it is."""

    n: int  # paired items
    estimate: float  # Δ
    se: float  # standard error of Δ under "nothing changed"
    df: float  # degrees of freedom of its t reference
    item_se: float  # the item-noise part
    shared_sd: float | None  # run-level noise beyond item noise (None: a one-run snapshot cannot tell)
    runs: int  # blessed runs the baseline is the mean of
    method: str  # "paired t-test" | "paired bootstrap (B resamples)"
    skew: float = 0.0  # γ: the skewness of Δ under "nothing changed" (0: taken as symmetric)

    def p_value(self, side: str) -> float:
        """One-sided p for a `decrease` or an `increase`."""
        if self.se <= 0:
            return _degenerate_p(self.estimate, side)
        z = hall(self.estimate / self.se, self.skew)
        return t_cdf(self.df, z if side == "decrease" else -z)

    def mde(self, alpha: float, power: float = POWER) -> float:
        """The smallest true change detected with probability `power` by a one-sided test at `alpha`."""
        return (t_quantile(self.df, 1 - alpha) + t_quantile(self.df, power)) * self.se


def change_test(current: NDArray[np.float64], baseline: NDArray[np.float64], statistic: ItemStatistic, *,
                runs: int = 1, run_sd: float | None = None, item_variances: NDArray[np.float64] | None = None,
                item_runs: NDArray[np.float64] | None = None, current_variances: NDArray[np.float64] | None = None,
                current_draws: NDArray[np.float64] | None = None, item_thirds: NDArray[np.float64] | None = None,
                resamples: int = RESAMPLES, seed: int = 0) -> ChangeTest | None:
    """The test of `statistic` on paired rows (n, c) of current and baseline values; None below 2 pairs.
    `item_variances` / `item_runs` (n,): each baseline item's run-to-run variance of the statistic's column and
    the draws its mean is over (K blessed runs, times repeated samples); `current_variances` / `current_draws`
    (n,): the same for the current run's items (repeated samples); `item_thirds` (n,): each baseline item's
    third central moment over its draws (its noise's skew); NaN where unknown."""
    current, baseline = np.asarray(current, dtype=float), np.asarray(baseline, dtype=float)
    n = current.shape[0]
    if n < 2:
        return None
    estimate = statistic(current) - statistic(baseline)
    known = known_noise(Draws(item_variances, item_runs), Draws(current_variances, current_draws),
                        (current[:, 0], baseline[:, 0]), runs, item_thirds) if statistic.linear else None
    single_run_var: float | None = None
    skew = 0.0
    if known is not None:
        skew = known.skew
        item_se, df, single_run_var = known.se, known.df, known.single_run_var
        method = "paired z-test on the items' known noise (" + (
            f"{runs} blessed runs" if runs >= 2 else "repeated samples") + ")" + (
            f"; their agreement floored at one step of {known.step:.3g}" if known.floored else "")
    elif statistic.linear:
        d = current[:, 0] - baseline[:, 0]
        item_se, df = float(d.std(ddof=1) / math.sqrt(n)), float(n - 1)
        method = "paired t-test"
    else:
        item_se, df = _bootstrap_se(current, baseline, statistic, resamples, seed), float(n - 1)
        method = f"paired bootstrap ({resamples:,} resamples)"
    se2, shared = item_se ** 2, None
    if runs >= 2 and run_sd is not None and math.isfinite(run_sd):
        factor = 1 + 1 / runs
        explained = single_run_var if single_run_var is not None else item_se ** 2 / factor
        tau2 = max(0.0, run_sd ** 2 - explained)
        shared = math.sqrt(tau2)
        extra = tau2 * factor if shared_noise_p(run_sd ** 2, explained, runs, df) < SHARED_LEVEL else 0.0
        if extra > 0:
            df = (se2 + extra) ** 2 / (se2 ** 2 / df + extra ** 2 / (runs - 1))
            skew *= (se2 / (se2 + extra)) ** 1.5  # shared noise is taken as symmetric: κ₃ stays, V grows
            se2 += extra
    se, scale = math.sqrt(se2), max(1.0, abs(statistic(baseline)))
    if se <= _ROUNDING * scale:  # a deterministic metric: its "noise" is floating-point rounding of the means
        se = 0.0
    estimate = 0.0 if abs(estimate) <= _ROUNDING * scale else estimate  # rounding of the means is no change
    return ChangeTest(n, float(estimate), se, df, item_se, shared, runs, method, skew if se > 0 else 0.0)


def hall(s: float, skew: float) -> float:
    """Hall's (1992) transformation of a standardised statistic of skewness γ towards the symmetric reference:
    s − γ(s² − 1)/6 + γ²s³/108, increasing in s for every γ (its derivative is (1 − γs/6)²)."""
    return s - skew * (s * s - 1) / 6 + skew * skew * s ** 3 / 108 if skew else s


def shared_noise_p(run_var: float, item_var: float, runs: int, item_df: float) -> float:
    """P(F ≥ run_var / item_var) for F(runs − 1, item_df): could item noise alone spread the blessed runs'
    metric this much? (1.0 when item noise is zero and the runs agree.)"""
    if item_var <= 0:
        return 0.0 if run_var > 0 else 1.0
    return distributions.f_sf(runs - 1, item_df, run_var / item_var)


def _bootstrap_se(current: NDArray[np.float64], baseline: NDArray[np.float64], statistic: ItemStatistic,
                  resamples: int, seed: int) -> float:
    n = current.shape[0]
    rng = np.random.default_rng(seed)
    deltas = []
    for start in range(0, resamples, _BLOCK):
        idx = rng.integers(0, n, size=(min(_BLOCK, resamples - start), n))
        deltas.append(statistic.compute(current[idx]) - statistic.compute(baseline[idx]))
    values = np.concatenate(deltas)
    values = values[np.isfinite(values)]
    if values.size < 2:
        return 0.0
    return float(values.std(ddof=1) * math.sqrt(n / (n - 1)))


def _degenerate_p(estimate: float, side: str) -> float:
    if estimate == 0:
        return 1.0
    bad = estimate < 0 if side == "decrease" else estimate > 0
    return 0.0 if bad else 1.0


def t_cdf(df: float, t: float) -> float:
    """P(T_df ≤ t) (scipy.special.stdtr; a normal for infinite df)."""
    return distributions.t_cdf(df, t)


def t_quantile(df: float, p: float) -> float:
    """The p-quantile of Student's t with df degrees of freedom (scipy.special.stdtrit)."""
    return distributions.t_quantile(df, p)
