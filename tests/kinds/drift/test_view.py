"""The drift suite's view and the seed's own outputs (`gate.kinds.drift.view`), on hand-built judged suites:
which thresholds are the seed's, which groups passed, the cells and rows, the order of the worst submissions."""

from __future__ import annotations

from datetime import datetime, timezone

from gate.config import UnmeasuredPolicy
from gate.judge import Change, CheckResult, CheckVerdict, Op, SuiteVerdict, Verdict, WaiverInfo
from gate.kinds.drift import DriftDetails, DriftItemDetails, DriftSettings, ExerciseFacts
from gate.kinds.drift import view as drift
from gate.kinds.drift.records import FeedbackItem
from gate.results import GroupResult, Item, SuiteResult

PASS, WARN, FAIL, UNMEASURED = CheckVerdict.PASS, CheckVerdict.WARN, CheckVerdict.FAIL, CheckVerdict.UNMEASURED


def key(exercise: str, model: str):
    return (("exercise", exercise), ("model", model))


def check(metric: str, verdict: CheckVerdict, group=(), scope="group", op=Op.MIN, fail=0.8, change=None):
    return CheckResult(metric, scope, group, op, fail, None, 0.5, verdict, None, change)


def facts(title=None, **extra) -> ExerciseFacts:
    fields = {"file": "ex.json", "title": title, "baseline_model": None, "generated_at": None,
              "oldest_baseline_at": None, "submissions": 1}
    return ExerciseFacts(**{**fields, **extra})


def judged(groups=(), checks=(), items=(), exercises=None, models=("a", "b")) -> SuiteVerdict:
    settings = DriftSettings(bertscore_model="roberta-large", layer=17, idf=False, rescale_with_baseline=True,
                             max_tokens=510, credit_drift_mode="total", models=tuple(models), exercises=2,
                             windowed_submissions=0)
    details = DriftDetails(settings=settings, exercises=exercises if exercises is not None else {})
    result = SuiteResult("fb", "drift", {}, tuple(groups), tuple(items), (), details=details)
    return SuiteVerdict(result, tuple(checks), Verdict.PASS, UnmeasuredPolicy.WARN)


def group(exercise, model, f1=0.9, drift_mean=1.0, n=3, level="group"):
    k = key(exercise, model) if level == "group" else (("model", model),)
    return GroupResult(level, k, {"bertscore_f1": f1, "credit_drift_mean": drift_mean}, n)


# ---------------------------------------------------------------- the seed's thresholds and pass rule


def test_the_seeds_thresholds_are_the_group_level_f1_minimum_and_drift_maximum():
    checks = [check("bertscore_f1", PASS, key("1", "a"), fail=0.85),
              check("credit_drift_mean", PASS, key("1", "a"), op=Op.MAX, fail=3.0),
              check("bertscore_f1", PASS, (("model", "a"),), scope="model", fail=0.5),  # not the group level
              check("bertscore_f1", PASS, key("1", "a"), fail=-0.1, change=Change(0.9, 0.8, "max_decrease")),
              check("credit_drift_mean", PASS, key("1", "a"), op=Op.MIN, fail=0.0)]  # a minimum of drift: not it
    assert drift.thresholds(judged(checks=checks)) == {"min_bertscore_f1": 0.85, "max_avg_credit_drift": 3.0}
    assert drift.thresholds(judged()) == {"min_bertscore_f1": None, "max_avg_credit_drift": None}


def test_a_group_passes_unless_a_group_check_on_it_failed_or_went_unmeasured():
    checks = [check("bertscore_f1", WARN, key("1", "a")), check("bertscore_f1", FAIL, key("1", "b")),
              check("bertscore_f1", UNMEASURED, key("2", "a")), check("bertscore_f1", FAIL, (("model", "b"),),
                                                                    scope="model")]
    suite = judged(checks=checks)
    assert drift.group_passed(suite, key("1", "a")) is True  # a warning still passes
    assert drift.group_passed(suite, key("1", "b")) is False
    assert drift.group_passed(suite, key("2", "a")) is False  # not measured is not passed
    assert drift.group_passed(suite, key("2", "b")) is True  # no check on it; the model-level fail is not its own


def test_seed_summary_counts_passed_groups_and_names_the_thresholds():
    groups = [group("1", "a"), group("1", "b"), group("2", "a"), group("9", "a", level="model")]
    checks = [check("bertscore_f1", FAIL, key("1", "b"), fail=0.8),
              check("credit_drift_mean", PASS, key("1", "a"), op=Op.MAX, fail=2.5)]
    assert drift.seed_summary(judged(groups, checks)) == (
        2, 3, "Tests: 2/3 passed (min F1 >= 0.8, max credit drift <= 2.5)")
    assert drift.seed_summary(judged()) == (0, 0, "Tests: 0/0 passed (min F1 >= none, max credit drift <= none)")


def test_quality_drift_report_has_one_entry_per_exercise():
    groups = [group("14676", "a", f1=0.91, drift_mean=0.5), group("14676", "b", f1=None, drift_mean=None),
              group("ex-x", "a")]
    exercises = {"14676": facts(file="sampled_exercise-14676.json", baseline_model="gpt-4o",
                                generated_at="2025-08-28T10:00:00Z")}
    report = drift.quality_drift_report(judged(groups, [check("bertscore_f1", UNMEASURED, key("14676", "b"))],
                                               exercises=exercises),
                                        now=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    first, other = report["exercises"]["14676"], report["exercises"]["ex-x"]
    assert first["exercise_id"] == 14676 and other["exercise_id"] == "ex-x"  # digits become a number
    assert first["timestamp"] == "2026-01-02 03:04:05" and first["exercise_file"] == "sampled_exercise-14676.json"
    assert first["baseline"] == {"model": "gpt-4o", "generated_at": "2025-08-28T10:00:00Z"}
    assert other["exercise_file"] is None and other["baseline"] == {"model": None, "generated_at": None}
    assert first["model_results"] == {
        "a": {"avg_bertscore_f1": 0.91, "avg_credit_drift": 0.5, "passed": True},
        "b": {"avg_bertscore_f1": None, "avg_credit_drift": None, "passed": False}}
    assert report["summary"] == {"passed": 2, "total": 3,
                                 "line": "Tests: 2/3 passed (min F1 >= 0.8, max credit drift <= none)"}


# ---------------------------------------------------------------- the view


def test_rows_follow_the_exercises_with_a_cell_per_model():
    groups = [group("1", "a", f1=0.8766, drift_mean=1.234), group("2", "b", f1=None, drift_mean=None)]
    checks = [check("bertscore_f1", FAIL, key("1", "a"))]
    view = drift.build(judged(groups, checks, exercises={"1": facts("Observer <b>"), "2": facts()}), 5)
    assert [r["label"] for r in view["rows"]] == ["1 · Observer &lt;b&gt;", "2"]
    assert view["rows"][0]["cells"] == [{"icon": "❌", "f1": "0.877", "drift": "1.23"},
                                        {"icon": "·", "f1": "n/a", "drift": "n/a"}]  # no (1, b) group
    assert view["rows"][1]["cells"][1] == {"icon": "", "f1": "n/a", "drift": "n/a"}  # a group, unmeasured, unjudged
    assert (view["passed"], view["total"]) == (1, 2)


def test_a_model_row_shows_the_worst_verdict_and_failed_exercises():
    groups = [group("1", "a"), group("2", "a"), group("1", "b"), group("", "a", f1=0.85, level="model")]
    checks = [check("bertscore_f1", FAIL, key("1", "a")), check("bertscore_f1", PASS, key("2", "a")),
              check("bertscore_f1", WARN, (("model", "a"),), scope="model"),
              check("bertscore_f1", WARN, key("1", "b"))]
    view = drift.build(judged(groups, checks, models=("a", "b", "c")), 5)
    a, b, c = view["per_model"]
    assert (a["icon"], a["failed_exercises"], a["f1"], a["n"]) == ("❌", "1/2", "0.850", "3")
    assert (b["icon"], b["failed_exercises"], b["f1"], b["n"]) == ("⚠️", "0/1", "n/a", "0")  # no model group
    assert (c["icon"], c["failed_exercises"], c["coverage"]) == ("·", "0/0", "n/a")  # nothing at all
    assert [t["icon"] for t in view["totals"]] == ["❌", "⚠️", "·"]


def test_an_inconclusive_exercise_makes_the_model_row_inconclusive_unless_one_failed():
    groups = [group("1", "a"), group("2", "a"), group("1", "b"), group("2", "b")]
    inconclusive = CheckVerdict.INCONCLUSIVE
    checks = [check("bertscore_f1", inconclusive, key("1", "a")), check("bertscore_f1", WARN, key("2", "a")),
              check("bertscore_f1", inconclusive, key("1", "b")), check("bertscore_f1", FAIL, key("2", "b"))]
    a, b = drift.build(judged(groups, checks), 5)["per_model"]
    assert (a["icon"], a["failed_exercises"]) == ("❓", "0/2")  # could not tell outranks a warning
    assert (b["icon"], b["failed_exercises"]) == ("❌", "1/2")


def test_an_inconclusive_or_waived_failure_is_not_the_seeds_passed():
    waived = CheckResult("bertscore_f1", "group", key("1", "b"), Op.MIN, 0.8, None, 0.5, CheckVerdict.WAIVED,
                         waiver=WaiverInfo("known", "@ana", "2026-12-31", replaced="fail"))
    waived_warning = CheckResult("bertscore_f1", "group", key("2", "b"), Op.MIN, 0.8, 0.9, 0.85,
                                 CheckVerdict.WAIVED, waiver=WaiverInfo("known", "@ana", "2026-12-31", replaced="warn"))
    suite = judged(checks=[check("bertscore_f1", CheckVerdict.INCONCLUSIVE, key("1", "a")), waived, waived_warning])
    assert drift.group_passed(suite, key("1", "a")) is False  # could not tell is not passed
    assert drift.group_passed(suite, key("1", "b")) is False  # accepted, but its threshold was not met
    assert drift.group_passed(suite, key("2", "b")) is True  # a waived warning still met the threshold


def test_settings_line():
    assert drift.build(judged(), 5)["settings"] == (
        "BERTScore <code>roberta-large</code> layer 17 · no idf · rescaled · 510-token limit (longer texts "
        "windowed) · credit drift: total · 2 exercises × 2 models")


def feedback(*items) -> tuple[FeedbackItem, ...]:
    return tuple(FeedbackItem(title=t, description=d, credits=c) for t, d, c in items)


def submission(exercise, model, number, f1, credit_drift=0.0, baseline=(), candidate=()):
    return Item((("exercise", exercise), ("submission", number), ("model", model)),
                {"bertscore_f1": f1, "credit_drift": credit_drift, "baseline_credits": 3.0, "candidate_credits": 2.5},
                details=DriftItemDetails(baseline=feedback(*baseline), candidate=feedback(*candidate)))


def test_worst_submissions_come_from_failing_groups_first_then_lowest_f1_unmeasured_last():
    items = [submission("1", "a", "s1", 0.2), submission("2", "a", "s2", 0.9), submission("2", "a", "s3", None),
             submission("2", "a", "s4", 0.5, credit_drift=1.0), submission("2", "a", "s5", 0.5, credit_drift=4.0)]
    checks = [check("bertscore_f1", FAIL, key("2", "a")), check("bertscore_f1", PASS, key("1", "a"))]
    view = drift.build(judged(checks=checks, items=items), 4)
    assert [w["label"] for w in view["worst"]] == [  # failing group (2, a): by F1, ties by larger drift
        "exercise 2, submission s5, model a", "exercise 2, submission s4, model a",
        "exercise 2, submission s2, model a", "exercise 2, submission s3, model a"]
    assert drift.build(judged(checks=checks, items=items), 0)["worst"] == []


def test_a_worst_submission_shows_both_feedbacks_side_by_side():
    item = submission("1", "a", "s1", 0.5, baseline=[("Roles", "Both <i>named</i>.", 2), ("Flow", "ok", 1)],
                      candidate=[("Roles|x", "line\nbreak", 0.5)])
    [worst] = drift.build(judged(items=[item]), 5)["worst"]
    assert worst["f1"] == "0.500" and worst["credits"] == "3 → 2.5" and worst["source"] == ""
    assert worst["rows"] == [
        {"baseline": "<b>Roles</b> (2)<br>Both &lt;i&gt;named&lt;/i&gt;.", "candidate": "<b>Roles&#124;x</b> (0.5)<br>"
                                                                                           "line<br>break"},
        {"baseline": "<b>Flow</b> (1)<br>ok", "candidate": ""}]
