"""Noise calibration on synthetic repeats: it recovers the σ it was given, places thresholds against the
worst group at a Student-t prediction bound (scipy.stats.t as the reference), skips what cannot be calibrated,
and writes a snippet gate.yml accepts."""

from __future__ import annotations

import math
import random

import pytest
import yaml
from scipy import stats

from gate.baselines.calibration import Proposal, calibrate, propose, snippet
from gate.config.loader import parse_config
from gate.kinds import KINDS

SIGMA = 0.02
F1_MEANS = [0.90, 0.85, 0.80, 0.88]  # the third group is the worst
DRIFT_MEANS = [1.0, 2.0, 1.5, 0.5]  # lower is better: the second group is the worst
DRIFT_SIGMA = 0.1
DIRECTIONS = {"drift": {"bertscore_f1": "higher", "bertscore_recall": "higher", "credit_drift_mean": "lower",
                        "coverage": "higher"}}
KEYS = [{"exercise": str(14676 + g), "model": "llama"} for g in range(4)]


def synthetic_runs(k=30, seed=7):
    rng = random.Random(seed)
    runs = []
    for _ in range(k):
        groups = [{"level": "group", "key": key, "n": 5, "verdict": None,
                   "metrics": {"bertscore_f1": rng.gauss(F1_MEANS[g], SIGMA),
                               "credit_drift_mean": rng.gauss(DRIFT_MEANS[g], DRIFT_SIGMA),
                               "bertscore_recall": rng.gauss(0.8, SIGMA),
                               "coverage": 1.0, "unknown_metric": rng.random()}}
                  for g, key in enumerate(KEYS)]
        model_f1 = sum(g["metrics"]["bertscore_f1"] for g in groups) / len(groups)
        groups.append({"level": "model", "key": {"model": "llama"}, "n": 20, "metrics": {"bertscore_f1": model_f1}})
        runs.append({"schema": 1, "verdict": "pass", "suites": [{
            "name": "feedback-drift", "kind": "drift", "verdict": "pass",
            "fingerprint": {"model": "roberta-large", "weights": "abc", "source": f"/cache/{rng.random()}"},
            "metrics": {"bertscore_f1": model_f1}, "groups": groups, "checks": [], "unmeasured": []}]})
    return runs


def by(proposals, metric, level="group"):
    [found] = [p for p in proposals if p.metric == metric and p.level == level]
    return found


def group_stats(runs, metric):
    k = len(runs)
    table = [[g["metrics"][metric] for g in run["suites"][0]["groups"][:4]] for run in runs]
    means = [sum(row[g] for row in table) / k for g in range(4)]
    variances = [sum((row[g] - means[g]) ** 2 for row in table) / (k - 1) for g in range(4)]
    return means, math.sqrt(sum(variances) / 4)


def test_recovers_sigma_and_places_min_against_the_worst_group():
    runs = synthetic_runs()
    f1 = by(propose(runs, DIRECTIONS), "bertscore_f1")
    assert (f1.suite, f1.op, f1.n_runs, f1.n_groups) == ("feedback-drift", "min", 30, 4)
    assert abs(f1.sigma - SIGMA) / SIGMA < 0.20  # recovers the σ it was given
    assert f1.mean == pytest.approx(sum(F1_MEANS) / 4, abs=0.01)
    # against the truth: lowest mean − 2σ (the prediction factor sqrt(1 + 1/30) is within the tolerance)
    assert f1.value == pytest.approx(min(F1_MEANS) - 2 * SIGMA, abs=0.01)
    assert f1.warn == pytest.approx(min(F1_MEANS) - 1 * SIGMA, abs=0.01)
    # against the data, exactly: lowest group mean − t_{Φ(z), 4(k−1)}·σ̂·sqrt(1 + 1/k) (Student-t with the pooled
    # σ̂'s degrees of freedom; a normal z understated the spread), rounded down to 4 significant digits
    means, sigma = group_stats(runs, "bertscore_f1")
    assert f1.sigma == pytest.approx(sigma, rel=1e-12)
    assert f1.pooled and f1.df == 4 * 29 and f1.rate == pytest.approx(stats.norm.sf(2))
    spread = sigma * math.sqrt(1 + 1 / 30)
    t_fail, t_warn = stats.t.ppf(stats.norm.cdf(2), 4 * 29), stats.t.ppf(stats.norm.cdf(1), 4 * 29)
    assert min(means) - t_fail * spread - 1e-4 < f1.value <= min(means) - t_fail * spread
    assert min(means) - t_warn * spread - 1e-4 < f1.warn <= min(means) - t_warn * spread
    assert f1.value == float(f"{f1.value:.4g}") and f1.warn == float(f"{f1.warn:.4g}")
    assert f1.value < f1.warn


def test_lower_is_better_gets_a_max_against_the_worst_group():
    runs = synthetic_runs()
    drift = by(propose(runs, DIRECTIONS), "credit_drift_mean")
    assert drift.op == "max"
    assert abs(drift.sigma - DRIFT_SIGMA) / DRIFT_SIGMA < 0.20
    assert drift.value == pytest.approx(max(DRIFT_MEANS) + 2 * DRIFT_SIGMA, abs=0.05)
    means, sigma = group_stats(runs, "credit_drift_mean")
    bound = max(means) + stats.t.ppf(stats.norm.cdf(2), 4 * 29) * sigma * math.sqrt(1 + 1 / 30)
    assert bound <= drift.value < bound + 1e-3  # rounded up: never stricter
    assert drift.warn is not None and drift.value > drift.warn


def test_a_fresh_run_of_the_same_system_passes_with_high_probability():
    """The point of calibration: simulate fresh runs and count how often the proposed check fails one."""
    f1 = by(propose(synthetic_runs(), DIRECTIONS), "bertscore_f1")
    rng = random.Random(99)
    trials = 20000
    failed = sum(any(rng.gauss(m, SIGMA) < f1.value for m in F1_MEANS) for _ in range(trials)) / trials
    assert failed < 0.06  # about Φ(−2) ≈ 2.3% for the worst group; the others are far above the threshold
    assert f1.fail_rate == pytest.approx(failed, abs=0.025)  # the reported estimate agrees with the simulation


def test_other_levels_and_the_suite_level_are_calibrated():
    """The suite level is calibrated beside the groups now: it is where a change check is most powerful."""
    calibration = calibrate(synthetic_runs(), DIRECTIONS)
    levels = {(p.metric, p.level) for p in calibration.proposals}
    assert ("bertscore_f1", "model") in levels
    assert {level for metric, level in levels if metric == "bertscore_f1"} == {"group", "model", "suite"}
    assert {metric for metric, level in levels if level == "suite"} == {"bertscore_f1"}  # the only suite metric
    model = by(calibration.proposals, "bertscore_f1", "model")
    assert model.n_groups == 1 and abs(model.sigma - SIGMA / 2) / (SIGMA / 2) < 0.3  # the mean of 4 groups


def test_a_suite_without_groups_is_calibrated_at_the_suite_level():
    rng = random.Random(3)
    runs = [{"suites": [{"name": "s", "kind": "drift", "groups": [],
                         "metrics": {"bertscore_f1": rng.gauss(0.9, 0.01)}}]} for _ in range(10)]
    [p] = propose(runs, DIRECTIONS)
    assert (p.level, p.n_groups, p.op) == ("suite", 1, "min")


def test_a_constant_metric_has_no_floor_but_keeps_its_change_check_and_no_direction_is_skipped():
    calibration = calibrate(synthetic_runs(), DIRECTIONS)
    assert "coverage" not in {p.metric for p in calibration.proposals}  # no floor: agreeing runs bound nothing
    [coverage] = [c for c in calibration.changes if c.metric == "coverage"]  # but the best detector stays
    assert coverage.constant and (coverage.value, coverage.se, coverage.bound) == (0.0, 0.0, 0.0)
    assert "unknown_metric" not in {p.metric for p in calibration.proposals + calibration.changes}
    reasons = {s.metric: s.reason for s in calibration.skipped}
    assert "never moved" in reasons["coverage"] and "change check" in reasons["coverage"]
    assert "no direction" in reasons["unknown_metric"]
    loaded = yaml.safe_load(snippet(calibration))["suites"]["feedback-drift"]["checks"]
    assert loaded["coverage"] == {"max_decrease": 0, "significant": True, "scope": "group"}


def test_unmeasured_in_one_run_is_skipped_without_crashing():
    runs = synthetic_runs(k=5)
    runs[2]["suites"][0]["groups"][1]["metrics"]["bertscore_recall"] = None
    del runs[3]["suites"][0]["groups"][0]["metrics"]["credit_drift_mean"]
    calibration = calibrate(runs, DIRECTIONS)
    metrics = {p.metric for p in calibration.proposals}
    assert "bertscore_recall" not in metrics and "credit_drift_mean" not in metrics
    assert "bertscore_f1" in metrics
    reasons = {s.metric: s.reason for s in calibration.skipped}
    assert reasons["bertscore_recall"] == "unmeasured in run 3 (exercise 14677, model llama)"
    assert reasons["credit_drift_mean"] == "unmeasured in run 4 (exercise 14676, model llama)"


def test_a_group_missing_from_a_run_skips_its_metrics():
    runs = synthetic_runs(k=4)
    del runs[1]["suites"][0]["groups"][3]
    reasons = {s.metric: s.reason for s in calibrate(runs, DIRECTIONS).skipped if s.level == "group"}
    assert reasons["bertscore_f1"].startswith("exercise 14679, model llama is missing from run 2")


def test_suites_that_are_not_comparable_between_runs_are_skipped():
    runs = synthetic_runs(k=3)
    runs[1]["suites"][0]["fingerprint"] = {"model": "roberta-base", "weights": "abc"}
    [skipped] = calibrate(runs, DIRECTIONS).skipped
    assert skipped.metric is None and "fingerprint" in skipped.reason
    runs = synthetic_runs(k=3)
    runs[2]["suites"] = []
    [skipped] = calibrate(runs, DIRECTIONS).skipped
    assert skipped.reason == "missing from run 3"


@pytest.mark.parametrize("k", [0, 1])
def test_fewer_than_two_runs_is_an_error(k):
    with pytest.raises(ValueError, match="calibration needs at least 2 runs"):
        propose(synthetic_runs(k=max(k, 1))[:k], DIRECTIONS)


def test_bad_arguments_are_errors():
    runs = synthetic_runs(k=3)
    with pytest.raises(ValueError, match="warn_z"):
        propose(runs, DIRECTIONS, z=2.0, warn_z=2.0)
    with pytest.raises(ValueError, match="'higher' or 'lower'"):
        propose(runs, {"drift": {"bertscore_f1": "up"}})
    with pytest.raises(ValueError, match="schema"):
        propose([{"schema": 2, "suites": []}] * 2, DIRECTIONS)


def test_no_warn_level():
    proposals = propose(synthetic_runs(k=5), DIRECTIONS, z=3.0, warn_z=None)
    assert all(p.warn is None for p in proposals)
    assert "warn" not in snippet(proposals)


MINIMAL = """\
version: 1
suites:
  feedback-drift:
    kind: drift
    baseline: base/*.json
    candidates: out.jsonl
"""


def merged(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def test_snippet_parses_and_gate_yml_accepts_it():
    proposals = propose(synthetic_runs(), DIRECTIONS)
    text = snippet(proposals)
    fragment = yaml.safe_load(text)
    config = parse_config(yaml.safe_dump(merged(yaml.safe_load(MINIMAL), fragment)), metrics=KINDS)
    checks = config.suites["feedback-drift"].checks
    f1, drift = by(proposals, "bertscore_f1"), by(proposals, "credit_drift_mean")
    assert (checks["bertscore_f1"].min, checks["bertscore_f1"].warn, checks["bertscore_f1"].scope) == (
        f1.value, f1.warn, "group")
    assert (checks["credit_drift_mean"].max, checks["credit_drift_mean"].warn) == (drift.value, drift.warn)
    assert set(checks) == {"bertscore_f1", "credit_drift_mean", "bertscore_recall"}
    # the model-level alternative is offered as a comment; σ and the fresh-run failure rate are shown
    assert "# at scope model: {min:" in text and "σ = " in text and "a fresh run fails it with p ≈" in text
    # the same snippet pasted as text under the suite (its lines after `suites:`) is a valid gate.yml too
    pasted = MINIMAL + "\n".join(text.splitlines()[text.splitlines().index("  feedback-drift:") + 1:]) + "\n"
    assert parse_config(pasted, metrics=KINDS).suites["feedback-drift"].checks == checks


def test_snippet_numbers_and_awkward_names_survive_yaml():
    tiny = Proposal("no", "weird: metric", "group", 3, 2, 1e-5, 1e-6, "min", 1.234e-05, 1.3e-05, 0.02)
    big = Proposal("s #1", "latency_p95", "model", 3, 2, 12345.0, 3.0, "max", 12350.0, None, None)
    fragment = yaml.safe_load(snippet([tiny, big]))
    assert fragment["suites"]["no"]["checks"]["weird: metric"] == {"min": 1.234e-05, "warn": 1.3e-05,
                                                                   "scope": "group"}
    assert fragment["suites"]["s #1"]["checks"]["latency_p95"] == {"max": 12350, "scope": "model"}
    assert yaml.safe_load(snippet([])) is None
