"""`gate.stats.known_noise` against independent references (issue 35, items 4 and 5): Welch–Satterthwaite degrees
of freedom against scipy's Welch t-test and statsmodels; the agreement floor against its formula written here,
the Poisson bound it rests on (scipy.stats.poisson) and simulated rare one-step noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.weightstats import ttest_ind as statsmodels_ttest_ind

from gate.stats import change_test, statistics
from gate.stats.known_noise import ZERO_EVENTS, lattice_step, satterthwaite

MEAN = statistics.mean("x")


def col(values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(-1, 1)


# ---------------------------------------------------------------- Welch–Satterthwaite (item 5)


@pytest.mark.parametrize("n1, n2, sd1, sd2, seed", [(3, 5, 1.0, 4.0, 1), (5, 5, 0.2, 0.2, 2), (12, 4, 3.0, 0.5, 3),
                                                    (2, 30, 1.0, 1.0, 4)])
def test_satterthwaite_is_welchs_df_of_scipy_and_statsmodels(n1, n2, sd1, sd2, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(0, sd1, n1), rng.normal(1, sd2, n2)
    va, vb = a.var(ddof=1), b.var(ddof=1)
    df = satterthwaite(np.array([va / n1, vb / n2]), np.array([n1 - 1, n2 - 1]))
    assert df == pytest.approx(scipy_stats.ttest_ind(a, b, equal_var=False).df, rel=1e-12)
    assert df == pytest.approx(statsmodels_ttest_ind(a, b, usevar="unequal")[2], rel=1e-12)


def test_the_change_tests_df_is_welchs_when_the_noise_sits_in_two_items():
    """Two items whose run-to-run variances come from n1 and n2 draws, the current run a mean of as many samples:
    var(Δ) = Σ s_i²(1/m_i + 1/K_i)/4 ∝ s1²/n1 + s2²/n2, so its df is exactly Welch's."""
    rng = np.random.default_rng(7)
    x1, x2 = rng.normal(0, 1.0, 4), rng.normal(0, 3.0, 9)
    draws = np.array([4.0, 9.0])
    test = change_test(col([0.5, 0.6]), col([0.5001, 0.6002]), MEAN, runs=4,
                       item_variances=np.array([x1.var(ddof=1), x2.var(ddof=1)]), item_runs=draws,
                       current_variances=np.full(2, np.nan), current_draws=draws)
    assert test.df == pytest.approx(scipy_stats.ttest_ind(x1, x2, equal_var=False).df, rel=1e-12)
    assert test.df < 4 - 1 + 9 - 1  # the naive Σ (K_i − 1) claims more certainty than two noisy items give


def test_noise_carried_by_a_few_items_has_few_degrees_of_freedom():
    """The issue's 384: Σ (K_i − 1) over 96 items × 5 runs, when 2 items carry all the noise (a rare leak)."""
    variances = np.full(96, 1e-8)
    variances[:2] = 0.02
    rng = np.random.default_rng(1)
    now, then = col(rng.uniform(0, 0.1, 96)), col(rng.uniform(0, 0.1, 96))
    test = change_test(now, then, MEAN, runs=5, item_variances=variances, item_runs=np.full(96, 5.0))
    assert 8 - 0.1 < test.df < 8.1  # ≈ the two items' 2 × (5 − 1), not 384


# ---------------------------------------------------------------- the agreement floor (item 4)


def rubric_group(n=24, seed=3):
    rng = np.random.default_rng(seed)
    return np.clip(np.round(rng.normal(7, 1.5, n)), 0, 10)


@pytest.mark.parametrize("k", [3, 5, 10])
def test_agreeing_runs_floor_the_noise_at_one_step_by_the_rule_of_three(k):
    """K runs in which no item moved: the per-draw variance is floored at (−ln 0.05 / (n K))·h², h = 1 point, so
    SE = h·√(3(1 + 1/K)/K)/n and one step of the category mean has p = Φ(−√(K/(3(1 + 1/K)))): not significant
    up to K = 7; beyond, one step is as rare as that (the worst case over step rates stays below α: next test)."""
    values = rubric_group()
    n = len(values)
    now = values.copy()
    now[0] -= 1  # one prompt's score moved one step
    test = change_test(col(now), col(values), MEAN, runs=k, item_variances=np.zeros(n), item_runs=np.full(n, float(k)))
    se = 1.0 * math.sqrt(-math.log(0.05) * (1 + 1 / k) / k) / n
    assert ZERO_EVENTS == pytest.approx(-math.log(0.05)) and test.se == pytest.approx(se, rel=1e-12)
    assert test.df == math.inf and "agreement floored at one step of 1" in test.method
    p = test.p_value("decrease")
    assert p == pytest.approx(scipy_stats.norm.cdf(-math.sqrt(k / (-math.log(0.05) * (1 + 1 / k)))), rel=1e-9)
    assert p > (0.05 if k <= 7 else 0.03)  # before the floor: se = 0 and p = 0, a failure on every step
    broken = values.copy()
    broken[:3] -= 3  # three prompts broken, three points each
    assert change_test(col(broken), col(values), MEAN, runs=k, item_variances=np.zeros(n),
                       item_runs=np.full(n, float(k))).p_value("decrease") < 1e-6


@pytest.mark.parametrize("k", [3, 5, 10])
def test_the_floor_bounds_false_alarms_over_every_step_rate(k):
    """The unconditional false-alarm rate of the floored test at α = 5 % (one-sided), with prompts that step
    down one point with probability π per run (the snapshot keeps each item's third moment, as `bless --add`
    does): simulated at several π, and the Poisson bound of the docstring, max over λ of e^{−λK}·P(Poisson(λ)
    ≥ c) with c the steps a fresh run needs to fail: below α."""
    n, trials = 24, 1000
    base = rubric_group(n)
    rng = np.random.default_rng(11)
    for pi in (0.002, 0.01, 0.03, 0.1):
        fails = 0
        for _ in range(trials):
            runs = base - (rng.random((k, n)) < pi)
            fresh = base - (rng.random(n) < pi)
            test = change_test(col(fresh), col(runs.mean(0)), MEAN, runs=k, item_variances=runs.var(0, ddof=1),
                               item_runs=np.full(n, float(k)), item_thirds=((runs - runs.mean(0)) ** 3).mean(0))
            fails += test.p_value("decrease") < 0.05
        assert fails / trials < 0.05 + 3 * math.sqrt(0.05 * 0.95 / trials), pi
    steps = math.ceil(scipy_stats.norm.ppf(0.95) * math.sqrt(-math.log(0.05) * (1 + 1 / k) / k))
    worst = max(math.exp(-lam * k) * scipy_stats.poisson.sf(steps - 1, lam) for lam in np.linspace(0.01, 5, 500))
    assert steps == (2 if k <= 5 else 1) and worst < (0.025 if k <= 5 else 0.04)


def test_a_continuous_metric_that_never_moved_is_the_best_detector():
    """No lattice: the smallest gap between distinct values is tiny, so is the floor; a deterministic metric
    (a retriever's reciprocal rank, constant under noise) sees one query break."""
    rng = np.random.default_rng(5)
    values = rng.uniform(0.2, 0.9, 40)
    now = values.copy()
    now[3] -= 0.2
    test = change_test(col(now), col(values), MEAN, runs=5, item_variances=np.zeros(40), item_runs=np.full(40, 5.0))
    assert test.p_value("decrease") < 1e-9


def test_noise_the_runs_did_see_gets_the_floors_three_pseudo_steps_added():
    """V + (−ln 0.05 / N)·h²·Σ(1 + 1/K)/n² with N = Σ K_i draws and h = 1 (the current run's whole points): the
    floor is a fixed bound, so ν is the estimate's Satterthwaite ν scaled by (V_total / V)². (Where no item
    agreed over its runs the noise is no rare step, and nothing is added: the other tests' exact formulas.)"""
    rng = np.random.default_rng(9)
    values = rubric_group(40, seed=9)
    variances = np.where(np.arange(40) < 36, 0.0, rng.uniform(0.1, 0.3, 40))  # 36 prompts never moved
    test = change_test(col(values - 1), col(values), MEAN, runs=5, item_variances=variances,
                       item_runs=np.full(40, 5.0))
    seen = np.sum(variances * 1.2) / 40 ** 2
    floor = -math.log(0.05) / 200 * 1.0 ** 2 * 40 * 1.2 / 40 ** 2
    assert test.se == pytest.approx(math.sqrt(seen + floor), rel=1e-12) and "floored" not in test.method
    plain = (seen ** 2) / np.sum((variances * 1.2 / 40 ** 2) ** 2 / 4)
    assert floor > seen / 2  # the pseudo-steps matter when 4 prompts moved a little
    assert test.df == pytest.approx(plain * ((seen + floor) / seen) ** 2, rel=1e-12)


def test_the_lattice_step_is_the_smallest_gap_of_values_that_are_single_draws_or_agreed():
    ones, nan = np.ones(4), np.full(4, np.nan)
    current, baseline = np.array([7.0, 9.0, 3.0, 5.0]), np.array([7.0, 8.5, 3.0, 5.0])
    assert lattice_step((current, baseline), (np.zeros(4), np.full(4, 3.0)), (nan, ones)) == 0.5
    moved = np.array([0.0, 1 / 3, 0.0, 0.0])  # the 8.5 is a mean of draws that differ: off the lattice
    assert lattice_step((current, baseline), (moved, np.full(4, 3.0)), (nan, ones)) == 2.0
    assert lattice_step((np.full(3, 4.0), np.full(3, 4.0)), (np.zeros(3), np.full(3, 3.0)), (nan[:3], ones[:3])) is None
