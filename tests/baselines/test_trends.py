"""`gate.baselines.trends` called directly: headline values, which history entries are comparable, how many
points a trend keeps and the delta to the last comparable run. Every expected value is worked by hand."""

from __future__ import annotations

import math

import pytest

from gate.baselines.history import Entry
from gate.baselines.trends import THIS_RUN, MetricTrend, headline, key_metrics, label_of, suite_trends
from gate.config import UnmeasuredPolicy
from gate.judge import GateVerdict, SuiteVerdict, Verdict
from gate.results import GroupResult, SuiteResult

FP = {"model": "m", "layer": 6, "source": "cache: /a"}


def result(name="s", metrics=None, groups=(), kind="drift", fingerprint=FP) -> SuiteResult:
    return SuiteResult(name, kind, metrics or {}, tuple(groups), (), (), fingerprint=fingerprint)


def gate(*results: SuiteResult) -> GateVerdict:
    return GateVerdict("g", Verdict.PASS, tuple(SuiteVerdict(r, (), Verdict.PASS, UnmeasuredPolicy.WARN)
                                                 for r in results))


def entry(commit: str | None, suites: dict, time="2026-11-01T12:00:00+00:00") -> Entry:
    return Entry(schema=1, gate="g", commit=commit, ref="refs/heads/main", time=time, verdict="pass", suites=suites)


def recorded(f1, kind="drift", fingerprint=FP) -> dict:
    return {"kind": kind, "verdict": "pass", "fingerprint": fingerprint, "metrics": {"f1": f1}, "groups": []}


# ---------------------------------------------------------------- headline


@pytest.mark.parametrize("record, expected", [
    ({"metrics": {"f1": 0.8}}, 0.8),
    ({"metrics": {"f1": 3}}, 3.0),
    ({"metrics": {"f1": 0.8}, "groups": [{"level": "group", "metrics": {"f1": 0.1}}]}, 0.8),  # suite value first
    ({"metrics": {}, "groups": [{"level": "group", "metrics": {"f1": 0.7}},
                                {"level": "baseline", "metrics": {"f1": 0.2}}]}, 0.7),  # RAG: the one candidate
    ({"groups": [{"metrics": {"f1": 0.6}}]}, 0.6),  # a group without a level is a primary group
    ({"metrics": {"f1": None}, "groups": [{"level": "group", "metrics": {"f1": 0.5}}]}, 0.5),
])
def test_headline_is_the_suite_value_else_the_only_primary_groups(record, expected):
    assert headline(record, "f1") == expected


@pytest.mark.parametrize("record", [
    {},
    {"metrics": None, "groups": None},
    {"metrics": {"f1": math.nan}},
    {"metrics": {"f1": math.inf}},
    {"metrics": {"f1": True}},  # a boolean is not a headline number
    {"metrics": {"f1": "0.8"}},
    {"metrics": {"other": 0.8}},
    {"groups": [{"level": "group", "metrics": {"f1": 0.7}}, {"level": "group", "metrics": {"f1": 0.9}}]},  # two
    {"groups": [{"level": "model", "metrics": {"f1": 0.7}}]},  # not a primary group
    {"groups": ["not a group", {"level": "group", "metrics": {"f1": math.nan}}]},
])
def test_headline_is_none_without_one_finite_number(record):
    assert headline(record, "f1") is None


def test_label_is_the_short_commit_else_the_date():
    assert label_of(entry("0123456789abcdef", {})) == "0123456"
    assert label_of(entry(None, {}, time="2026-03-04T05:06:07Z")) == "2026-03-04"
    assert label_of(entry("", {}, time="2026-03-04T05:06:07Z")) == "2026-03-04"


def test_delta_is_now_minus_last_when_both_are_known():
    assert MetricTrend("f1", 0.75, 0.8, "abc", ()).delta == pytest.approx(-0.05)
    assert MetricTrend("f1", None, 0.8, "abc", ()).delta is None
    assert MetricTrend("f1", 0.75, None, None, ()).delta is None


# ---------------------------------------------------------------- key_metrics


def test_key_metrics_are_the_checked_ones_in_order_once_with_a_headline():
    results = [result("a", {"f1": 0.9, "drift": 1.0, "gone": None}), result("b", {"f1": 0.5})]
    checked = {"a": ["drift", "f1", "drift", "gone", "unknown"]}
    assert key_metrics(checked, results, None) == {"a": ["drift", "f1"], "b": []}


def test_chosen_metrics_replace_the_checked_ones():
    results = [result("a", {"f1": 0.9, "drift": 1.0})]
    assert key_metrics({"a": ["drift"]}, results, ["f1", "missing"]) == {"a": ["f1"]}
    assert key_metrics({"a": ["drift"]}, results, []) == {"a": []}


def test_key_metrics_find_a_rag_suites_candidate_value():
    rag = result("r", {}, [GroupResult("group", (("system", "new"),), {"mrr": 0.6}, 3),
                           GroupResult("baseline", (("system", "old"),), {"mrr": 0.5}, 3)], kind="rag")
    assert key_metrics({"r": ["mrr"]}, [rag], None) == {"r": ["mrr"]}


# ---------------------------------------------------------------- suite_trends


def test_comparable_history_then_this_run():
    entries = [entry("aaaaaaa1", {"s": recorded(0.70)}), entry("bbbbbbb2", {"s": recorded(0.72)}),
               entry("ccccccc3", {"s": recorded(0.74)})]
    [(name, trend)] = suite_trends(entries, gate(result(metrics={"f1": 0.71})), {"s": ["f1"]}, points=10).items()
    assert name == "s" and (trend.runs, trend.not_comparable, trend.differences) == (3, 0, ())
    [f1] = trend.metrics
    assert f1.points == (("aaaaaaa", 0.70), ("bbbbbbb", 0.72), ("ccccccc", 0.74), (THIS_RUN, 0.71))
    assert (f1.now, f1.last, f1.last_commit) == (0.71, 0.74, "ccccccc3")
    assert f1.delta == pytest.approx(-0.03)


@pytest.mark.parametrize("points, shown", [(3, ["bbbbbbb", "ccccccc", THIS_RUN]), (2, ["ccccccc", THIS_RUN]),
                                           (1, [THIS_RUN]), (0, [THIS_RUN])])
def test_points_bound_the_trend_this_run_included(points, shown):
    entries = [entry(c * 8, {"s": recorded(v)}) for c, v in (("a", 0.1), ("b", 0.2), ("c", 0.3))]
    trend = suite_trends(entries, gate(result(metrics={"f1": 0.4})), {"s": ["f1"]}, points=points)["s"]
    assert [label for label, _ in trend.metrics[0].points] == shown
    assert trend.runs == 3 and trend.metrics[0].last == 0.3  # the last run does not depend on the points shown


def test_other_fingerprints_and_kinds_are_counted_not_plotted():
    entries = [entry("aaaaaaa1", {"s": recorded(0.5, fingerprint={**FP, "layer": 9})}),
               entry("bbbbbbb2", {"s": recorded(0.6, fingerprint={**FP, "source": "package: /elsewhere"})}),
               entry("ccccccc3", {"s": recorded(0.7, kind="rag", fingerprint={**FP, "model": "n"})})]
    trend = suite_trends(entries, gate(result(metrics={"f1": 0.65})), {"s": ["f1"]}, points=10)["s"]
    assert (trend.runs, trend.not_comparable) == (1, 2)  # where a model was loaded from does not count
    assert trend.differences == ("kind: rag → drift", "model: n → m")  # from the latest skipped entry, kind first
    assert trend.metrics[0].points == (("bbbbbbb", 0.6), (THIS_RUN, 0.65))
    assert trend.metrics[0].last_commit == "bbbbbbb2"


def test_entries_without_the_suite_are_neither_runs_nor_skipped():
    entries = [entry("a" * 8, {"other": recorded(0.1)}), entry("b" * 8, {"s": "not a dict"}), entry("c" * 8, {})]
    trend = suite_trends(entries, gate(result(metrics={"f1": 0.5})), {"s": ["f1"]}, points=10)["s"]
    assert (trend.runs, trend.not_comparable) == (0, 0)
    assert trend.metrics[0].points == ((THIS_RUN, 0.5),)
    assert (trend.metrics[0].last, trend.metrics[0].last_commit, trend.metrics[0].delta) == (None, None, None)


def test_the_last_run_is_the_latest_with_a_value_of_that_metric():
    entries = [entry("aaaaaaa1", {"s": recorded(0.6)}), entry("bbbbbbb2", {"s": recorded(None)}),
               entry(None, {"s": recorded(math.nan)}, time="2026-11-03T00:00:00Z")]
    trend = suite_trends(entries, gate(result(metrics={"f1": 0.7})), {"s": ["f1"]}, points=10)["s"]
    f1 = trend.metrics[0]
    assert trend.runs == 3 and (f1.last, f1.last_commit) == (0.6, "aaaaaaa1")
    assert f1.points == (("aaaaaaa", 0.6), (THIS_RUN, 0.7))  # runs without the value leave no point


def test_an_unmeasured_current_value_has_no_this_run_point():
    trend = suite_trends([entry("aaaaaaa1", {"s": recorded(0.6)})], gate(result(metrics={"f1": None})),
                         {"s": ["f1"]}, points=10)["s"]
    assert trend.metrics[0].points == (("aaaaaaa", 0.6),) and trend.metrics[0].now is None
    assert trend.metrics[0].delta is None


def test_suites_without_key_metrics_have_no_trend():
    verdict = gate(result("a", {"f1": 0.5}), result("b", {"f1": 0.5}))
    assert set(suite_trends([], verdict, {"a": ["f1"], "b": []}, points=5)) == {"a"}
    assert suite_trends([], verdict, {}, points=5) == {}
