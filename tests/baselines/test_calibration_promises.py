"""Calibration keeps its promises (issue 20, item 6), checked against independent references: simulated fresh
runs for the promised false-alarm rates, scipy.stats.t for the quantiles, scipy.stats.bartlett for the variance
test, and the MDE and gate-level formulas written out here."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from scipy import stats

from gate.baselines.calibration import calibrate, default_metrics, gate_false_alarm, snippet
from gate.config.loader import parse_config
from gate.kinds import KINDS

HIGHER = {"drift": {"bertscore_f1": "higher", "credit_drift_mean": "lower"}}
PROMISE = stats.norm.sf(2)  # z = 2: a fresh run fails a group's threshold with probability Φ(−2) ≈ 2.28 %


def reports(matrix, metric="bertscore_f1", suite_metric=False):
    """One report per run r from matrix[r][g], the metric of group g (one group: a suite without groups)."""
    out = []
    for row in np.atleast_2d(matrix):
        groups = [] if len(row) == 1 and not suite_metric else [
            {"level": "group", "key": {"exercise": str(g)}, "metrics": {metric: float(v)}} for g, v in enumerate(row)]
        metrics = {metric: float(row[0])} if len(row) == 1 else {}
        out.append({"schema": 1, "suites": [{"name": "s", "kind": "drift", "groups": groups, "metrics": metrics}]})
    return out


def only(calibration, level):
    [found] = [p for p in calibration.proposals if p.level == level]
    return found


def fresh_failures(means, sds, k, trials, seed):
    """Draw k runs and one fresh run per trial; the fraction of trials where the fresh run fails the proposed min
    on some group, and the mean of the rates the calibration printed."""
    rng = np.random.default_rng(seed)
    failed, printed = 0, []
    for _ in range(trials):
        runs = rng.normal(means, sds, size=(k, len(means)))
        proposal = only(calibrate(reports(runs), HIGHER, z=2.0, warn_z=None), "group" if len(means) > 1 else "suite")
        fresh = rng.normal(means, sds)
        failed += bool((fresh < proposal.value).any())
        printed.append(proposal.fail_rate)
    return failed / trials, float(np.mean(printed))


def binomial_tolerance(p, trials, sds=4.0):
    return sds * math.sqrt(p * (1 - p) / trials)


def test_one_group_five_runs_fails_at_the_promised_rate():
    """The user's finding: k = 5, one group; a normal quantile with σ̂ promised 2.3 % and delivered ≈ 5.8 %."""
    trials = 12000
    rate, printed = fresh_failures([0.85], [0.005], k=5, trials=trials, seed=1)
    assert rate == pytest.approx(PROMISE, abs=binomial_tolerance(PROMISE, trials))
    assert printed == pytest.approx(PROMISE, rel=0.02)  # the printed rate is the promise (a hair less: rounding)


def test_pooled_groups_fail_at_the_promised_rate_with_g_times_k_minus_1_df():
    """Equal noise, far-apart means: the lowest group sets the min; its rate is the promise with df = g(k−1)."""
    trials = 8000
    rate, _ = fresh_failures([0.5, 0.7, 0.9], [0.01, 0.01, 0.01], k=3, trials=trials, seed=2)
    assert rate == pytest.approx(PROMISE, abs=binomial_tolerance(PROMISE, trials) + 0.002)


def test_groups_with_seven_times_different_noise_each_keep_their_own_sigma():
    """Pooling a quiet and a noisy group under-covers the noisy one (≈ 6.7 % instead of 2.3 % here)."""
    trials = 6000
    rate, printed = fresh_failures([0.85, 0.80], [0.005, 0.035], k=10, trials=trials, seed=3)
    assert rate == pytest.approx(PROMISE, abs=binomial_tolerance(PROMISE, trials) + 0.003)
    assert printed == pytest.approx(rate, abs=binomial_tolerance(PROMISE, trials) + 0.003)


def test_bartlett_decides_between_pooled_and_per_group_sigma_and_thresholds_match_scipy():
    rng = np.random.default_rng(4)
    k = 10
    unequal = rng.normal([0.85, 0.80, 0.83], [0.005, 0.035, 0.01], size=(k, 3))
    proposal = only(calibrate(reports(unequal), HIGHER, warn_z=None), "group")
    reference = stats.bartlett(*unequal.T)
    assert reference.pvalue < 0.05
    assert not proposal.pooled and proposal.homogeneity_p == pytest.approx(reference.pvalue, rel=1e-9)
    own = [m - stats.t.ppf(1 - PROMISE, k - 1) * s * math.sqrt(1 + 1 / k)
           for m, s in zip(unequal.mean(axis=0), unequal.std(axis=0, ddof=1), strict=True)]
    assert proposal.df == k - 1
    assert min(own) - 1e-4 < proposal.value <= min(own)

    equal = rng.normal([0.85, 0.80, 0.83], 0.01, size=(k, 3))
    proposal = only(calibrate(reports(equal), HIGHER, warn_z=None), "group")
    reference = stats.bartlett(*equal.T)
    assert reference.pvalue >= 0.05 and proposal.homogeneity_p == pytest.approx(reference.pvalue, rel=1e-9)
    assert proposal.pooled and proposal.df == 3 * (k - 1)
    s = math.sqrt(np.mean(equal.var(axis=0, ddof=1)))
    bound = equal.mean(axis=0).min() - stats.t.ppf(1 - PROMISE, 3 * (k - 1)) * s * math.sqrt(1 + 1 / k)
    assert bound - 1e-4 < proposal.value <= bound


def test_a_group_that_never_moved_borrows_the_others_sigma():
    runs = np.array([[0.9, 0.80], [0.9, 0.82], [0.9, 0.79], [0.9, 0.81]])
    proposal = only(calibrate(reports(runs), HIGHER, warn_z=None), "group")
    s = runs[:, 1].std(ddof=1)
    bound_constant = 0.9 - stats.t.ppf(1 - PROMISE, 3) * s * math.sqrt(1.25)
    bound_varying = runs[:, 1].mean() - stats.t.ppf(1 - PROMISE, 3) * s * math.sqrt(1.25)
    assert not proposal.pooled
    assert min(bound_constant, bound_varying) - 1e-4 < proposal.value <= min(bound_constant, bound_varying)


def drift_runs(k=8, seed=5):
    """Two exercises with both metrics at group level, bertscore_f1 also at the suite level."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(k):
        f1, drift = rng.normal([0.9, 0.8], 0.01), rng.normal([1.0, 2.0], 0.1)
        groups = [{"level": "group", "key": {"exercise": str(g)},
                   "metrics": {"bertscore_f1": float(f1[g]), "credit_drift_mean": float(drift[g])}} for g in range(2)]
        out.append({"schema": 1, "suites": [{"name": "fb", "kind": "drift", "groups": groups,
                                             "metrics": {"bertscore_f1": float(f1.mean())}}]})
    return out


def mde_reference(values, k, alpha, m):
    """(t_{1−α/m, k−1} + t_{0.8, k−1})·s·sqrt(1 + 1/k), rounded up to 2 significant digits."""
    exact = (stats.t.ppf(1 - alpha / m, k - 1) + stats.t.ppf(0.8, k - 1)) * np.std(values, ddof=1) \
        * math.sqrt(1 + 1 / k)
    unit = 10.0 ** (math.floor(math.log10(exact)) - 1)
    return exact, math.ceil(exact / unit - 1e-9) * unit


def test_change_checks_are_the_minimum_detectable_effect_at_holms_strictest_level():
    runs = drift_runs()
    result = calibrate(runs, HIGHER, alpha=0.05)
    changes = {c.metric: c for c in result.changes}
    f1, drift = changes["bertscore_f1"], changes["credit_drift_mean"]
    # suite scope where the reports have it (1 test), else the first level (2 groups: 2 tests): m = 3
    assert (f1.level, f1.op, f1.tests) == ("suite", "max_decrease", 3)
    assert (drift.level, drift.op, drift.tests, drift.n_groups) == ("group", "max_increase", 3, 2)
    suite_values = [r["suites"][0]["metrics"]["bertscore_f1"] for r in runs]
    exact, rounded = mde_reference(suite_values, len(runs), 0.05, 3)
    assert f1.df == len(runs) - 1 and f1.value == pytest.approx(rounded) and f1.value >= exact
    # at scope group every metric tests each of its 2 groups: m = 4, and a stricter α/m needs a larger effect
    grouped = {c.metric: c for c in calibrate(runs, HIGHER, alpha=0.05, scope="group").changes}
    assert grouped["bertscore_f1"].tests == 4 and grouped["bertscore_f1"].level == "group"
    assert calibrate(runs, HIGHER, alpha=0.01).changes[0].value > f1.value


def test_the_snippet_states_its_gate_level_false_alarm_rate_and_gate_yml_accepts_it():
    result = calibrate(drift_runs(), HIGHER, alpha=0.05)
    text = snippet(result)
    fragment = yaml.safe_load(text)
    assert fragment["alpha"] == 0.05
    checks = fragment["suites"]["fb"]["checks"]
    floor, change = checks["bertscore_f1"]  # a list: the floor per group, the change check at suite scope
    assert floor["scope"] == "group" and "min" in floor
    assert change["scope"] == "suite" and change["significant"] is True
    assert "max" in checks["credit_drift_mean"][0] and "max_increase" in checks["credit_drift_mean"][1]
    # p_i: the floors in the checks (per group); Holm keeps the change checks within α
    rates = [p.fail_rate for p in result.proposals if p.level == "group"]
    estimate, ceiling = gate_false_alarm(result)
    assert estimate == pytest.approx(1 - 0.95 * math.prod(1 - p for p in rates))
    assert ceiling == pytest.approx(0.05 + sum(rates))
    assert f"about {estimate:.1%}" in text and f"ceiling {ceiling:.1%}" in text
    gate = {"version": 1, "suites": {"fb": {"kind": "drift", "baseline": "b/*.json", "candidates": "c.jsonl"}}}
    gate["alpha"] = fragment["alpha"]
    gate["suites"]["fb"]["checks"] = checks
    config = parse_config(yaml.safe_dump(gate), metrics=KINDS)
    parsed = config.suites["fb"].checks["bertscore_f1"]
    assert isinstance(parsed, list) and parsed[0].min is not None
    assert parsed[1].significant and parsed[1].max_decrease == result.changes[0].bound == 0 and config.alpha == 0.05


def test_only_the_chosen_metrics_are_proposed():
    result = calibrate(drift_runs(), HIGHER, metrics={"drift": ("credit_drift_mean",)})
    assert {p.metric for p in result.proposals} == {"credit_drift_mean"}
    assert [c.tests for c in result.changes] == [2]


def heuristic_runs(k=6, seed=6):
    """A rubric suite: the coding groups carry correctness_mean, the paraphrasing group fluency_coherence_mean."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(k):
        groups = [{"level": "group", "key": {"model": m, "category": "coding"},
                   "metrics": {"final_score_mean": float(rng.normal(6, 0.2)),
                               "correctness_mean": float(rng.normal(7, 0.3))}} for m in ("a", "b")]
        groups.append({"level": "group", "key": {"model": "a", "category": "paraphrasing"},
                       "metrics": {"final_score_mean": float(rng.normal(5, 0.2)),
                                   "fluency_coherence_mean": float(rng.normal(6, 0.3))}})
        out.append({"schema": 1, "suites": [{"name": "rubric", "kind": "heuristic", "groups": groups,
                                             "metrics": {"final_score_mean": float(rng.normal(5.6, 0.1))}}]})
    return out


def test_the_rubrics_per_category_metrics_are_proposed_over_their_own_groups():
    """They exist only in their category's groups; they used to be skipped as 'unmeasured'."""
    available = {"final_score_mean", "final_score_std", "correctness_mean", "fluency_coherence_mean", "responses"}
    chosen = default_metrics("heuristic", available)
    assert set(chosen) == {"final_score_mean", "correctness_mean", "fluency_coherence_mean"}
    directions = {"heuristic": {m: "higher" for m in chosen}}
    result = calibrate(heuristic_runs(), directions, metrics={"heuristic": chosen})
    [correctness] = [p for p in result.proposals if p.metric == "correctness_mean"]
    assert (correctness.level, correctness.n_groups) == ("group", 2) and not result.skipped
    fluency = [p for p in result.proposals if p.metric == "fluency_coherence_mean"]
    assert [p.n_groups for p in fluency] == [1]
    assert {c.metric: c.level for c in result.changes} == {
        "final_score_mean": "suite", "correctness_mean": "group", "fluency_coherence_mean": "group"}


def test_defaults_per_kind():
    assert default_metrics("drift", {"bertscore_f1", "bertscore_recall", "credit_drift_mean"}) == (
        "bertscore_f1", "credit_drift_mean")
    assert default_metrics("rag", {"mrr", "overall_score", "bleu", "context_similarity"}) == (
        "overall_score", "mrr", "context_similarity")
    assert default_metrics("stability", {"stability_coefficient", "mean_similarity"}) == ("stability_coefficient",)
    assert default_metrics("stereotype", {"drift_score_mean", "n"}) == ("drift_score_mean",)


@pytest.mark.parametrize(("option", "match"), [({"scope": "grop"}, "scope"), ({"alpha": 0.0}, "alpha"),
                                              ({"alpha": 0.7}, "alpha")])
def test_bad_scope_or_alpha_is_an_error(option, match):
    with pytest.raises(ValueError, match=match):
        calibrate(drift_runs(k=3), HIGHER, **option)
