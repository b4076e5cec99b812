"""`gate.stats.change_test` against independent references: scipy's paired t-test for a mean, a bootstrap
written here for any other statistic, and the shared-noise formula of the module's docstring worked by hand.

A one-sided p is the probability of a change at least this bad under "nothing changed"; the MDE is the change
a one-sided test at level alpha detects with 80 % power, (t_{1−α} + t_{0.8})·SE."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from gate.stats import POWER, change_test, statistics, t_cdf, t_quantile
from gate.stats.statistics import ItemStatistic


def rows(values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(-1, 1)


def noisy_pair(n: int, shift: float, seed: int, noise: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.4, 0.9, n)
    return base + shift + rng.normal(0, noise, n), base + rng.normal(0, noise, n)


# ---------------------------------------------------------------- a mean: Student's paired t-test


@pytest.mark.parametrize("n, shift, seed", [(5, -0.02, 1), (40, -0.01, 2), (40, 0.015, 3), (300, 0.0, 4),
                                            (12, -0.2, 5)])
def test_the_p_value_of_a_mean_is_scipys_one_sided_paired_t_test(n, shift, seed):
    now, then = noisy_pair(n, shift, seed)
    test = change_test(rows(now), rows(then), statistics.mean("f1"))
    less = scipy_stats.ttest_rel(now, then, alternative="less")
    greater = scipy_stats.ttest_rel(now, then, alternative="greater")
    assert test.p_value("decrease") == pytest.approx(less.pvalue, rel=1e-9, abs=1e-300)
    assert test.p_value("increase") == pytest.approx(greater.pvalue, rel=1e-9, abs=1e-300)
    assert test.estimate == pytest.approx(np.mean(now) - np.mean(then), abs=1e-12)
    assert test.estimate / test.se == pytest.approx(less.statistic, rel=1e-9)
    assert (test.n, test.df, test.runs, test.method) == (n, n - 1, 1, "paired t-test")
    assert test.shared_sd is None and test.item_se == test.se  # a one-run snapshot: item noise only


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.05 / 6])
def test_the_mde_is_the_t_quantiles_times_the_standard_error(alpha):
    now, then = noisy_pair(25, 0.0, seed=11)
    test = change_test(rows(now), rows(then), statistics.mean("f1"))
    se = np.std(now - then, ddof=1) / math.sqrt(25)
    assert test.se == pytest.approx(se, rel=1e-12)
    expected = (scipy_stats.t.ppf(1 - alpha, 24) + scipy_stats.t.ppf(0.8, 24)) * se
    assert POWER == 0.8 and test.mde(alpha) == pytest.approx(expected, rel=1e-9)
    assert test.mde(alpha, power=0.5) == pytest.approx(scipy_stats.t.ppf(1 - alpha, 24) * se, rel=1e-9)


def test_the_mde_is_what_it_claims_a_true_change_of_that_size_is_detected_with_80_percent_power():
    """Simulate: a true drop of exactly the MDE (at α = 0.05, n = 30, sd 0.05) is significant in ≈ 80 % of runs."""
    rng = np.random.default_rng(5)
    sd, n, alpha = 0.05, 30, 0.05
    planned = (scipy_stats.t.ppf(1 - alpha, n - 1) + scipy_stats.t.ppf(0.8, n - 1)) * sd / math.sqrt(n)
    hits = 0
    for _ in range(1000):
        d = rng.normal(-planned, sd, n)
        hits += change_test(rows(d), rows(np.zeros(n)), statistics.mean("f1")).p_value("decrease") <= alpha
    assert 0.75 <= hits / 1000 <= 0.85  # 3 binomial SEs around 0.80 (noncentral t: 0.80 to ±0.01)


# ---------------------------------------------------------------- any other statistic: a paired bootstrap


def reference_bootstrap_se(now: np.ndarray, then: np.ndarray, f, resamples: int = 2000, seed: int = 12345) -> float:
    """Resample items (the same items for both runs), recompute f on each run, take the sd of the change."""
    rng = np.random.default_rng(seed)
    n = len(now)
    deltas = []
    for _ in range(resamples):
        idx = rng.integers(0, n, n)
        deltas.append(f(now[idx]) - f(then[idx]))
    return float(np.std(deltas, ddof=1))


def ratio_of_sums(v):  # a corpus-level statistic of two columns: Σ hits / Σ total
    return v[..., 0].sum(axis=-1) / v[..., 1].sum(axis=-1)


@pytest.mark.parametrize("name, statistic, f", [
    ("p90", statistics.percentile("f1", 90), lambda x: np.percentile(x[:, 0], 90)),
    ("std", statistics.std("f1"), lambda x: np.std(x[:, 0])),
    ("median", statistics.median("f1"), lambda x: np.median(x[:, 0])),
    ("ratio", ItemStatistic(("hits", "total"), ratio_of_sums), lambda x: x[:, 0].sum() / x[:, 1].sum()),
])
def test_a_non_linear_statistic_has_the_bootstrap_se_times_the_small_sample_factor(name, statistic, f):
    rng = np.random.default_rng(21)
    n = 60
    if name == "ratio":
        total = rng.integers(5, 30, n).astype(float)
        then = np.column_stack([rng.binomial(total.astype(int), 0.6), total])
        now = np.column_stack([rng.binomial(total.astype(int), 0.55), total])
    else:
        base = rng.gamma(2.0, 0.5, n)
        now, then = rows(base * rng.lognormal(0, 0.3, n)), rows(base * rng.lognormal(0, 0.3, n))
    test = change_test(now, then, statistic)
    reference = reference_bootstrap_se(now, then, f) * math.sqrt(n / (n - 1))
    assert test.se == pytest.approx(reference, rel=0.10)  # two independent 2,000-resample bootstraps
    assert test.estimate == pytest.approx(f(now) - f(then), abs=1e-12)
    assert test.method == "paired bootstrap (2,000 resamples)" and test.df == n - 1
    assert test.p_value("decrease") == pytest.approx(scipy_stats.t.cdf(test.estimate / test.se, n - 1), rel=1e-9)


def test_a_bootstrapped_mean_agrees_with_the_t_test_thanks_to_the_factor():
    """The bootstrap SE of a mean is sd(ddof 0)/√n; × √(n/(n−1)) it is the t-test's sd(ddof 1)/√n."""
    now, then = noisy_pair(15, 0.0, seed=8)
    linear = change_test(rows(now), rows(then), statistics.mean("f1"))
    bootstrapped = change_test(rows(now), rows(then), ItemStatistic(("f1",), lambda v: v[..., 0].mean(axis=-1)),
                               resamples=8000)
    assert bootstrapped.se == pytest.approx(linear.se, rel=0.05)
    assert bootstrapped.se == pytest.approx(scipy_stats.ttest_rel(now, then).statistic ** -1
                                            * (now - then).mean(), rel=0.05)


def test_the_bootstrap_is_seeded():
    now, then = noisy_pair(30, 0.0, seed=2)
    p90 = statistics.percentile("f1", 90)
    assert change_test(rows(now), rows(then), p90).se == change_test(rows(now), rows(then), p90).se
    assert change_test(rows(now), rows(then), p90, seed=1).se != change_test(rows(now), rows(then), p90).se


# ---------------------------------------------------------------- shared run-to-run noise of a K-run snapshot


def test_shared_noise_adds_to_the_item_noise_with_welch_satterthwaite_degrees_of_freedom():
    now, then = noisy_pair(20, -0.01, seed=13, noise=0.02)
    item_se = np.std(now - then, ddof=1) / math.sqrt(20)
    runs, run_sd = 5, 3 * item_se  # the metric moved between blessed runs far more than item noise explains
    test = change_test(rows(now), rows(then), statistics.mean("f1"), runs=runs, run_sd=run_sd)
    factor = 1 + 1 / 5
    tau2 = run_sd ** 2 - item_se ** 2 / factor
    extra = tau2 * factor
    se2 = item_se ** 2 + extra
    df = se2 ** 2 / (item_se ** 4 / 19 + extra ** 2 / 4)
    assert test.item_se == pytest.approx(item_se, rel=1e-12)
    assert test.se == pytest.approx(math.sqrt(se2), rel=1e-12)
    assert test.shared_sd == pytest.approx(math.sqrt(tau2), rel=1e-12)
    assert test.df == pytest.approx(df, rel=1e-12) and 4 < test.df < 19
    assert test.runs == 5
    delta = np.mean(now) - np.mean(then)
    assert test.p_value("decrease") == pytest.approx(scipy_stats.t.cdf(delta / math.sqrt(se2), df), rel=1e-9)
    assert test.mde(0.05) == pytest.approx(
        (scipy_stats.t.ppf(0.95, df) + scipy_stats.t.ppf(0.8, df)) * math.sqrt(se2), rel=1e-9)


def test_run_noise_that_item_noise_explains_adds_nothing():
    now, then = noisy_pair(20, 0.0, seed=14)
    plain = change_test(rows(now), rows(then), statistics.mean("f1"))
    quiet = change_test(rows(now), rows(then), statistics.mean("f1"), runs=3, run_sd=0.5 * plain.item_se)
    assert quiet.shared_sd == 0.0 and (quiet.se, quiet.df) == (plain.se, plain.df)


@pytest.mark.parametrize("runs, run_sd", [(1, 0.5), (3, None), (3, math.nan), (3, math.inf)])
def test_without_a_usable_run_sd_the_shared_noise_is_unknown(runs, run_sd):
    now, then = noisy_pair(20, 0.0, seed=15)
    plain = change_test(rows(now), rows(then), statistics.mean("f1"))
    test = change_test(rows(now), rows(then), statistics.mean("f1"), runs=runs, run_sd=run_sd)
    assert test.shared_sd is None and (test.se, test.df) == (plain.se, plain.df) and test.runs == runs


# ---------------------------------------------------------------- a mean against a K-run snapshot: known item noise


def known_noise_case(n: int = 24, seed: int = 31):
    rng = np.random.default_rng(seed)
    variances = rng.uniform(0.0005, 0.004, n)  # each item's run-to-run variance over its blessed runs
    item_runs = rng.choice([2.0, 3.0, 5.0], n)
    then = rng.uniform(0.5, 0.9, n)
    now = then - 0.01 + rng.normal(0, np.sqrt(variances))
    return rows(now), rows(then), variances, item_runs


def satterthwaite(parts, dfs) -> float:
    """Welch–Satterthwaite, written here: (Σ v_j)² / Σ (v_j² / ν_j)."""
    return sum(parts) ** 2 / sum(p ** 2 / d for p, d in zip(parts, dfs, strict=True))


def test_a_mean_against_k_runs_uses_the_items_run_to_run_variances():
    now, then, v, k = known_noise_case()
    test = change_test(now, then, statistics.mean("f1"), runs=5, item_variances=v, item_runs=k)
    se = math.sqrt(sum(vi * (1 + 1 / ki) for vi, ki in zip(v, k, strict=True))) / 24
    df = satterthwaite([vi * (1 + 1 / ki) for vi, ki in zip(v, k, strict=True)], k - 1)
    assert df < sum(k - 1)  # unequal item noise: fewer effective degrees of freedom than Σ (K_i − 1)
    assert test.se == pytest.approx(se, rel=1e-12) and test.item_se == test.se and test.df == pytest.approx(df)
    assert test.method == "paired z-test on the items' known noise (5 blessed runs)" and test.shared_sd is None
    delta = now.mean() - then.mean()
    assert test.p_value("decrease") == pytest.approx(scipy_stats.t.cdf(delta / se, df), rel=1e-9)
    assert test.mde(0.01) == pytest.approx((scipy_stats.t.ppf(0.99, df) + scipy_stats.t.ppf(0.8, df)) * se, rel=1e-9)


def test_known_item_noise_and_shared_noise_combine_by_welch_satterthwaite():
    now, then, v, k = known_noise_case()
    runs, run_sd = 5, 0.03
    test = change_test(now, then, statistics.mean("f1"), runs=runs, run_sd=run_sd, item_variances=v, item_runs=k)
    item_se2 = sum(vi * (1 + 1 / ki) for vi, ki in zip(v, k, strict=True)) / 24 ** 2
    df_items = satterthwaite([vi * (1 + 1 / ki) for vi, ki in zip(v, k, strict=True)], k - 1)
    tau2 = run_sd ** 2 - sum(v) / 24 ** 2  # minus what item noise gives one run's mean
    extra = tau2 * (1 + 1 / runs)
    assert test.shared_sd == pytest.approx(math.sqrt(tau2), rel=1e-12)
    assert test.se == pytest.approx(math.sqrt(item_se2 + extra), rel=1e-12)
    assert test.df == pytest.approx((item_se2 + extra) ** 2 / (item_se2 ** 2 / df_items + extra ** 2 / 4), rel=1e-12)


def test_items_without_a_variance_get_the_pooled_one_and_add_no_degrees_of_freedom():
    """The pooled σ² is Σ ν_i s_i² / Σ ν_i: the unknown items' weight falls on the known items by their df."""
    now, then, v, k = known_noise_case()
    v, k = v.copy(), k.copy()
    v[:5] = np.nan  # five items were in one blessed run only
    k[5:8] = 1.0
    known = np.isfinite(v) & (k >= 2)
    pooled = np.sum(v[known] * (k[known] - 1)) / np.sum(k[known] - 1)
    filled = np.where(known, v, pooled)
    test = change_test(now, then, statistics.mean("f1"), runs=3, item_variances=v, item_runs=k)
    assert test.se == pytest.approx(math.sqrt(np.sum(filled * (1 + 1 / k))) / 24, rel=1e-12)
    borrowed = np.sum((1 + 1 / k[~known]) / 24 ** 2)
    parts = ((1 + 1 / k[known]) / 24 ** 2 + borrowed * (k[known] - 1) / np.sum(k[known] - 1)) * v[known]
    assert test.df == pytest.approx(satterthwaite(parts, k[known] - 1), rel=1e-12) and test.df < np.sum(k[known] - 1)


@pytest.mark.parametrize("case", ["too few known", "one-run snapshot", "not a mean"])
def test_otherwise_the_noise_comes_from_the_differences(case):
    now, then, v, k = known_noise_case()
    statistic, runs = statistics.mean("f1"), 3
    if case == "too few known":
        v = np.where(np.arange(24) < 13, np.nan, v)  # 11 of 24 known: fewer than half
    elif case == "one-run snapshot":  # one draw per item: no item has a variance of its own
        runs, k = 1, np.ones_like(k)
    else:
        statistic = statistics.percentile("f1", 50)
    test = change_test(now, then, statistic, runs=runs, item_variances=v, item_runs=k)
    plain = change_test(now, then, statistic, runs=runs)
    assert (test.se, test.df, test.method) == (plain.se, plain.df, plain.method)
    assert not test.method.startswith("paired z-test")


# ---------------------------------------------------------------- degenerate inputs


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_pairs_cannot_be_tested(n):
    assert change_test(rows([0.5] * n), rows([0.9] * n), statistics.mean("f1")) is None
    assert change_test(rows([0.5] * n), rows([0.9] * n), statistics.percentile("f1", 90)) is None


@pytest.mark.parametrize("statistic", [statistics.mean("f1"), statistics.percentile("f1", 90)])
def test_identical_runs_change_nothing_with_p_one_on_both_sides(statistic):
    same = rows([0.9, 0.4, 0.7, 0.65])
    test = change_test(same, same.copy(), statistic)
    assert (test.estimate, test.se) == (0.0, 0.0)
    assert test.p_value("decrease") == 1.0 and test.p_value("increase") == 1.0 and test.mde(0.05) == 0.0


def test_a_constant_drop_is_certain_on_its_side_and_impossible_on_the_other():
    then = np.array([0.9, 0.8, 0.7, 0.6])
    test = change_test(rows(then - 0.2), rows(then), statistics.mean("f1"))
    assert test.estimate == pytest.approx(-0.2) and test.se == pytest.approx(0.0, abs=1e-15)
    assert test.p_value("decrease") == pytest.approx(0.0, abs=1e-12)
    assert test.p_value("increase") == pytest.approx(1.0, abs=1e-12)
    rise = change_test(rows(then + 0.25), rows(then), statistics.mean("f1"))
    assert rise.p_value("increase") == pytest.approx(0.0, abs=1e-12)
    assert rise.p_value("decrease") == pytest.approx(1.0, abs=1e-12)


# ---------------------------------------------------------------- the t distribution


@pytest.mark.parametrize("df", [1, 2.5, 7, 39, 1e6])
@pytest.mark.parametrize("t", [-4.0, -1.3, 0.0, 0.7, 3.1])
def test_t_cdf_and_quantile_are_scipys(df, t):
    assert t_cdf(df, t) == pytest.approx(scipy_stats.t.cdf(t, df), rel=1e-10)
    p = scipy_stats.t.cdf(t, df)
    assert t_quantile(df, p) == pytest.approx(t, abs=1e-7)
    assert t_quantile(df, 0.975) == pytest.approx(scipy_stats.t.ppf(0.975, df), rel=1e-10)


def test_infinite_degrees_of_freedom_are_the_normal():
    assert t_cdf(math.inf, -1.2) == pytest.approx(scipy_stats.norm.cdf(-1.2), rel=1e-12)
    assert t_quantile(math.inf, 0.95) == pytest.approx(scipy_stats.norm.ppf(0.95), rel=1e-12)


def test_floating_point_rounding_of_blessed_means_is_not_a_significant_change():
    # a deterministic metric (credits unchanged run to run): the blessed means differ from the values only by
    # rounding, and the variances are rounding too; the test must not call that a change
    values = np.array([[3.1], [0.7], [2.9], [1.3]])
    rounded = values + np.array([[1e-16], [-2e-16], [4e-16], [0.0]])
    test = change_test(values, rounded, statistics.mean("x"), runs=5, item_variances=np.full(4, 1e-33),
                       item_runs=np.full(4, 5.0))
    assert test.estimate == 0 and test.p_value("decrease") >= 0.5 and test.p_value("increase") >= 0.5


def test_repeated_samples_let_one_run_measure_its_own_noise():
    # a one-run snapshot without samples, a current run with 4 samples per item: σ_i² from the samples,
    # var(d_i) = σ_i²·(1/4 + 1/1)
    rng = np.random.default_rng(11)
    n = 30
    spread = rng.uniform(0.001, 0.004, n)
    now, then = rng.normal(0.8, 0.05, (n, 1)), rng.normal(0.8, 0.05, (n, 1))
    test = change_test(now, then, statistics.mean("f1"), runs=1, current_variances=spread,
                       current_draws=np.full(n, 4.0))
    assert test.se == pytest.approx(math.sqrt(np.sum(spread * (1 / 4 + 1))) / n, rel=1e-12)
    assert test.df == pytest.approx(satterthwaite(spread * (1 / 4 + 1), np.full(n, 3.0)), rel=1e-12)
    assert "repeated samples" in test.method
    # samples on both sides: the df-weighted σ_i², var(d_i) = σ_i²·(1/m_i + 1/K_i)
    blessed = rng.uniform(0.001, 0.004, n)
    both = change_test(now, then, statistics.mean("f1"), runs=1, item_variances=blessed,
                       item_runs=np.full(n, 3.0), current_variances=spread, current_draws=np.full(n, 4.0))
    sigma2 = (2 * blessed + 3 * spread) / 5
    assert both.se == pytest.approx(math.sqrt(np.sum(sigma2 * (1 / 4 + 1 / 3))) / n, rel=1e-12)
    assert both.df == pytest.approx(satterthwaite(sigma2 * (1 / 4 + 1 / 3), np.full(n, 5.0)), rel=1e-12)
