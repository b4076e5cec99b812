"""`gate.judge.changes` called directly, on hand-built results and snapshots (the end-to-end path through
`judge_suite` and a blessed snapshot is in test_changes.py). Deltas are hand-worked; confidence intervals
are checked against scipy.stats.bootstrap, an independent percentile bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from gate.baselines.snapshots import Snapshot, SnapshotComparison, SnapshotGroup, SnapshotItem
from gate.config import CheckConfig
from gate.judge import CheckVerdict, Op, change_checks, paired_values
from gate.results import GroupResult, Item, SuiteResult, Unmeasured

A, B = (("model", "a"),), (("model", "b"),)


def suite(groups: dict, items=(), metrics=None, unmeasured=()) -> SuiteResult:
    """A result with one primary group per model: {model: f1 mean}."""
    return SuiteResult("s", "drift", metrics or {}, tuple(GroupResult("group", (("model", m),), {"f1": v}, 1)
                                                          for m, v in groups.items()),
                       tuple(items), ("id", "model", "f1"), unmeasured=tuple(unmeasured))


def snapshot(groups: dict, items=(), metrics=None) -> Snapshot:
    return Snapshot(gate="g", suite="s", kind="drift", created_at="2026-11-01T00:00:00Z", commit=None,
                    fingerprint={}, inputs_digest=None, metrics=metrics or {},
                    groups=tuple(SnapshotGroup("group", (("model", m),), {"f1": v}, 1) for m, v in groups.items()),
                    items=tuple(items))


def against(snap: Snapshot | None) -> SnapshotComparison:
    return SnapshotComparison(snap, "baselines/metrics/s.json")


def item(i: int, model: str, f1) -> Item:
    return Item((("id", str(i)), ("model", model)), {"f1": f1})


def snap_item(i: int, model: str, f1: float) -> SnapshotItem:
    return SnapshotItem((("id", str(i)), ("model", model)), {"f1": f1})


# ---------------------------------------------------------------- bounds and hand-worked deltas


@pytest.mark.parametrize("now, expected", [
    (0.74, CheckVerdict.FAIL),   # 0.74 − 0.80 = −0.06: past max_decrease 0.05
    (0.75, CheckVerdict.WARN),   # −0.05 (−0.05000000000000004 in floating point): on the bound, not past it
    (0.77, CheckVerdict.WARN),   # −0.03: past warn_decrease 0.02
    (0.78, CheckVerdict.PASS),   # −0.02: on the warn level
    (0.95, CheckVerdict.PASS),   # a rise never fails a decrease bound
])
def test_decrease_bound_on_hand_worked_deltas(now, expected):
    [check] = change_checks(suite({"a": now}), "f1", CheckConfig(max_decrease=0.05, warn_decrease=0.02),
                            against(snapshot({"a": 0.80})), None)
    assert check.verdict is expected
    assert check.value == pytest.approx(now - 0.80)
    assert (check.op, check.fail, check.warn) == (Op.MIN, -0.05, -0.02)
    assert check.change.baseline == 0.80 and check.change.current == now and check.change.bound == "max_decrease"
    assert check.change.confidence is None and check.change.significant is None  # significance not asked for


@pytest.mark.parametrize("now, expected", [(3.0, CheckVerdict.PASS), (3.4, CheckVerdict.WARN),
                                           (3.6, CheckVerdict.FAIL)])
def test_increase_bound_mirrors_it(now, expected):
    [check] = change_checks(suite({"a": now}), "f1", CheckConfig(max_increase=0.5, warn_increase=0.25),
                            against(snapshot({"a": 3.0})), None)
    assert (check.op, check.fail, check.warn) == (Op.MAX, 0.5, 0.25)
    assert check.verdict is expected and check.value == pytest.approx(now - 3.0)


def test_both_bounds_give_one_check_each_per_group_decrease_first():
    checks = change_checks(suite({"a": 0.5, "b": 0.9}), "f1", CheckConfig(max_decrease=0.1, max_increase=0.1),
                           against(snapshot({"a": 0.7, "b": 0.7})), None)
    assert [(c.change.bound, c.key, c.verdict) for c in checks] == [
        ("max_decrease", A, CheckVerdict.FAIL), ("max_decrease", B, CheckVerdict.PASS),
        ("max_increase", A, CheckVerdict.PASS), ("max_increase", B, CheckVerdict.FAIL)]


def test_suite_scope_compares_the_suite_values():
    [check] = change_checks(suite({"a": 0.1}, metrics={"f1": 0.6}), "f1", CheckConfig(max_decrease=0.1, scope="suite"),
                            against(snapshot({"a": 0.9}, metrics={"f1": 0.65})), None)
    assert check.key == () and check.scope == "suite"
    assert check.value == pytest.approx(-0.05) and check.verdict is CheckVerdict.PASS


def test_a_boolean_value_is_a_rate_of_one_or_zero():
    [check] = change_checks(suite({"a": True}), "f1", CheckConfig(max_decrease=0.5), against(snapshot({"a": 0.25})),
                            None)
    assert check.change.current == 1.0 and check.value == pytest.approx(0.75)


# ---------------------------------------------------------------- degenerate inputs: unmeasured, never a pass


def test_no_groups_at_the_scope_is_one_unmeasured_check_per_bound():
    checks = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1, max_increase=0.1, scope="model"),
                           against(snapshot({"a": 0.5})), None)
    assert [(c.change.bound, c.verdict, c.key) for c in checks] == [
        ("max_decrease", CheckVerdict.UNMEASURED, ()), ("max_increase", CheckVerdict.UNMEASURED, ())]
    assert checks[0].reason == "the suite has no model groups to check" and checks[0].value is None


def test_no_snapshot_is_unmeasured_and_keeps_the_current_value():
    [check] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1), None, None)
    assert check.verdict is CheckVerdict.UNMEASURED and check.value is None
    assert check.reason == "no baseline snapshot for this suite"
    assert (check.change.baseline, check.change.current) == (None, 0.5)


def test_a_comparison_without_a_snapshot_gives_its_own_reason():
    [check] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1), against(None), None)
    assert check.verdict is CheckVerdict.UNMEASURED
    assert check.reason == "no baseline snapshot at baselines/metrics/s.json (bless one: `llm-gate baseline bless`)"


def test_a_snapshot_that_is_not_comparable_is_unmeasured_even_when_the_values_agree():
    comparison = SnapshotComparison(snapshot({"a": 0.5}), "p", differences=("layer: 17 → 6", "model: x → y"))
    [check] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1), comparison, None)
    assert check.verdict is CheckVerdict.UNMEASURED and check.value is None
    assert check.reason == "baseline not comparable: layer: 17 → 6; model: x → y"


def test_an_unmeasured_current_value_says_why():
    result = suite({"a": None}, unmeasured=[Unmeasured(A, "f1", "no candidate feedback")])
    [check] = change_checks(result, "f1", CheckConfig(max_decrease=0.1), against(snapshot({"a": 0.5})), None)
    assert check.verdict is CheckVerdict.UNMEASURED and check.reason == "no candidate feedback"
    assert check.change.baseline == 0.5 and check.change.current is None


@pytest.mark.parametrize("value", [math.nan, math.inf, "0.5", None])
def test_a_current_value_that_is_not_a_finite_number_is_unmeasured(value):
    [check] = change_checks(suite({"a": value}), "f1", CheckConfig(max_decrease=0.1), against(snapshot({"a": 0.5})),
                            None)
    assert check.verdict is CheckVerdict.UNMEASURED and check.reason == "no measured value" and check.value is None


@pytest.mark.parametrize("baseline_groups", [{"b": 0.5}, {"a": None}, {"a": math.nan}])
def test_a_baseline_without_the_group_or_its_value_is_unmeasured(baseline_groups):
    [check] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1),
                            against(snapshot(baseline_groups)), None)
    assert check.verdict is CheckVerdict.UNMEASURED
    assert check.reason == "the baseline snapshot has no f1 for model a"


# ---------------------------------------------------------------- significance


def test_significance_needs_a_column_of_item_values():
    [check] = change_checks(suite({"a": 0.1}), "f1", CheckConfig(max_decrease=0.1, significant=True),
                            against(snapshot({"a": 0.9})), None)
    assert check.verdict is CheckVerdict.UNMEASURED and "not a mean over items" in check.reason
    assert check.change.confidence == 0.95


@pytest.mark.parametrize("pairs", [0, 1])
def test_fewer_than_two_pairs_pass_within_the_bound_and_are_unmeasured_past_it(pairs):
    items, before = [item(i, "a", 0.5) for i in range(pairs)], [snap_item(i, "a", 0.9) for i in range(pairs)]
    config = CheckConfig(max_decrease=0.1, significant=True)
    [within] = change_checks(suite({"a": 0.85}, items), "f1", config, against(snapshot({"a": 0.9}, before)), "f1")
    [past] = change_checks(suite({"a": 0.5}, items), "f1", config, against(snapshot({"a": 0.9}, before)), "f1")
    assert within.verdict is CheckVerdict.PASS and within.change.n == pairs
    assert past.verdict is CheckVerdict.UNMEASURED and past.change.n == pairs
    assert past.reason == f"significance needs at least 2 items paired with the baseline, found {pairs}"


def test_a_constant_drop_has_a_zero_width_interval_and_fails():
    """Every per-item difference is −0.2: every resample's mean is −0.2, so the interval is [−0.2, −0.2]."""
    now = [item(i, "a", v - 0.2) for i, v in enumerate([0.9, 0.8, 0.7, 0.6])]
    then = [snap_item(i, "a", v) for i, v in enumerate([0.9, 0.8, 0.7, 0.6])]
    [check] = change_checks(suite({"a": 0.55}, now), "f1", CheckConfig(max_decrease=0.1, significant=True),
                            against(snapshot({"a": 0.75}, then)), "f1")
    assert check.verdict is CheckVerdict.FAIL and check.change.significant is True and check.change.n == 4
    assert check.change.low == pytest.approx(-0.2) and check.change.high == pytest.approx(-0.2)


def test_no_change_per_item_is_not_significant():
    same = [0.9, 0.4, 0.7]
    [check] = change_checks(suite({"a": 0.0}, [item(i, "a", v) for i, v in enumerate(same)]), "f1",
                            CheckConfig(max_decrease=0.1, significant=True),
                            against(snapshot({"a": 0.5}, [snap_item(i, "a", v) for i, v in enumerate(same)])), "f1")
    # the group means say −0.5, past the bound; the items say nothing changed: within noise, a pass
    assert check.value == pytest.approx(-0.5) and check.verdict is CheckVerdict.PASS
    assert check.change.significant is False and check.change.low == check.change.high == 0


def _scattered(n: int, shift: float, seed: int) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    before = rng.uniform(0.5, 0.9, n)
    return list(before + shift + rng.normal(0, 0.05, n)), list(before)


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_the_interval_matches_scipys_percentile_bootstrap(confidence):
    now, then = _scattered(40, -0.03, seed=3)
    [check] = change_checks(
        suite({"a": float(np.mean(now))}, [item(i, "a", v) for i, v in enumerate(now)]), "f1",
        CheckConfig(max_decrease=0.0, significant=True, confidence=confidence),
        against(snapshot({"a": float(np.mean(then))}, [snap_item(i, "a", v) for i, v in enumerate(then)])), "f1")
    diffs = np.subtract(now, then)
    reference = scipy_stats.bootstrap((diffs,), np.mean, confidence_level=confidence, n_resamples=10_000,
                                      method="percentile", random_state=np.random.default_rng(99))
    # two independent 10 000-resample bootstraps: their percentiles differ by ~3% of a standard error
    tolerance = 0.15 * diffs.std(ddof=1) / math.sqrt(len(diffs))
    assert check.change.low == pytest.approx(reference.confidence_interval.low, abs=tolerance)
    assert check.change.high == pytest.approx(reference.confidence_interval.high, abs=tolerance)
    assert check.change.n == 40 and check.change.confidence == confidence
    assert check.change.significant is bool(reference.confidence_interval.high < 0)


def test_a_drop_inside_the_noise_passes_and_a_rise_past_an_increase_bound_fails():
    noisy_now, noisy_then = _scattered(30, 0.0, seed=5)
    rise_now, rise_then = _scattered(30, 0.1, seed=6)

    def judge(now, then, config):
        return change_checks(suite({"a": float(np.mean(now))}, [item(i, "a", v) for i, v in enumerate(now)]), "f1",
                             config, against(snapshot({"a": float(np.mean(then))},
                                                      [snap_item(i, "a", v) for i, v in enumerate(then)])), "f1")[0]

    noisy = judge(noisy_now, noisy_then, CheckConfig(max_decrease=0.0, significant=True))
    rise = judge(rise_now, rise_then, CheckConfig(max_increase=0.05, significant=True))
    noise_ci = scipy_stats.bootstrap((np.subtract(noisy_now, noisy_then),), np.mean, method="percentile",
                                     random_state=np.random.default_rng(1)).confidence_interval
    assert noise_ci.low < 0 < noise_ci.high  # the reference agrees that the interval straddles 0
    assert noisy.change.low < 0 < noisy.change.high and noisy.change.significant is False
    assert noisy.verdict is CheckVerdict.PASS
    assert rise.verdict is CheckVerdict.FAIL and rise.change.significant is True and rise.change.low > 0


def test_a_significant_change_on_the_good_side_is_not_bad():
    """A clear rise under a decrease bound: significant means 'significant on the bad side'."""
    now, then = _scattered(20, 0.2, seed=8)
    [check] = change_checks(suite({"a": 0.9}, [item(i, "a", v) for i, v in enumerate(now)]), "f1",
                            CheckConfig(max_decrease=0.0, significant=True),
                            against(snapshot({"a": 0.7}, [snap_item(i, "a", v) for i, v in enumerate(then)])), "f1")
    assert check.verdict is CheckVerdict.PASS and check.change.low > 0 and check.change.significant is False


# ---------------------------------------------------------------- paired_values


def test_items_pair_by_identity_within_the_group():
    result = suite({"a": 0.0, "b": 0.0}, [item(3, "a", 0.3), item(1, "a", 0.1), item(2, "a", 0.2), item(1, "b", 9.0),
                                          item(4, "a", 0.4)])  # 4: not in the snapshot
    snap = snapshot({}, [snap_item(1, "a", 0.11), snap_item(2, "a", 0.22), snap_item(3, "a", 0.33),
                         snap_item(1, "b", 0.9), snap_item(5, "a", 0.5)])  # 5: gone from this run
    assert paired_values(result, snap, A, "f1") == ([0.3, 0.1, 0.2], [0.33, 0.11, 0.22])
    assert paired_values(result, snap, B, "f1") == ([9.0], [0.9])
    # the suite's key () matches every item
    assert paired_values(result, snap, (), "f1") == ([0.3, 0.1, 0.2, 9.0], [0.33, 0.11, 0.22, 0.9])


def test_pairs_missing_a_value_on_either_side_are_dropped():
    result = suite({}, [item(1, "a", math.nan), item(2, "a", None), item(3, "a", True), item(4, "a", 0.4),
                        Item((("id", "5"), ("model", "a")), {})])
    snap = snapshot({}, [snap_item(1, "a", 0.1), snap_item(2, "a", 0.2), snap_item(3, "a", 0.0),
                         SnapshotItem((("id", "4"), ("model", "a")), {}), snap_item(5, "a", 0.5)])
    assert paired_values(result, snap, A, "f1") == ([1.0], [0.0])  # only item 3: a boolean counts as 1.0


def test_no_items_pair_to_nothing():
    assert paired_values(suite({}), snapshot({}), A, "f1") == ([], [])
    assert paired_values(suite({}, [item(1, "a", 0.5)]), snapshot({}), A, "other") == ([], [])
