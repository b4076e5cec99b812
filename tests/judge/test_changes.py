"""Change checks against a baseline snapshot: comparability enforced, significance via paired bootstrap."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from gate.baselines.snapshots import Snapshot, compare
from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import CheckVerdict, Op, judge_suite
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import paired_difference

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
                       lambda m: "f1").checks


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
    assert check.verdict is CheckVerdict.UNMEASURED and check.value is None
    assert "not comparable" in check.reason and "layer: 17 → 6" in check.reason
    assert "libraries.torch: 2.12.0 → 2.13.0" in check.reason and "source" not in check.reason


def test_only_the_load_source_differing_is_still_comparable():
    base = result({"a": [0.9, 0.9]})
    [check] = judge(result({"a": [0.9, 0.9]}), base, CheckConfig(max_decrease=0.01),
                    fingerprint_then={**FP, "source": "package: /elsewhere"})
    assert check.verdict is CheckVerdict.PASS and check.value == 0


def test_no_snapshot_is_unmeasured_never_a_pass():
    [check] = judge(result({"a": [0.9]}), None, CheckConfig(max_decrease=0.01))
    assert check.verdict is CheckVerdict.UNMEASURED and "llm-gate baseline bless" in check.reason


def test_significance_turns_a_noisy_drop_into_a_pass_and_a_real_drop_into_a_fail():
    rng = random.Random(7)
    base_scores = [0.8 + rng.gauss(0, 0.05) for _ in range(40)]
    noisy = [s + (0.05 if i % 2 else -0.0505) for i, s in enumerate(base_scores)]  # drop 0.00025, noise 0.05
    real = [s - 0.05 + rng.gauss(0, 0.01) for s in base_scores]
    check = CheckConfig(max_decrease=0.0, significant=True)
    [noisy_check] = judge(result({"a": noisy}), result({"a": base_scores}), check)
    [real_check] = judge(result({"a": real}), result({"a": base_scores}), check)
    assert noisy_check.value < 0 and noisy_check.verdict is CheckVerdict.PASS
    assert noisy_check.change.significant is False and noisy_check.change.low < 0 < noisy_check.change.high
    assert real_check.verdict is CheckVerdict.FAIL and real_check.change.significant is True
    assert real_check.change.n == 40 and real_check.change.high < 0
    # the interval is the one stats.paired_difference gives for the paired items
    reference = paired_difference(real, base_scores, alpha=0.05)
    assert (real_check.change.low, real_check.change.high) == (reference.low, reference.high)


def test_items_pair_by_identity_not_by_position():
    base = result({"a": [0.9, 0.5, 0.7]})
    reordered = SuiteResult(**{**base.__dict__, "items": tuple(reversed(base.items))})
    [check] = judge(reordered, base, CheckConfig(max_decrease=0.0, significant=True))
    assert check.change.n == 3 and check.change.low == check.change.high == 0


def test_significance_without_enough_pairs_is_unmeasured_only_when_past_the_bound():
    base = result({"a": [0.9]})
    [fine] = judge(result({"a": [0.95]}), base, CheckConfig(max_decrease=0.01, significant=True))
    [past] = judge(result({"a": [0.5]}), base, CheckConfig(max_decrease=0.01, significant=True))
    assert fine.verdict is CheckVerdict.PASS
    assert past.verdict is CheckVerdict.UNMEASURED and "at least 2 items" in past.reason


def test_significance_needs_a_metric_that_is_a_mean_over_items():
    base, now = result({"a": [0.9, 0.9]}), result({"a": [0.5, 0.5]})
    comparison = compare(snapshot_of(base), now, path="p", inputs_digest=None, now=NOW, max_age_days=None)
    [check] = judge_suite(now, {"f1": CheckConfig(max_decrease=0.01, significant=True)}, UnmeasuredPolicy.FAIL,
                          comparison, lambda m: None).checks
    assert check.verdict is CheckVerdict.UNMEASURED and "not a mean over items" in check.reason


def test_snapshot_age_and_changed_inputs():
    base = result({"a": [0.9]})
    old = snapshot_of(base, created="2026-01-01T00:00:00Z")
    comparison = compare(old, base, path="p", inputs_digest="new", now=NOW, max_age_days=90)
    assert comparison.stale and comparison.age_days == pytest.approx(325)
    assert not comparison.comparable and "baseline input files changed" in comparison.not_comparable_reason


@pytest.mark.parametrize("bad", [
    {"max_decrease": -1}, {"warn_decrease": 0.1}, {"max_decrease": 0.1, "warn_decrease": 0.2},
    {"max_increase": 0.1, "warn": 0.05}, {"min": 0.5, "significant": True}, {"significant": True},
    {"max_decrease": 0.1, "confidence": 1.0},
])
def test_change_check_config_errors(bad):
    with pytest.raises(ValueError):
        CheckConfig(**bad)
