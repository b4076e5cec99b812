"""The noise a mean's change has when the items' run-to-run noise is known, how sure that knowledge is, and how
little noise agreeing runs can vouch for (DESIGN.md §10; used by `gate.stats.change`).

1. Item noise. Item i's draws (the K_i blessed runs, times repeated samples, and the current run's m_i samples)
   give σ̂_i² on ν_i = (K_i − 1) + (m_i − 1) degrees of freedom (each side's sample variance, weighted by its
   df); an item without any gets the pooled σ̂² = Σ ν_i σ̂_i² / Σ ν_i. The mean's change Δ has, when nothing
   changed, V = Σ c_i σ̂_i² with c_i = (1/m_i + 1/K_i) / n².
2. Its degrees of freedom: Welch–Satterthwaite. V is a weighted sum of independent variance estimates, so
   V ≈ (V/ν)·χ²_ν with ν = V² / Σ (b_i σ̂_i²)² / ν_i, b_i = c_i plus the share of the pooled items' weight that
   falls on item i (Σ_{unknown} c_j · ν_i / Σ ν). When the noise is spread evenly, ν is close to Σ ν_i; when a
   few items carry it (a rare, heavy-tailed event: a system that now and then leaks a stereotype) ν falls
   towards those items' few runs, and the t reference widens as it must. The tests check ν against
   `scipy.stats.ttest_ind(equal_var=False)` (Welch's df) and statsmodels' Satterthwaite df.
3. The agreement floor. Runs that agree are evidence of low noise, not of none. Item values on a lattice of
   step h (a rubric's whole points; h is the smallest gap between the distinct values the group's items take
   where they are single draws or agreed over their draws) can move one step now and then. Model the rarest
   noise the runs could have missed: each draw of each item leaves its usual value by one step with probability
   π, so a draw's variance is at most π·h². Over the N draws behind the items' estimates (Σ K_i of the items
   with K_i ≥ 2, plus the current run's repeated samples) no move was seen with probability (1 − π)^N ≈ e^{−πN};
   the largest π that leaves this at least 5 % likely is π₀ = −ln(0.05)/N ≈ 3/N — the rule of three. For a
   mean of n items blessed K times (m = 1) that is the metric's one step δ = h/n taken λ ≤ 3/K times a run:
   a standard error of δ·√(3(1 + 1/K)/K) — 1.15 steps at K = 3, 0.85 at K = 5 — so one item moving one step
   is not significant up to K = 7 (p = 0.19 at K = 3), while a regression that moves several items several
   steps is. The floor's 3 events are added to the noise the runs did see, V + π₀·h²·Σ c_i, as pseudo-counts
   (Agresti–Coull's remedy for a binomial interval at small counts): with L steps seen the noise is that of
   (L + 3) steps, which a fresh run's Poisson count of steps needs while L is small, and a bound of 3 when
   none was seen (only where some item agreed over its draws: noise seen on every item is no rare step); it
   has no sampling error, so it adds to V without adding to Σ (b_i σ̂_i²)²/ν_i (ν grows; ν = ∞ where nothing
   was seen). Its cost to false alarms is bounded: an unchanged system that blessed K
   agreeing runs and then moves has probability e^{−λK}·P(steps ≥ z·√(λ₀(1 + 1/K))), at most 2.5 % at
   K ≤ 5 and 4 % at K = 10 for a one-sided test at 5 % (the tests compute it and simulate every step rate).
   A continuous metric has no lattice (its gaps are tiny), so the floor is negligible there: a metric that
   never moved is the best detector there is.
4. Skew (`skewness`): rare jumps one way (a system that now and then leaks a stereotype) make Δ skewed, which
   a symmetric reference misreads; the items' third moments give γ, and `gate.stats.change` corrects for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

AGREEMENT_LEVEL = 0.05  # the floor is the noise K agreeing runs rule out at this level (the rule of three)
ZERO_EVENTS = -math.log(AGREEMENT_LEVEL)  # ≈ 3.0: the 95 % upper bound on a Poisson mean after 0 events
_GAP = 1e-9  # relative gap below which two values are the same lattice point (floating-point rounding)


@dataclass(frozen=True)
class Draws:
    """Per item: the variance between its draws (NaN: unknown) and how many draws its value is the mean of."""

    variances: NDArray[np.float64] | None
    counts: NDArray[np.float64] | None

    def arrays(self, n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if self.variances is None or self.counts is None:
            return np.full(n, np.nan), np.ones(n)
        return np.asarray(self.variances, dtype=float), np.maximum(np.asarray(self.counts, dtype=float), 1.0)


@dataclass(frozen=True)
class KnownNoise:
    se: float  # √(V + V_floor)
    df: float  # Welch–Satterthwaite ν of it (∞ where no noise was seen)
    single_run_var: float  # the variance item noise gives one blessed run's mean (floored alike)
    floored: bool  # the agreement floor is most of the noise: the runs agreed more than they can vouch for
    step: float | None  # the lattice step h the floor used (None: no two distinct values)
    skew: float = 0.0  # γ, the skewness of Δ under "nothing changed", from the items' third moments


def known_noise(baseline: Draws, current: Draws, values: tuple[NDArray[np.float64], NDArray[np.float64]],
                runs: int, thirds: NDArray[np.float64] | None = None) -> KnownNoise | None:
    """The noise of a mean's change from the items' known noise (module docstring); None when fewer than half
    the items (or fewer than 2) have an estimate. `values`: the (current, baseline) item values (n,);
    `thirds`: each baseline item's third central moment over its draws (NaN: unknown)."""
    n = values[0].shape[0]
    v_b, k_b = baseline.arrays(n)
    v_c, k_c = current.arrays(n)
    df_b = np.where(np.isfinite(v_b) & (k_b >= 2), k_b - 1, 0.0)
    df_c = np.where(np.isfinite(v_c) & (k_c >= 2), k_c - 1, 0.0)
    dfs = df_b + df_c
    known = dfs > 0
    if known.sum() < max(2, n / 2):
        return None
    weighted = np.where(df_b > 0, df_b * np.nan_to_num(v_b), 0.0) + np.where(df_c > 0, df_c * np.nan_to_num(v_c), 0.0)
    total_df = float(dfs.sum())
    sigma2 = np.where(known, weighted / np.where(known, dfs, 1.0), float(weighted.sum()) / total_df)
    coef = (1 / k_c + 1 / k_b) / n ** 2
    variance = float(np.sum(sigma2 * coef))
    borrowed = float(coef[~known].sum())  # the pooled items' weight, carried by the known items' estimates
    parts = (coef[known] + borrowed * dfs[known] / total_df) * sigma2[known]
    df = satterthwaite(parts, dfs[known]) if variance > 0 else total_df
    per_run = np.maximum(k_b / max(runs, 1), 1.0)  # draws behind one blessed run's value of the item
    single = float(np.sum(sigma2 / per_run)) / n ** 2
    step = lattice_step(values, (v_b, k_b), (v_c, k_c))
    agreed = float(np.sum(np.where(np.isfinite(v_b) & (k_b >= 2), k_b, 0.0))
                   + np.sum(np.where(np.isfinite(v_c) & (k_c >= 2), k_c, 0.0)))
    calm = [np.isfinite(v) & (k >= 2) & (v <= (_GAP * max(1.0, float(np.nanmax(np.abs(values[1]), initial=0.0)))) ** 2)
            for v, k in ((v_b, k_b), (v_c, k_c))]
    seen_agree = bool(calm[0].any() or calm[1].any())  # no item agreed over its draws: no rare-step noise to floor
    floor_sigma2 = ZERO_EVENTS / agreed * step ** 2 if step is not None and agreed > 0 and seen_agree else 0.0
    floor = floor_sigma2 * float(coef.sum())
    total = variance + floor  # the noise seen, plus what the agreeing runs could have missed
    if total <= 0:
        return KnownNoise(0.0, df, single, False, step)
    spread = float(np.sum(parts ** 2 / dfs[known]))  # the floor is a fixed bound: no sampling error, no df
    return KnownNoise(math.sqrt(total), total ** 2 / spread if spread > 0 else math.inf,
                      single + floor_sigma2 * float(np.sum(1 / per_run)) / n ** 2, floor > variance, step,
                      skewness(thirds, (k_b, k_c), total))


def skewness(thirds: NDArray[np.float64] | None, draws: tuple[NDArray[np.float64], NDArray[np.float64]],
             variance: float) -> float:
    """γ = κ₃(Δ) / V^{3/2}: item i's third cumulant κ₃ᵢ, estimated without bias from its K_i ≥ 3 blessed draws by
    the k-statistic k₃ = K²/((K − 1)(K − 2))·m₃ (`scipy.stats.kstat(x, 3)`; the mean of the others' where an
    item has none), enters the mean of m_i current draws as κ₃ᵢ/m_i² and the mean of K_i blessed ones as
    κ₃ᵢ/K_i², so κ₃(Δ) = Σ κ₃ᵢ·(1/m_i² − 1/K_i²) / n³. 0 when fewer than half the items have an estimate."""
    if thirds is None:
        return 0.0
    k_b, k_c = draws
    n = k_b.shape[0]
    thirds = np.asarray(thirds, dtype=float)
    known = np.isfinite(thirds) & (k_b >= 3)
    if known.sum() < max(2, n / 2):
        return 0.0
    k3 = np.where(known, k_b ** 2 / np.maximum((k_b - 1) * (k_b - 2), 1.0) * np.nan_to_num(thirds), 0.0)
    k3 = np.where(known, k3, float(k3[known].mean()))
    kappa3 = float(np.sum(k3 * (1 / k_c ** 2 - 1 / k_b ** 2))) / n ** 3
    return kappa3 / variance ** 1.5


def satterthwaite(parts: NDArray[np.float64], dfs: NDArray[np.float64]) -> float:
    """ν = (Σ v_j)² / Σ v_j² / ν_j: the degrees of freedom of a sum of independent variance estimates v_j, each on
    ν_j df (Welch 1947, Satterthwaite 1946). Terms with v_j = 0 add nothing; an empty sum has ν = ∞."""
    parts, dfs = np.asarray(parts, dtype=float), np.asarray(dfs, dtype=float)
    total = float(parts.sum())
    spread = float(np.sum(np.where(parts > 0, parts ** 2 / np.where(dfs > 0, dfs, 1.0), 0.0)))
    return total ** 2 / spread if spread > 0 else math.inf


def lattice_step(values: tuple[NDArray[np.float64], NDArray[np.float64]],
                 baseline: tuple[NDArray[np.float64], NDArray[np.float64]],
                 current: tuple[NDArray[np.float64], NDArray[np.float64]]) -> float | None:
    """h: the smallest gap between the distinct values the items take where a value is one draw or its draws
    agreed (a mean of draws that differ is off the lattice); None below two distinct values."""
    points = []
    for vals, (var, count) in zip(values, (current, baseline), strict=True):
        scale = max(1.0, float(np.max(np.abs(vals[np.isfinite(vals)]), initial=0.0)))
        agreed = np.isfinite(var) & (var <= (_GAP * scale) ** 2)  # a variance of rounding is none
        points.append(vals[np.isfinite(vals) & ((count <= 1) | agreed)])
    distinct = np.unique(np.concatenate(points))
    if distinct.size < 2:
        return None
    scale = max(1.0, float(np.max(np.abs(distinct))))
    gaps = np.diff(distinct)
    gaps = gaps[gaps > _GAP * scale]
    return float(gaps.min()) if gaps.size else None
