"""The stereotype suite's view (`gate.kinds.stereotype.view`) on hand-built judged suites: per-model and
per-trait rows in their formats, and the worst pairs by drift."""

from __future__ import annotations

from gate.config import UnmeasuredPolicy
from gate.judge import CheckResult, CheckVerdict, Op, SuiteVerdict, Verdict
from gate.kinds.stereotype import StereotypeDetails, StereotypeItemDetails, StereotypeSettings
from gate.kinds.stereotype import view as stereotype
from gate.results import GroupResult, Item, SuiteResult

MEANS = {"drift_score_mean": 0.1234, "raw_drift_mean": -0.05, "significant_drift_rate": 0.25,
         "trait_mention_rate": 2 / 3, "control_stereotype_score_mean": 0.3, "bias_stereotype_score_mean": 0.42,
         "control_semantic_similarity_mean": 0.9, "bias_semantic_similarity_mean": 0.8,
         "drift_semantic_similarity_mean": 0.85, "paired_test_p": 0.000123456}


def judged(groups=(), items=(), checks=()) -> SuiteVerdict:
    settings = StereotypeSettings(classifier="holistic/bias", stereotype_label="LABEL_1", label_index=1,
                                  embedding="mini", threshold=0.2, max_tokens=512, models=("a", "b"), probes=40,
                                  windowed_probes=0, paired_test="Wilcoxon signed-rank (two-sided)")
    result = SuiteResult("st", "stereotype", {}, tuple(groups), tuple(items), (),
                         details=StereotypeDetails(settings=settings))
    return SuiteVerdict(result, tuple(checks), Verdict.PASS, UnmeasuredPolicy.WARN)


def test_a_model_row_formats_each_metric():
    model = GroupResult("group", (("model", "gpt|4"),), MEANS, 40)
    checks = [CheckResult("drift_score_mean", "group", model.key, Op.MAX, 0.1, None, 0.1234, CheckVerdict.FAIL)]
    [row] = stereotype.build(judged([model], checks=checks), 5)["per_model"]
    assert row == {"model": "gpt&#124;4", "icon": "❌", "n": "40", "drift": "0.123", "raw": "-0.050",
                   "significant": "25%", "mentioned": "67%", "control": "0.300", "bias": "0.420",
                   "sim_control": "0.900", "sim_bias": "0.800", "sim_pair": "0.850", "p": "0.000123"}


def test_unmeasured_metrics_and_unjudged_rows():
    model = GroupResult("group", (("model", "a"),), {}, 0)
    trait = GroupResult("trait", (("model", "a"), ("trait", "age\ngroup")), {"raw_drift_mean": 0.02}, 3)
    view = stereotype.build(judged([model, trait]), 5)
    assert view["per_model"][0]["icon"] == "·" and view["per_model"][0]["drift"] == "n/a"
    assert view["per_model"][0]["p"] == "n/a"
    assert view["per_trait"] == [{"model": "a", "trait": "age group", "icon": "", "n": "3", "drift": "n/a",
                                  "raw": "+0.020", "significant": "n/a", "mentioned": "n/a"}]


def pair(probe, drift, significant=False, mentioned=False):
    return Item((("model", "a"), ("id", probe), ("trait", "nurse")),
                {"drift_drift_score": drift, "control_stereotype_score": 0.1, "bias_stereotype_score": 0.6,
                 "drift_significant_drift": significant, "similarity_trait_mentioned": mentioned},
                details=StereotypeItemDetails(emgsd_text="Nurses are <b>", control_response="c", bias_response="b",
                                              date=None))


def test_the_worst_pairs_have_the_largest_drift():
    items = [pair("p1", 0.1), pair("p2", None), pair("p3", 0.5, significant=True, mentioned=True), pair("p4", 0.3)]
    worst = stereotype.build(judged(items=items), 3)["worst"]
    assert [w["label"] for w in worst] == ["a · p3 · trait “nurse”", "a · p4 · trait “nurse”",
                                           "a · p1 · trait “nurse”"]
    assert worst[0] == {"label": "a · p3 · trait “nurse”", "drift": "0.500", "change": "0.100 → 0.600",
                        "significant": "significant", "mentioned": "trait mentioned",
                        "emgsd": "Nurses are &lt;b&gt;", "control": "c", "bias": "b", "source": ""}
    assert (worst[1]["significant"], worst[1]["mentioned"]) == ("not significant", "trait not mentioned")


def test_settings_line():
    assert stereotype.build(judged(), 5)["settings"] == (
        "classifier <code>holistic/bias</code> (label <code>LABEL&#95;1</code> = index 1) · embedding "
        "<code>mini</code> · significant drift > 0.2 · 40 probes × 2 models · paired test: Wilcoxon signed-rank "
        "(two-sided)")
