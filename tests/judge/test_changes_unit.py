"""`gate.judge.changes` called directly, on hand-built results and snapshots (the end-to-end path through
`judge_suite` and a blessed snapshot is in test_changes.py). Deltas are hand-worked; the raw one-sided p of a
mean is checked against scipy.stats.ttest_rel, the MDE against scipy.stats.t.ppf, and every could-not-tell is
`inconclusive` with its reason. A tested check's verdict is provisional until `gate.judge.family` decides it on
the gate's adjusted p (`decided` below runs that step for one suite)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from gate.baselines.snapshots import Snapshot, SnapshotComparison, SnapshotGroup, SnapshotItem
from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import CheckVerdict, Op, SuiteVerdict, Verdict, change_checks, decide_family, paired_rows, paired_values
from gate.results import GroupResult, Item, SuiteResult, Unmeasured
from gate.stats import Correction, statistics

F1 = statistics.mean("f1")

A, B = (("model", "a"),), (("model", "b"),)


def suite(groups: dict, items=(), metrics=None, unmeasured=()) -> SuiteResult:
    """A result with one primary group per model: {model: f1 mean}."""
    return SuiteResult("s", "drift", metrics or {}, tuple(GroupResult("group", (("model", m),), {"f1": v}, 1)
                                                          for m, v in groups.items()),
                       tuple(items), ("id", "model", "f1"), unmeasured=tuple(unmeasured))


def snapshot(groups: dict, items=(), metrics=None, runs: int = 1, group_runs=None) -> Snapshot:
    """`group_runs`: {model: the group's f1 in each of the `runs` blessed runs}."""
    group_runs = group_runs or {}
    return Snapshot(gate="g", suite="s", kind="drift", created_at="2026-11-01T00:00:00Z", commit=None,
                    fingerprint={}, inputs_digest=None, metrics=metrics or {},
                    groups=tuple(SnapshotGroup("group", (("model", m),), {"f1": v}, 1,
                                               {"f1": tuple(group_runs[m])} if m in group_runs else {})
                                 for m, v in groups.items()),
                    items=tuple(items), runs=runs)


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
    assert check.change.tested is False and check.change.significant is None  # significance not asked for
    assert check.change.p_value is None and check.change.n == 0  # and no items to test anyway


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


# ---------------------------------------------------------------- could not tell: inconclusive, never a pass


def test_no_groups_at_the_scope_is_one_unmeasured_check_per_bound():
    checks = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1, max_increase=0.1, scope="model"),
                           against(snapshot({"a": 0.5})), None)
    assert [(c.change.bound, c.verdict, c.key) for c in checks] == [
        ("max_decrease", CheckVerdict.UNMEASURED, ()), ("max_increase", CheckVerdict.UNMEASURED, ())]
    assert checks[0].reason == "the suite has no model groups to check" and checks[0].value is None


def test_no_snapshot_is_inconclusive_and_keeps_the_current_value():
    [check] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1), None, None)
    assert check.verdict is CheckVerdict.INCONCLUSIVE and check.value is None
    assert check.reason == "no baseline snapshot for this suite"
    assert (check.change.baseline, check.change.current) == (None, 0.5)


def test_a_comparison_without_a_snapshot_gives_its_own_reason():
    [check] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1), against(None), None)
    assert check.verdict is CheckVerdict.INCONCLUSIVE
    assert check.reason == "no baseline snapshot at baselines/metrics/s.json (bless one: `llm-gate baseline bless`)"


@pytest.mark.parametrize("significant", [False, True])
def test_a_snapshot_that_is_not_comparable_is_inconclusive_even_when_the_values_agree(significant):
    comparison = SnapshotComparison(snapshot({"a": 0.5}), "p", differences=("layer: 17 → 6", "model: x → y"))
    [check] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1, significant=significant),
                            comparison, F1)
    assert check.verdict is CheckVerdict.INCONCLUSIVE and check.value is None
    assert check.change.tested is significant and check.change.p_value is None
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
def test_a_baseline_without_the_group_or_its_value_is_inconclusive(baseline_groups):
    [check, *gone] = change_checks(suite({"a": 0.5}), "f1", CheckConfig(max_decrease=0.1),
                                   against(snapshot(baseline_groups)), None)
    assert check.verdict is CheckVerdict.INCONCLUSIVE and check.value is None
    assert check.reason == "the baseline snapshot has no f1 for model a"
    assert [(c.key, c.verdict) for c in gone] == ([(B, CheckVerdict.FAIL)] if "b" in baseline_groups else [])


def test_a_blessed_group_the_run_no_longer_has_fails_on_coverage():
    """Exercise 2 of model a was blessed with 3 items; the run renamed it to exercise 2x (a new group, no
    baseline: inconclusive) — and blessed exercise 2 has no candidate left: a coverage failure."""
    def key(exercise):
        return (("exercise", exercise), ("model", "a"))

    now = SuiteResult("s", "drift", {}, tuple(GroupResult("group", key(e), {"f1": 0.8}, 3) for e in ("1", "2x")),
                      tuple(Item((("id", str(i)), *key(e)), {"f1": 0.8}) for e in ("1", "2x") for i in range(3)),
                      ("id", "exercise", "model", "f1"))
    then = Snapshot(gate="g", suite="s", kind="drift", created_at="2026-11-01T00:00:00Z", commit=None,
                    fingerprint={}, inputs_digest=None, metrics={},
                    groups=tuple(SnapshotGroup("group", key(e), {"f1": 0.8}, 3) for e in ("1", "2")),
                    items=tuple(SnapshotItem((("id", str(i)), *key(e)), {"f1": 0.8}) for e in ("1", "2")
                                for i in range(3)))
    kept, renamed, gone = change_checks(now, "f1", CheckConfig(max_decrease=0.1, significant=True), against(then),
                                        F1)
    assert kept.key == key("1") and kept.change.paired_share == 1 and kept.verdict is not CheckVerdict.FAIL
    assert renamed.key == key("2x") and renamed.verdict is CheckVerdict.INCONCLUSIVE
    assert gone.key == key("2") and gone.verdict is CheckVerdict.FAIL and gone.change.missing == 3
    assert gone.reason.startswith("the baseline's exercise 2, model a (3 blessed items) has no candidate items: the "
                                  "candidate set no longer covers the baseline")


def test_a_run_filtered_to_some_models_is_covered_by_their_items_alone():
    """A `--model a` run (a matrix job) against a snapshot of models a and b: b's items are outside the run."""
    then = [snap_item(i, m, 0.8) for m in "ab" for i in range(3)]
    now = [item(i, "a", 0.8) for i in range(3)]
    [check] = change_checks(suite({"a": 0.8}, now, metrics={"f1": 0.8}), "f1",
                            CheckConfig(max_decrease=0.1, significant=True, scope="suite"),
                            against(snapshot({}, then, metrics={"f1": 0.8})), F1)
    assert check.change.missing == 0 and check.change.paired_share == 1 and check.verdict is not CheckVerdict.FAIL


# ---------------------------------------------------------------- significance: the raw evidence


def items_of(model: str, values) -> list[Item]:
    return [item(i, model, v) for i, v in enumerate(values)]


def snap_items_of(model: str, values) -> list[SnapshotItem]:
    return [snap_item(i, model, v) for i, v in enumerate(values)]


def judged(now, then, config: CheckConfig, statistic=F1, **snap):
    """The change check(s) of group a: current items `now` against a snapshot whose items are `then`."""
    result = suite({"a": float(np.mean(now))}, items_of("a", now))
    return change_checks(result, "f1", config, against(snapshot({"a": float(np.mean(then))},
                                                                snap_items_of("a", then), **snap)), statistic)


def decided(checks, alpha: float = 0.05, correction: Correction = Correction.HOLM):
    """The checks after the family step of a suite judged alone (`gate.judge.family.decide_family`)."""
    verdict = SuiteVerdict(suite({}), tuple(checks), Verdict.PASS, UnmeasuredPolicy.WARN)
    [suite_verdict], _ = decide_family([verdict], alpha, correction)
    return list(suite_verdict.checks)


def _scattered(n: int, shift: float, seed: int) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    before = rng.uniform(0.5, 0.9, n)
    return list(before + shift + rng.normal(0, 0.05, n)), list(before)


@pytest.mark.parametrize("n, shift, seed", [(40, -0.03, 3), (30, 0.0, 5), (8, 0.01, 9)])
def test_the_raw_p_of_a_decrease_bound_is_scipys_one_sided_paired_t_test(n, shift, seed):
    now, then = _scattered(n, shift, seed)
    [check] = judged(now, then, CheckConfig(max_decrease=0.0, significant=True))
    reference = scipy_stats.ttest_rel(now, then, alternative="less")
    assert check.change.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert check.change.estimate / check.change.se == pytest.approx(reference.statistic, rel=1e-9)
    assert (check.change.n, check.change.df, check.change.method) == (n, n - 1, "paired t-test")
    assert check.change.tested is True and check.change.paired_share == 1.0 and check.change.runs == 1
    assert check.change.shared_sd is None  # a one-run snapshot: its noise is unknown


def test_the_raw_p_of_an_increase_bound_is_on_the_other_side():
    now, then = _scattered(30, 0.1, seed=6)
    [decrease, increase] = judged(now, then, CheckConfig(max_decrease=0.05, max_increase=0.05, significant=True))
    assert decrease.change.p_value == pytest.approx(scipy_stats.ttest_rel(now, then, alternative="less").pvalue,
                                                    rel=1e-9)
    assert increase.change.p_value == pytest.approx(scipy_stats.ttest_rel(now, then, alternative="greater").pvalue,
                                                    rel=1e-9)
    assert decrease.change.p_value > 0.99 and increase.change.p_value < 1e-6


def test_a_tested_check_is_provisional_until_the_family_decides():
    now, then = _scattered(40, -0.03, seed=3)
    [check] = judged(now, then, CheckConfig(max_decrease=0.01, significant=True))
    assert check.verdict is CheckVerdict.FAIL and check.change.significant is None  # the point value only
    assert check.change.p_adjusted is None and check.change.mde is None
    [final] = decided([check])
    assert final.change.p_adjusted == check.change.p_value  # a family of one
    assert final.change.significant is (check.change.p_value <= 0.05)


@pytest.mark.parametrize("significant", [True, False])
def test_the_mde_is_the_t_power_formula_at_the_checks_level(significant):
    now, then = _scattered(25, 0.0, seed=12)
    [check] = decided(judged(now, then, CheckConfig(max_decrease=0.2, significant=significant)))
    se = np.std(np.subtract(now, then), ddof=1) / math.sqrt(25)
    expected = (scipy_stats.t.ppf(0.95, 24) + scipy_stats.t.ppf(0.8, 24)) * se  # a family of one: α/1
    assert check.change.se == pytest.approx(se, rel=1e-12)
    assert check.change.mde == pytest.approx(expected, rel=1e-9) and check.change.alpha == 0.05
    assert check.change.tested is significant and check.verdict is CheckVerdict.PASS


def test_a_snapshot_of_k_runs_adds_its_run_to_run_noise():
    now, then = _scattered(20, -0.01, seed=13)
    per_run = [0.70, 0.74, 0.66]  # the group's f1 in each blessed run: sd 0.04, far above item noise
    [check] = judged(now, then, CheckConfig(max_decrease=0.0, significant=True), runs=3, group_runs={"a": per_run})
    item_se = np.std(np.subtract(now, then), ddof=1) / math.sqrt(20)
    run_sd = np.std(per_run, ddof=1)
    extra = (run_sd ** 2 - item_se ** 2 / (1 + 1 / 3)) * (1 + 1 / 3)
    se2 = item_se ** 2 + extra
    df = se2 ** 2 / (item_se ** 4 / 19 + extra ** 2 / 2)
    assert check.change.se == pytest.approx(math.sqrt(se2), rel=1e-9) and check.change.df == pytest.approx(df)
    assert check.change.runs == 3 and check.change.shared_sd == pytest.approx(math.sqrt(extra / (1 + 1 / 3)))
    delta = np.mean(now) - np.mean(then)
    assert check.change.p_value == pytest.approx(scipy_stats.t.cdf(delta / math.sqrt(se2), df), rel=1e-9)


def test_a_constant_drop_is_certain_and_fails():
    """Every per-item difference is −0.2: no noise at all, so the drop is significant at any level."""
    now = [item(i, "a", v - 0.2) for i, v in enumerate([0.9, 0.8, 0.7, 0.6])]
    then = [snap_item(i, "a", v) for i, v in enumerate([0.9, 0.8, 0.7, 0.6])]
    [check] = decided(change_checks(suite({"a": 0.55}, now), "f1", CheckConfig(max_decrease=0.1, significant=True),
                                    against(snapshot({"a": 0.75}, then)), F1))
    assert check.verdict is CheckVerdict.FAIL and check.change.significant is True and check.change.n == 4
    assert check.change.p_value == pytest.approx(0.0, abs=1e-12) and check.change.estimate == pytest.approx(-0.2)


def test_no_change_per_item_is_not_significant():
    same = [0.9, 0.4, 0.7]
    [check] = decided(change_checks(suite({"a": 0.0}, items_of("a", same)), "f1",
                                    CheckConfig(max_decrease=0.1, significant=True),
                                    against(snapshot({"a": 0.5}, snap_items_of("a", same))), F1))
    # the group means say −0.5, past the bound; the items say nothing changed: p = 1, a pass
    assert check.value == pytest.approx(-0.5) and check.verdict is CheckVerdict.PASS
    assert check.change.p_value == 1.0 and check.change.significant is False and check.change.se == 0.0


def test_a_significant_change_on_the_good_side_is_not_bad():
    """A clear rise under a decrease bound: significant means 'significant on the bad side'."""
    now, then = _scattered(20, 0.2, seed=8)
    [check] = decided(judged(now, then, CheckConfig(max_decrease=0.0, significant=True)))
    assert check.verdict is CheckVerdict.PASS and check.change.estimate > 0 and check.change.significant is False
    assert check.change.p_value > 0.999


def test_a_non_linear_statistic_is_tested_by_the_paired_bootstrap():
    now, then = _scattered(40, -0.1, seed=4)
    [check] = judged(now, then, CheckConfig(max_decrease=0.0, significant=True), statistics.percentile("f1", 90))
    assert check.change.method == "paired bootstrap (2,000 resamples)"
    assert check.change.estimate == pytest.approx(np.percentile(now, 90) - np.percentile(then, 90), abs=1e-12)
    assert check.change.p_value == pytest.approx(scipy_stats.t.cdf(check.change.estimate / check.change.se, 39),
                                                 rel=1e-9)


# ---------------------------------------------------------------- significance: could not tell


def test_significance_needs_a_metric_the_items_determine():
    [check] = change_checks(suite({"a": 0.1}), "f1", CheckConfig(max_decrease=0.1, significant=True),
                            against(snapshot({"a": 0.9})), None)
    assert check.verdict is CheckVerdict.INCONCLUSIVE and check.value == pytest.approx(-0.8)
    assert check.reason == "f1 cannot be recomputed from the items, so its change cannot be tested"


def test_without_significance_a_metric_the_items_cannot_give_is_judged_on_its_value():
    [check] = change_checks(suite({"a": 0.1}), "f1", CheckConfig(max_decrease=0.1), against(snapshot({"a": 0.9})),
                            None)
    assert check.verdict is CheckVerdict.FAIL and check.change.p_value is None


@pytest.mark.parametrize("pairs", [0, 1])
def test_fewer_than_two_pairs_are_inconclusive_within_the_bound_and_past_it(pairs):
    items, before = [item(i, "a", 0.5) for i in range(pairs)], [snap_item(i, "a", 0.9) for i in range(pairs)]
    config = CheckConfig(max_decrease=0.1, significant=True)
    [within] = change_checks(suite({"a": 0.85}, items), "f1", config, against(snapshot({"a": 0.9}, before)), F1)
    [past] = change_checks(suite({"a": 0.5}, items), "f1", config, against(snapshot({"a": 0.9}, before)), F1)
    for check in (within, past):
        assert check.verdict is CheckVerdict.INCONCLUSIVE and check.change.n == pairs
        assert check.reason == f"significance needs at least 2 items paired with the baseline, found {pairs}"
        assert check.change.p_value is None
    assert [c.verdict for c in decided([within, past])] == [CheckVerdict.INCONCLUSIVE] * 2  # not in the family


@pytest.mark.parametrize("min_paired, reason", [(0.8, True), (0.7, False)])
def test_a_candidate_set_that_no_longer_covers_the_snapshot_fails_with_the_items_named(min_paired, reason):
    """7 of the snapshot's 9 items have a current item (7/9 = 78 %); the 3 new current items do not count."""
    now = [item(i, "a", 0.5) for i in range(10)]
    then = [snap_item(i, "a", 0.9 - 0.01 * i) for i in range(7)] + [snap_item(i, "a", 0.9) for i in (20, 21)]
    [check] = decided(change_checks(suite({"a": 0.5}, now), "f1", CheckConfig(max_decrease=0.1, significant=True),
                                    against(snapshot({"a": 0.9}, then)), F1, min_paired))
    assert check.verdict is CheckVerdict.FAIL and check.change.paired_share == pytest.approx(7 / 9)
    assert check.change.n == 7 and check.change.missing == 2 and check.change.unpaired == 3
    if reason:  # a coverage failure: no test, the items named
        assert check.change.p_value is None
        assert check.reason == ("only 78% of the baseline snapshot's items could be compared (baselines.min_paired: "
                                "80%): 2 of 9 blessed items have no candidate: e.g. id 20, id 21; "
                                "the candidate set no longer covers the baseline — restore the items, or re-bless "
                                "the snapshot on the base branch")
    else:  # covered enough: judged on its test (a significant drop of 0.4)
        assert check.reason is None and check.change.significant


def test_too_many_unmeasured_items_fail_and_say_so():
    """All 10 items are in the snapshot, but 4 have no value now (a grader that failed): 60 % compared."""
    now = [item(i, "a", 0.5 if i < 6 else None) for i in range(10)]
    then = [snap_item(i, "a", 0.9) for i in range(10)]
    [check] = change_checks(suite({"a": 0.5}, now), "f1", CheckConfig(max_decrease=0.1, significant=True),
                            against(snapshot({"a": 0.9}, then)), F1, 0.8)
    assert check.verdict is CheckVerdict.FAIL and check.change.unmeasured == 4 and check.change.unpaired == 0
    assert "only 60% of the baseline snapshot's items could be compared" in check.reason
    assert "4 of 10 blessed items have no f1 in this run (unmeasured, or a grader that failed on them)" in check.reason


def test_blessed_items_without_a_value_are_not_the_runs_to_cover():
    """4 blessed items have no f1 (the snapshot's own gap): they neither count as compared nor as missing."""
    now = [item(i, "a", 0.5) for i in range(6)]
    then = [snap_item(i, "a", 0.5) for i in range(6)] + [SnapshotItem((("id", str(i)), ("model", "a")), {})
                                                         for i in range(6, 10)]
    [check] = change_checks(suite({"a": 0.5}, now), "f1", CheckConfig(max_decrease=0.1, significant=True),
                            against(snapshot({"a": 0.5}, then)), F1, 0.8)
    assert check.change.paired_share == 1 and check.change.missing == 0 and check.verdict is not CheckVerdict.FAIL


def test_an_untested_check_is_covered_by_the_snapshots_items_not_the_runs():
    """8 new current items (not in the snapshot) do not lower the coverage of the 2 blessed ones."""
    now = [item(i, "a", 0.5) for i in range(10)]
    [check] = change_checks(suite({"a": 0.5}, now), "f1", CheckConfig(max_decrease=0.1),
                            against(snapshot({"a": 0.9}, [snap_item(0, "a", 0.9), snap_item(1, "a", 0.8)])), F1)
    assert check.verdict is CheckVerdict.FAIL and check.change.paired_share == 1 and check.change.unpaired == 8
    assert check.reason is None  # judged on its value, not on coverage


def test_an_untested_check_fails_when_the_candidate_set_no_longer_covers_the_snapshot():
    now = [item(i, "a", 0.9) for i in range(10, 20)]  # every id renamed
    [check] = change_checks(suite({"a": 0.9}, now), "f1", CheckConfig(max_decrease=0.1),
                            against(snapshot({"a": 0.9}, [snap_item(i, "a", 0.9) for i in range(10)])), None)
    assert check.verdict is CheckVerdict.FAIL and check.change.missing == 10 and check.change.paired_share == 0
    assert "10 of 10 blessed items have no candidate: e.g. id 0, id 1, id 2 and 7 more" \
        in check.reason


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


def test_rows_of_several_columns_keep_an_item_with_any_usable_column():
    """A multi-column statistic (corpus BLEU's counts) pairs an item when some column is on both sides."""
    result = suite({}, [Item((("id", "1"), ("model", "a")), {"hits": 3, "total": 5}),
                        Item((("id", "2"), ("model", "a")), {"hits": 1}),
                        Item((("id", "3"), ("model", "a")), {"other": 1.0})])
    snap = snapshot({}, [SnapshotItem((("id", str(i)), ("model", "a")), {"hits": 2.0, "total": 4.0},
                                      {"hits": 0.25}, 3) for i in (1, 2, 3)])
    pairs = paired_rows(result, snap, A, ("hits", "total"))
    assert pairs.total == 3 and pairs.current.shape == pairs.baseline.shape == pairs.variances.shape == (2, 2)
    assert pairs.current[0].tolist() == [3.0, 5.0] and pairs.current[1][0] == 1.0 and math.isnan(pairs.current[1][1])
    assert pairs.baseline.tolist() == [[2.0, 4.0], [2.0, 4.0]] and pairs.runs.tolist() == [3.0, 3.0]
    assert pairs.variances[:, 0].tolist() == [0.25, 0.25] and np.isnan(pairs.variances[:, 1]).all()  # unknown
