"""The heuristic suite's view (`gate.kinds.heuristic.view`) on hand-built judged suites: ranks per category,
the missing-data lists and total, and why the lowest responses scored as they did."""

from __future__ import annotations

from gate.config import UnmeasuredPolicy
from gate.io import SourceRef
from gate.judge import CheckResult, CheckVerdict, Op, SuiteVerdict, Verdict
from gate.kinds.heuristic import HeuristicDetails, HeuristicItemDetails, HeuristicSettings, Shortfall, Slot
from gate.kinds.heuristic import view as heuristic
from gate.kinds.heuristic.rules import Fired, Unmet
from gate.results import GroupResult, Item, SuiteResult


def cell(model, category, mean, std=0.5, n=30):
    return GroupResult("group", (("model", model), ("category", category)),
                       {"final_score_mean": mean, "final_score_std": std, "clarity_mean": 3.25}, n)


def judged(groups=(), items=(), checks=(), missing=(), slots=(), empty=(), models=("a", "b", "c"),
           categories=("coding", "paraphrasing")) -> SuiteVerdict:
    settings = HeuristicSettings(rubric="seed-v1", models=tuple(models), categories=tuple(categories),
                                 weights={"coding": {"clarity": 0.4, "correctness": 0.6}},
                                 expected={"coding": 30, "paraphrasing": 30})
    details = HeuristicDetails(settings=settings, missing=tuple(missing), missing_slots=tuple(slots),
                               empty=tuple(empty))
    result = SuiteResult("h", "heuristic", {}, tuple(groups), tuple(items), (), details=details)
    return SuiteVerdict(result, tuple(checks), Verdict.PASS, UnmeasuredPolicy.WARN)


def test_cells_rank_models_within_each_category_highest_first():
    groups = [cell("a", "coding", 3.1), cell("b", "coding", 4.2), cell("c", "coding", None),
              cell("a", "paraphrasing", 2.0)]
    checks = [CheckResult("final_score_mean", "group", groups[0].key, Op.MIN, 3.5, None, 3.1, CheckVerdict.FAIL)]
    rows = heuristic.build(judged(groups, checks=checks), 5)["rows"]
    assert [r["model"] for r in rows] == ["a", "b", "c"]
    assert rows[0]["cells"] == ["❌ 3.10 ± 0.50 (n=30) &#35;2", "2.00 ± 0.50 (n=30) &#35;1"]
    assert rows[1]["cells"] == ["4.20 ± 0.50 (n=30) &#35;1", "—"]  # no paraphrasing group for b
    assert rows[2]["cells"] == ["n/a ± 0.50 (n=30)", "—"]  # unmeasured: no rank


def test_metric_tables_show_the_weighted_metrics_of_each_category():
    tables = heuristic.build(judged([cell("a", "coding", 3.0)]), 5)["metric_tables"]
    assert tables[0] == {"category": "coding", "metrics": ["clarity", "correctness"], "weights": ["40%", "60%"],
                         "rows": [{"model": "a", "scores": ["3.25", "n/a"]}]}
    assert tables[1] == {"category": "paraphrasing", "metrics": [], "weights": [], "rows": []}


def test_settings_line():
    assert heuristic.build(judged(), 5)["settings"] == (
        "rubric <code>seed-v1</code> · 3 models × 2 categories · expected prompts: coding 30, paraphrasing 30")


def test_missing_responses_by_id_or_by_count_and_their_total():
    missing = [Slot("a", "coding", "P07")]
    slots = [Shortfall("a", "coding", 30, 29, 1, ("P07",)), Shortfall("b", "paraphrasing", 30, 26, 4, None)]
    view = heuristic.build(judged(missing=missing, slots=slots, empty=[Slot("c", "coding", "P<1>")]), 5)
    assert view["missing"] == ["a · coding · P07",
                               "b · paraphrasing: 4 of 30 (prompt ids unknown: `expected` gives a count)"]
    assert view["missing_total"] == 5 and view["empty"] == ["c · coding · P&lt;1&gt;"]


def test_nothing_missing():
    view = heuristic.build(judged(), 5)
    assert (view["missing"], view["missing_total"], view["empty"], view["lowest"]) == ([], 0, [], [])


def response(prompt_id, score, fired=(), metrics=None, text="def f(): pass", source=None, unmet=()):
    return Item((("model", "a"), ("category", "coding"), ("prompt_id", prompt_id)), {"final_score": score}, source,
                HeuristicItemDetails(response=text, prompt="p", fired=tuple(fired),
                                     metrics=metrics if metrics is not None else {"clarity": 2.0},
                                     unmet=tuple(unmet)))


def test_the_lowest_responses_explain_which_indicators_fired():
    items = [response("P1", 4.0), response("P2", 1.5, [Fired("clarity", "no docstring", -1.0),
                                                        Fired("clarity", "short *name*", -0.5),
                                                        Fired("correctness", "syntax error", -2)],
                                           {"clarity": 1.5, "correctness": 1.0, "style": 3.0},
                                           source=SourceRef("r.jsonl", 2)),
             response("P3", None, text=""), response("P4", 2.0)]
    lowest = heuristic.build(judged(items=items), 3)["lowest"]
    assert [x["label"] for x in lowest] == ["a · coding · P3", "a · coding · P2", "a · coding · P4"]  # None as 0
    assert lowest[0]["score"] == "n/a" and lowest[0]["response"] == "<i>(empty)</i>"
    explained = lowest[1]
    assert explained["source"] == "r.jsonl:2" and explained["score"] == "1.50"
    assert explained["metrics"] == [
        {"name": "clarity", "value": "1.5", "fired": "no docstring (-1), short &#42;name&#42; (-0.5)"},
        {"name": "correctness", "value": "1.0", "fired": "syntax error (-2)"},
        {"name": "style", "value": "3.0", "fired": "none (base score)"}]


def test_a_rewarded_shape_that_did_not_hold_says_why():
    items = [response("P1", 1.0, [Fired("format", "valid JSON", 3.0)], {"format": 3.0},
                      unmet=[Unmet("format", "the *agreed* shape", "$.confidence: 1.5 is above the maximum 1")])]
    [explained] = heuristic.build(judged(items=items), 3)["lowest"]
    assert explained["metrics"] == [{"name": "format", "value": "3.0", "fired": "valid JSON (+3); not met: the "
                                     "&#42;agreed&#42; shape: &#36;.confidence: 1.5 is above the maximum 1"}]
