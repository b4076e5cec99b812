"""Skewed noise in the change test (issue 35, item 5: a system that leaks a stereotype now and then), against
independent references: scipy.stats.kstat for the third cumulant, the exact binomial tail of a rare-jump sum for
Hall's transformation, and simulated rare heavy-tailed runs for the false-alarm rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from gate.stats import change_test, statistics
from gate.stats.change import hall
from gate.stats.known_noise import skewness

MEAN = statistics.mean("x")


def test_the_skewness_of_the_change_is_the_items_k_statistics_summed():
    """κ₃(Δ) = Σ k₃ᵢ·(1/m_i² − 1/K_i²)/n³ with k₃ᵢ scipy's unbiased third k-statistic of item i's K_i draws."""
    rng = np.random.default_rng(2)
    n, k = 30, np.array([5.0] * 20 + [8.0] * 10)
    draws = [rng.exponential(1.0, int(ki)) for ki in k]
    m3 = np.array([scipy_stats.moment(x, 3) for x in draws])  # what the snapshot keeps: Σ (x − x̄)³ / K
    current = np.where(np.arange(n) < 5, 3.0, 1.0)  # a few current items are means of 3 samples
    variance = 0.02
    expected = sum(scipy_stats.kstat(x, 3) * (1 / m ** 2 - 1 / ki ** 2)
                   for x, m, ki in zip(draws, current, k, strict=True)) / n ** 3 / variance ** 1.5
    assert skewness(m3, (k, current), variance) == pytest.approx(expected, rel=1e-12)
    unknown = m3.copy()
    unknown[:3] = np.nan  # an item without a third moment gets the others' mean k₃
    filled = [scipy_stats.kstat(x, 3) for x in draws]
    filled[:3] = [float(np.mean(filled[3:]))] * 3
    expected = sum(f * (1 / m ** 2 - 1 / ki ** 2) for f, m, ki in zip(filled, current, k, strict=True))
    assert skewness(unknown, (k, current), variance) == pytest.approx(expected / n ** 3 / variance ** 1.5, rel=1e-12)
    assert skewness(np.full(n, np.nan), (k, current), variance) == 0.0  # none known: taken as symmetric


@pytest.mark.parametrize("gamma", [-2.0, -0.5, 0.3, 1.0, 3.0])
def test_halls_transformation_is_increasing_and_first_order_edgeworth(gamma):
    s = np.linspace(-8, 8, 2001)
    h = np.array([hall(x, gamma) for x in s])
    assert np.all(np.diff(h) >= -1e-12)  # monotone: its derivative is (1 − γs/6)²
    assert hall(1.2, gamma) == pytest.approx(1.2 - gamma * (1.44 - 1) / 6 + gamma ** 2 * 1.728 / 108, rel=1e-12)
    assert hall(0.7, 0.0) == 0.7


def test_hall_is_closer_than_the_normal_to_the_exact_tail_of_a_rare_jump_sum():
    """The sum of n = 400 Bernoulli(0.002) jumps (0.8 expected): the exact binomial upper tail at 2, 3 and 4
    jumps against Φ(−s) and Φ(−h(s)), s the standardised count, γ = (1 − 2p)/√(np(1 − p))."""
    n, p = 400, 0.002
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    gamma = (1 - 2 * p) / sd
    for jumps in (2, 3, 4):
        s = (jumps - 0.5 - mean) / sd  # continuity-corrected
        exact = scipy_stats.binom.sf(jumps - 1, n, p)
        normal, skewed = scipy_stats.norm.sf(s), scipy_stats.norm.sf(hall(s, gamma))
        assert abs(math.log(skewed / exact)) < abs(math.log(normal / exact))


def leak_false_alarms(k, leak_rate, thirds, trials=1500, n=40, seed=1):
    """One-sided increase test at α = 5 % of a drift score whose probes leak +0.3 with `leak_rate` per run."""
    rng = np.random.default_rng(seed)
    fails = 0
    for _ in range(trials):
        q = np.abs(rng.normal(0.05, 0.03, n))
        runs = np.clip(q + rng.normal(0, 0.015, (k, n)) + 0.3 * (rng.random((k, n)) < leak_rate), 0, 1)
        fresh = np.clip(q + rng.normal(0, 0.015, n) + 0.3 * (rng.random(n) < leak_rate), 0, 1)
        m3 = ((runs - runs.mean(0)) ** 3).mean(0) if thirds else None
        test = change_test(fresh[:, None], runs.mean(0)[:, None], MEAN, runs=k, item_variances=runs.var(0, ddof=1),
                           item_runs=np.full(n, float(k)), item_thirds=m3)
        fails += test.p_value("increase") < 0.05
    return fails / trials


def test_rare_leaks_seen_by_the_blessed_runs_no_longer_fail_an_unchanged_system():
    """K = 10 runs of 40 probes that leak in 1 % of runs (4 leaks expected in the snapshot): read as symmetric,
    one leak too many fails 8 % of unchanged runs; with the third moments the rate is α."""
    tolerance = 3 * math.sqrt(0.05 * 0.95 / 1500)
    assert leak_false_alarms(10, 0.01, thirds=False) > 0.05 + tolerance
    assert leak_false_alarms(10, 0.01, thirds=True) < 0.05 + tolerance


def test_symmetric_noise_keeps_its_rate_with_the_third_moments_estimated():
    rate = leak_false_alarms(5, 0.0, thirds=True, trials=2000, seed=4)
    assert rate == pytest.approx(0.05, abs=3 * math.sqrt(0.05 * 0.95 / 2000))
