"""Change checks against a baseline snapshot: comparability enforced, significance by a paired test whose p is
checked against scipy.stats.ttest_rel, could-not-tell as inconclusive."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest
from scipy import stats as scipy_stats

from gate.baselines.snapshots import Snapshot, compare
from gate.config import CheckConfig, InconclusivePolicy, UnmeasuredPolicy
from gate.judge import CheckVerdict, Op, Verdict, VerdictSettings, judge_gate, judge_suite
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import statistics

NOW = datetime(2026, 11, 22, tzinfo=timezone.utc)
FP = {"model": "m", "weights": "abc", "layer": 6, "libraries": {"torch": "2.13.0"}, "source": "cache: /a"}


def result(values: dict[str, list[float]], fingerprint=FP) -> SuiteResult:
    """A drift-like suite: one group per model, items per submission, metric = mean of the item values."""
    groups, items = [], []
    for model, scores in values.items():
        key = (("model", model),)
        groups.append(GroupResult("group", key, {"f1": sum(scores) / len(scores)}, len(scores)))
        items += [Item((("submission", str(i)), ("model", model)), {"f1": s}) for i, s in enumerate(scores)]
    every = [s for scores in values.values() for s in scores]
    return SuiteResult("s", "drift", {"f1": sum(every) / len(every)}, tuple(groups), tuple(items),
                       ("submission", "model", "f1"), fingerprint=fingerprint)


def snapshot_of(r: SuiteResult, created="2026-11-01T00:00:00Z") -> Snapshot:
    snap = Snapshot.from_result(r, gate="g", created_at=created, commit="abc1234", inputs_digest=None,
                                tool_version="0")
    return Snapshot.from_dict(snap.to_dict())  # through JSON's shape, as a committed file would be


def judge(current: SuiteResult, baseline: SuiteResult | None, check: CheckConfig, fingerprint_then=None):
    snap = snapshot_of(baseline) if baseline else None
    if snap is not None and fingerprint_then is not None:
        snap = Snapshot.from_dict({**snap.to_dict(), "fingerprint": fingerprint_then})
    comparison = compare(snap, current, path="baselines/metrics/s.json", inputs_digest=None, now=NOW,
                         max_age_days=90)
    return judge_suite(current, {"f1": check}, UnmeasuredPolicy.WARN, comparison,
                       lambda m: statistics.mean("f1")).checks


def test_decrease_past_the_bound_fails_and_within_it_passes():
    base = result({"a": [0.9, 0.8, 0.85], "b": [0.7, 0.7, 0.7]})
    now = result({"a": [0.8, 0.7, 0.75], "b": [0.69, 0.7, 0.7]})
    checks = judge(now, base, CheckConfig(max_decrease=0.05, warn_decrease=0.001))
    by_model = {dict(c.key)["model"]: c for c in checks}
    assert by_model["a"].verdict is CheckVerdict.FAIL and by_model["a"].op is Op.MIN
    assert by_model["a"].value == pytest.approx(-0.1) and by_model["a"].change.baseline == pytest.approx(0.85)
    assert by_model["b"].verdict is CheckVerdict.WARN  # fell 0.0033: past warn 0.001, within max 0.05


def test_increase_bound_mirrors_decrease():
    base = result({"a": [0.1, 0.2]})
    checks = judge(result({"a": [0.5, 0.6]}), base, CheckConfig(max_increase=0.2, scope="suite"))
    assert [c.verdict for c in checks] == [CheckVerdict.FAIL] and checks[0].op is Op.MAX


def test_a_different_fingerprint_is_not_comparable_and_says_what_differs():
    base, now = result({"a": [0.9, 0.9]}), result({"a": [0.1, 0.1]})
    then = {**FP, "layer": 17, "libraries": {"torch": "2.12.0"}, "source": "elsewhere"}
    [check] = judge(now, base, CheckConfig(max_decrease=0.01), fingerprint_then=then)
    assert check.verdict is CheckVerdict.INCONCLUSIVE and check.value is None
    assert "not comparable" in check.reason and "layer: 17 → 6" in check.reason
    assert "libraries.torch: 2.12.0 → 2.13.0" in check.reason and "source" not in check.reason


def test_only_the_load_source_differing_is_still_comparable():
    base = result({"a": [0.9, 0.9]})
    [check] = judge(result({"a": [0.9, 0.9]}), base, CheckConfig(max_decrease=0.01),
                    fingerprint_then={**FP, "source": "package: /elsewhere"})
    assert check.verdict is CheckVerdict.PASS and check.value == 0


def test_no_snapshot_is_inconclusive_never_a_pass():
    [check] = judge(result({"a": [0.9]}), None, CheckConfig(max_decrease=0.01))
    assert check.verdict is CheckVerdict.INCONCLUSIVE and "llm-gate baseline bless" in check.reason


def test_significance_turns_a_noisy_drop_into_a_pass_and_a_real_drop_into_a_fail():
    rng = random.Random(7)
    base_scores = [0.8 + rng.gauss(0, 0.05) for _ in range(40)]
    noisy = [s + (0.05 if i % 2 else -0.0505) for i, s in enumerate(base_scores)]  # drop 0.00025, noise 0.05
    real = [s - 0.05 + rng.gauss(0, 0.01) for s in base_scores]
    check = CheckConfig(max_decrease=0.03, significant=True)  # above the test's MDE (0.020): not underpowered
    [noisy_check] = judge(result({"a": noisy}), result({"a": base_scores}), check)
    [real_check] = judge(result({"a": real}), result({"a": base_scores}), check)
    assert noisy_check.value < 0 and noisy_check.verdict is CheckVerdict.PASS
    assert noisy_check.change.significant is False and noisy_check.change.p_value > 0.3
    assert real_check.verdict is CheckVerdict.FAIL and real_check.change.significant is True
    assert real_check.change.n == 40 and real_check.change.method == "paired t-test"
    # a mean's change test is Student's paired t-test, one-sided on the bad side
    for judged, values in ((noisy_check, noisy), (real_check, real)):
        reference = scipy_stats.ttest_rel(values, base_scores, alternative="less")
        assert judged.change.p_value == pytest.approx(reference.pvalue, rel=1e-9)
        assert judged.change.p_adjusted == pytest.approx(reference.pvalue, rel=1e-9)  # a family of one


def test_minimum_detectable_effect_is_the_t_power_formula_and_flags_an_underpowered_check():
    rng = random.Random(3)
    base_scores = [0.8 + rng.gauss(0, 0.05) for _ in range(12)]
    now = [s + rng.gauss(0, 0.05) + 0.02 for s in base_scores]  # no drop: nothing significant
    [tight] = judge(result({"a": now}), result({"a": base_scores}), CheckConfig(max_decrease=0.001, significant=True))
    [loose] = judge(result({"a": now}), result({"a": base_scores}), CheckConfig(max_decrease=0.5, significant=True))
    d = [a - b for a, b in zip(now, base_scores, strict=True)]
    se = scipy_stats.tstd(d) / len(d) ** 0.5
    mde = (scipy_stats.t.ppf(0.95, 11) + scipy_stats.t.ppf(0.8, 11)) * se
    assert tight.change.mde == pytest.approx(mde, rel=1e-9) and tight.change.se == pytest.approx(se, rel=1e-9)
    assert tight.verdict is CheckVerdict.INCONCLUSIVE and tight.change.underpowered and "underpowered" in tight.reason
    assert loose.verdict is CheckVerdict.PASS and not loose.change.underpowered


def test_items_pair_by_identity_not_by_position():
    base = result({"a": [0.9, 0.5, 0.7]})
    reordered = SuiteResult(**{**base.__dict__, "items": tuple(reversed(base.items))})
    [check] = judge(reordered, base, CheckConfig(max_decrease=0.0, significant=True))
    assert check.change.n == 3 and check.change.estimate == 0 and check.change.se == 0
    assert check.verdict is CheckVerdict.PASS and check.change.p_value == 1.0


@pytest.mark.parametrize("policy, counts_as", [(InconclusivePolicy.NEUTRAL, Verdict.INCONCLUSIVE),
                                               (InconclusivePolicy.FAIL, Verdict.FAIL),
                                               (InconclusivePolicy.WARN, Verdict.WARN)])
def test_an_underpowered_check_stays_inconclusive_under_its_policy(policy, counts_as):
    """What the pull request cannot cause (too few items, too much noise for the bound) keeps following
    `inconclusive:`; only its own inputs (coverage, unmeasured) fail whatever the policy."""
    rng = random.Random(3)
    base_scores = [0.8 + rng.gauss(0, 0.05) for _ in range(12)]
    now = [s + rng.gauss(0, 0.05) + 0.02 for s in base_scores]
    base, current = result({"a": base_scores}), result({"a": now})
    comparison = compare(snapshot_of(base), current, path="p", inputs_digest=None, now=NOW, max_age_days=None)
    suite = judge_suite(current, {"f1": CheckConfig(max_decrease=0.001, significant=True)}, UnmeasuredPolicy.WARN,
                        comparison, lambda m: statistics.mean("f1"))
    gate = judge_gate("g", [suite], settings=VerdictSettings(inconclusive=policy))
    [check] = gate.suites[0].checks
    assert check.verdict is CheckVerdict.INCONCLUSIVE and check.change.underpowered and check.change.missing == 0
    assert gate.verdict is Verdict.INCONCLUSIVE and gate.counts_as is counts_as


def test_significance_without_enough_pairs_is_inconclusive():
    base = result({"a": [0.9]})
    [fine] = judge(result({"a": [0.95]}), base, CheckConfig(max_decrease=0.01, significant=True))
    [past] = judge(result({"a": [0.5]}), base, CheckConfig(max_decrease=0.01, significant=True))
    assert fine.verdict is past.verdict is CheckVerdict.INCONCLUSIVE and "at least 2 items" in past.reason


def test_an_item_set_renamed_beyond_min_paired_fails_on_coverage():
    """Issue 31: renamed items no longer pair; that is the candidate set's failure, not 'could not tell'."""
    base = result({"a": [0.9, 0.8, 0.7, 0.6, 0.5]})
    now = SuiteResult(**{**result({"a": [0.9, 0.8, 0.7, 0.6, 0.5]}).__dict__})
    renamed = tuple(Item(tuple((k, f"new{v}") if k == "submission" and int(v) > 1 else (k, v) for k, v in i.key),
                         i.values) for i in now.items)
    [check] = judge(SuiteResult(**{**now.__dict__, "items": renamed}), base,
                    CheckConfig(max_decrease=0.01, significant=True))
    assert check.verdict is CheckVerdict.FAIL and "only 40%" in check.reason
    assert "3 of 5 blessed items have no candidate: e.g. " in check.reason
    assert "the candidate set no longer covers the baseline" in check.reason
    assert check.change.missing == 3 and check.change.unpaired == 3 and check.change.p_value is None


def test_every_item_renamed_fails_and_names_a_few_of_them():
    """The issue's case: every id + "x", nothing pairs — a failure naming the blessed items, not a neutral pass."""
    base = result({"a": [0.9, 0.8, 0.7, 0.6, 0.5]})
    now = result({"a": [0.4, 0.3, 0.2, 0.1, 0.0]})  # a regression the renaming would hide
    renamed = tuple(Item(tuple((k, f"{v}x") if k == "submission" else (k, v) for k, v in i.key), i.values)
                    for i in now.items)
    [check] = judge(SuiteResult(**{**now.__dict__, "items": renamed}), base,
                    CheckConfig(max_decrease=0.01, significant=True))
    assert check.verdict is CheckVerdict.FAIL and check.change.paired_share == 0 and check.change.missing == 5
    assert "5 of 5 blessed items have no candidate: e.g. " in check.reason and " and 2 more" in check.reason


def test_new_items_do_not_count_against_coverage():
    base = result({"a": [0.9, 0.8, 0.7]})
    now = result({"a": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]})  # 4 new submissions: not in the snapshot
    [check] = judge(now, base, CheckConfig(max_decrease=0.5, significant=True))
    assert check.change.paired_share == 1 and check.change.unpaired == 4 and check.change.missing == 0
    assert check.verdict is CheckVerdict.PASS and check.change.n == 3


def test_significance_needs_a_metric_the_items_determine():
    base, now = result({"a": [0.9, 0.9]}), result({"a": [0.5, 0.5]})
    comparison = compare(snapshot_of(base), now, path="p", inputs_digest=None, now=NOW, max_age_days=None)
    [check] = judge_suite(now, {"f1": CheckConfig(max_decrease=0.01, significant=True)}, UnmeasuredPolicy.FAIL,
                          comparison, lambda m: None).checks
    assert check.verdict is CheckVerdict.INCONCLUSIVE and "cannot be recomputed from the items" in check.reason


def test_snapshot_age_and_changed_inputs():
    base = result({"a": [0.9]})
    old = snapshot_of(base, created="2026-01-01T00:00:00Z")
    comparison = compare(old, base, path="p", inputs_digest="new", now=NOW, max_age_days=90)
    assert comparison.stale and comparison.age_days == pytest.approx(325)
    assert not comparison.comparable and "baseline input files changed" in comparison.not_comparable_reason


@pytest.mark.parametrize("bad", [
    {"max_decrease": -1}, {"warn_decrease": 0.1}, {"max_decrease": 0.1, "warn_decrease": 0.2},
    {"max_increase": 0.1, "warn": 0.05}, {"min": 0.5, "significant": True}, {"significant": True},
    {"max_decrease": 0.1, "confidence": 0.95},  # gone: the gate's `alpha` is the one budget
])
def test_change_check_config_errors(bad):
    with pytest.raises(ValueError):
        CheckConfig(**bad)
