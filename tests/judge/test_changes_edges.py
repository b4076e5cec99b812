"""Change checks at the edges of issue 35 (items 4 and 5), end to end from blessed runs through `judge_suite` and
`judge_gate`: a rubric category mean that never moved over 3 blessed runs (the agreement floor, with its formula
written here) and rare one-way leaks the snapshot's third moments describe (the p against scipy's t with Hall's
transformation written out here)."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
from scipy import stats as scipy_stats

from gate.baselines.snapshots import Snapshot, compare
from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import CheckVerdict, VerdictSettings, judge_gate, judge_suite
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import statistics

GROUP = (("model", "m"), ("category", "efficiency"))
CHECK = {"efficiency_mean": CheckConfig(max_decrease=0, significant=True, scope="group")}


def run(scores: np.ndarray) -> SuiteResult:
    items = tuple(Item((*GROUP, ("id", f"p{i}")), {"efficiency": float(v)}) for i, v in enumerate(scores))
    group = GroupResult("group", GROUP, {"efficiency_mean": float(np.mean(scores))}, len(scores))
    return SuiteResult("s", "heuristic", {}, (group,), items, ("id", "efficiency"))


def blessed(runs: list[np.ndarray]) -> Snapshot:
    snap = None
    for r, scores in enumerate(runs):
        one = Snapshot.from_result(run(scores), gate="g", created_at=f"2026-11-0{r + 1}T00:00:00Z", commit=None,
                                   inputs_digest=None, tool_version="t")
        snap = one if snap is None else snap.add_run(one)
    assert snap is not None
    return snap


def judged(snap: Snapshot, scores: np.ndarray, check=CHECK, column="efficiency"):
    current = run(scores)
    comparison = compare(snap, current, path="baselines/metrics/s.json", inputs_digest=None,
                         now=dt.datetime(2026, 11, 24), max_age_days=None)
    settings = VerdictSettings(alpha=0.05)
    suite = judge_suite(current, check, UnmeasuredPolicy.WARN, comparison, {
        f"{column}_mean": statistics.mean(column)}.get, settings)
    gate = judge_gate("g", [suite], settings=settings)
    [result] = gate.suites[0].checks
    return result


def test_one_step_of_a_category_mean_that_never_moved_over_three_runs_is_not_a_regression():
    scores = np.clip(np.round(np.random.default_rng(1).normal(7, 1.5, 24)), 0, 10)
    snap = blessed([scores] * 3)
    moved = scores.copy()
    moved[5] -= 1  # benign rewording moved one prompt one point: the mean moves 1/24
    check = judged(snap, moved)
    se = math.sqrt(-math.log(0.05) / (24 * 3) * 24 * (1 + 1 / 3)) / 24  # the floor: h = 1, N = 24·3 draws
    assert abs(check.change.se - se) < 1e-12 and check.change.df == math.inf
    assert abs(check.change.p_value - scipy_stats.norm.cdf(-(1 / 24) / se)) < 1e-12  # 0.19: not significant
    assert check.verdict is CheckVerdict.PASS
    broken = scores.copy()
    broken[:3] = np.maximum(broken[:3] - 3, 0)  # three prompts broken: a real regression
    assert judged(snap, broken).verdict is CheckVerdict.FAIL


def test_the_snapshots_third_moments_turn_a_rare_leak_into_noise():
    """40 probes blessed 10 times with 4 leaks (+0.3): a fresh run with two leaks is p ≈ 0.03 read as symmetric,
    and above α with the skew of the blessed noise; the p is 1 − F_t(h(Δ/SE)) with Hall's h written here."""
    rng = np.random.default_rng(3)
    base = np.abs(rng.normal(0.05, 0.03, 40))
    runs = [base + rng.normal(0, 0.015, 40) for _ in range(10)]
    for r, i in ((0, 3), (2, 17), (5, 30), (8, 9)):
        runs[r][i] += 0.3
    snap = blessed(runs)
    fresh = base + rng.normal(0, 0.015, 40)
    fresh[[11, 25]] += 0.3
    check = judged(snap, fresh, {"efficiency_mean": CheckConfig(max_increase=0, significant=True, scope="group")})
    values = np.array(runs)
    k3 = [scipy_stats.kstat(values[:, i], 3) for i in range(40)]
    variance = np.sum(values.var(axis=0, ddof=1) * (1 + 1 / 10)) / 40 ** 2
    gamma = sum(k * (1 - 1 / 100) for k in k3) / 40 ** 3 / variance ** 1.5
    s = (fresh.mean() - values.mean()) / math.sqrt(variance)
    h = s - gamma * (s * s - 1) / 6 + gamma ** 2 * s ** 3 / 108
    assert gamma > 0.5 and abs(check.change.se - math.sqrt(variance)) < 1e-12
    assert abs(check.change.p_value - scipy_stats.t.sf(h, check.change.df)) < 1e-9
    assert scipy_stats.t.sf(s, check.change.df) < 0.05 < check.change.p_value
    assert check.verdict is CheckVerdict.PASS
