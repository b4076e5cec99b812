"""Calibrate at the edges of issue 35 (items 6–8), against independent references: a metric constant under noise
keeps its change check; no check on a p-value or a count; no floor that could never fail (a 0–10 score's floor
below 0, a rate's ceiling above 1), each named with its reason in the snippet; warn levels share a stated budget,
checked against scipy.stats.t for the bound and simulated fresh runs for the rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from scipy import stats

from gate.baselines.calibration import Scale, calibrate, scale_of, snippet, warning_rate
from gate.results import Direction, MetricSpec

H, L = Direction.HIGHER_IS_BETTER, Direction.LOWER_IS_BETTER


def reports(table: dict[str, np.ndarray], kind: str, level: str = "group", suite: dict | None = None) -> list[dict]:
    """table[metric][r, g]: the metric of group g in run r; `suite`: metric -> its value per run at the suite."""
    runs = next(iter(table.values())).shape[0]
    out = []
    for r in range(runs):
        groups = [{"level": level, "key": {level: f"g{g}"}, "metrics": {m: float(v[r, g]) for m, v in table.items()}}
                  for g in range(next(iter(table.values())).shape[1])]
        metrics = {m: float(v[r]) for m, v in (suite or {}).items()}
        out.append({"schema": 1, "suites": [{"name": "s", "kind": kind, "groups": groups, "metrics": metrics}]})
    return out


@pytest.mark.parametrize("metric, spec, scale", [
    ("paired_test_p", MetricSpec("paired_test_p", H, "Wilcoxon signed-rank p of bias vs control probabilities",
                                 ".3g"), Scale(0.0, 1.0, "p-value")),
    ("queries", MetricSpec("queries", H, "Queries", ".0f"), Scale(0.0, None, "count")),
    ("significant_drift_rate", MetricSpec("significant_drift_rate", L, "Share of probes whose drift exceeds the "
                                          "threshold", ".0%"), Scale(0.0, 1.0)),
    ("efficiency_mean", MetricSpec("efficiency_mean", H, "mean of efficiency (0–10)", ".2f"), Scale(0.0, 10.0)),
    ("overall_score", MetricSpec("overall_score", H, "Weighted overall score (0-1)"), Scale(0.0, 1.0)),
    ("answer_relevancy", MetricSpec("answer_relevancy", H, "Mean cosine(query, answer)"), Scale(-1.0, 1.0)),
    ("latency_p95", MetricSpec("latency_p95", L, "P95 latency (s)", ".2f"), Scale(0.0, None)),
    ("mrr", MetricSpec("mrr", H, "Mean reciprocal rank", low=0.0, high=1.0), Scale(0.0, 1.0)),
    ("bertscore_f1", MetricSpec("bertscore_f1", H, "BERTScore F1, mean over submissions"), Scale()),
    ("custom_p", None, Scale(0.0, 1.0, "p-value")),
])
def test_the_scale_of_a_metric_comes_from_its_catalogue_spec(metric, spec, scale):
    found = scale_of(metric, spec)
    assert (found.low, found.high) == (scale.low, scale.high)
    assert (found.why_not is None) == (scale.why_not is None)
    if scale.why_not:
        assert scale.why_not in found.why_not


def test_no_check_is_proposed_on_a_p_value_or_a_count_and_the_snippet_says_why():
    rng = np.random.default_rng(1)
    table = {"drift_score_mean": rng.normal(0.1, 0.01, (5, 3)), "paired_test_p": rng.uniform(0, 1, (5, 3)),
             "n": np.full((5, 3), 40.0) + rng.integers(0, 3, (5, 3))}
    scales = {"stereotype": {"paired_test_p": scale_of("paired_test_p", None),
                             "n": scale_of("n", MetricSpec("n", H, "Probes scored", ".0f"))}}
    directions = {"stereotype": {"drift_score_mean": "lower", "paired_test_p": "higher", "n": "higher"}}
    result = calibrate(reports(table, "stereotype", "trait"), directions, z=None, scales=scales)
    proposed = {p.metric for p in result.proposals} | {c.metric for c in result.changes}
    assert proposed == {"drift_score_mean"}
    text = snippet(result)
    assert "#   s.paired_test_p (trait): a p-value" in text and "#   s.n (trait): a count" in text
    assert set(yaml.safe_load(text)["suites"]["s"]["checks"]) == {"drift_score_mean"}


def test_a_floor_that_could_never_fail_is_dropped_with_its_reason_and_the_change_check_stays():
    """The issue's `efficiency_mean: {min: -1.807}` on a 0–10 scale with 3 runs, and a rate's `max` above 1 at
    trait scope: neither can fail, so neither is proposed; each is named as a comment in the snippet."""
    rng = np.random.default_rng(2)
    table = {"efficiency_mean": np.clip(rng.normal(2.0, 1.2, (3, 4)), 0, 10),
             "significant_drift_rate": np.clip(rng.normal(0.8, 0.08, (3, 4)), 0, 1)}
    directions = {"k": {"efficiency_mean": "higher", "significant_drift_rate": "lower"}}
    scales = {"k": {"efficiency_mean": Scale(0, 10), "significant_drift_rate": Scale(0, 1)}}
    unbounded = calibrate(reports(table, "k", "trait"), directions, z=None)
    floors = {p.metric: p.value for p in unbounded.proposals if p.level == "trait"}
    assert floors["efficiency_mean"] < 0 and floors["significant_drift_rate"] > 1  # what was proposed before
    result = calibrate(reports(table, "k", "trait"), directions, z=None, scales=scales)
    assert not result.proposals
    reasons = {s.metric: s.reason for s in result.skipped}
    assert "lowest value it can take, 0" in reasons["efficiency_mean"] and "k = 3" in reasons["efficiency_mean"]
    assert "highest value it can take, 1" in reasons["significant_drift_rate"]
    text = snippet(result)
    assert "#   s.efficiency_mean (trait): no floor: min " in text
    checks = yaml.safe_load(text)["suites"]["s"]["checks"]
    assert checks == {"efficiency_mean": {"max_decrease": 0, "significant": True, "scope": "trait"},
                      "significant_drift_rate": {"max_increase": 0, "significant": True, "scope": "trait"}}


def test_a_metric_constant_under_noise_keeps_its_change_check():
    """The issue's mrr: the retriever is deterministic, so mrr never moved over 5 runs — the metric that sees
    retrieval break. No floor (agreeing runs bound nothing), but its change check, counted in Holm's m."""
    rng = np.random.default_rng(3)
    table = {"mrr": np.full((5, 1), 0.41), "context_similarity": rng.normal(0.8, 0.02, (5, 1)),
             "overall_score": rng.normal(0.6, 0.005, (5, 1))}
    directions = {"rag": {m: "higher" for m in table}}
    result = calibrate(reports(table, "rag", "group"), directions, z=None,
                       scales={"rag": {m: Scale(0, 1) for m in table}})
    [mrr] = [c for c in result.changes if c.metric == "mrr"]
    assert mrr.constant and mrr.op == "max_decrease" and mrr.bound == 0 and mrr.tests == 3
    assert "mrr" not in {p.metric for p in result.proposals}
    text = snippet(result)
    assert yaml.safe_load(text)["suites"]["s"]["checks"]["mrr"] == {"max_decrease": 0, "significant": True,
                                                                      "scope": "group"}
    assert "constant over 5 runs" in text and "s.mrr (group): no floor: it never moved" in text


def test_warn_levels_share_a_budget_at_the_student_t_bound():
    """Each of the M group floors warns at warn_budget / M: the bound m_g − t(1 − budget/M, df)·s·√(1 + 1/k)."""
    rng = np.random.default_rng(4)
    means = np.array([0.9, 0.85, 0.8, 0.88])
    runs = rng.normal(means, 0.02, (5, 4))
    result = calibrate(reports({"f1": runs}, "k"), {"k": {"f1": "higher"}}, z=None, warn_budget=0.1)
    [floor] = result.proposals
    s = math.sqrt(runs.var(axis=0, ddof=1).mean())
    bound = runs.mean(axis=0).min() - stats.t.ppf(1 - 0.1 / 4, 4 * 4) * s * math.sqrt(1 + 1 / 5)
    assert bound - 1e-4 < floor.warn <= bound and floor.warn > floor.value
    estimate, ceiling = warning_rate(result)
    assert estimate <= ceiling <= 0.1 + 1e-9
    text = snippet(result)
    assert "they share --warn-budget 0.1: each of the 4 group floors warns" in text
    assert f"Expected warning rate of an unchanged system: about {estimate:.1%}" in text


def test_an_unchanged_system_warns_at_most_at_the_budget():
    """Simulated: 10 alike groups, k = 5; a warn level at Φ(−1) per group (the old default) warned ~30 % of
    unchanged runs (one threshold, the worst group's bound, serves all); the budget's levels at most 10 %."""
    rng = np.random.default_rng(5)
    means, trials, warned, old = np.full(10, 0.85), 600, 0, 0  # alike groups: each may cross
    for _ in range(trials):
        runs = rng.normal(means, 0.02, (5, 10))
        fresh = rng.normal(means, 0.02)
        [floor] = calibrate(reports({"f1": runs}, "k"), {"k": {"f1": "higher"}}, z=None).proposals
        [before] = calibrate(reports({"f1": runs}, "k"), {"k": {"f1": "higher"}}, z=None, warn_z=1.0).proposals
        warned += bool((fresh < floor.warn).any())
        old += bool((fresh < before.warn).any())
    assert warned / trials <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / trials) and old / trials > 0.2
