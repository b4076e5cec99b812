"""The stability suite's view (`gate.kinds.stability.view`) on hand-built judged suites: the best model per
task, the variation that moves each model's answers most, the least stable questions."""

from __future__ import annotations

from gate.config import UnmeasuredPolicy
from gate.judge import CheckResult, CheckVerdict, Op, SuiteVerdict, Verdict
from gate.kinds.stability import view as stability
from gate.kinds.stability.scorer import ShownResponse, StabilityDetails, StabilityItemDetails, StabilitySettings
from gate.results import GroupResult, Item, SuiteResult


def task_cell(model, task, coefficient, std=0.1, questions=10):
    return GroupResult("group", (("model", model), ("task", task)),
                       {"stability_coefficient": coefficient, "stability_coefficient_std": std,
                        "questions": questions}, questions)


def variation(model, name, similarity):
    return GroupResult("variation", (("model", model), ("variation", name)), {"mean_similarity": similarity}, 5)


def judged(groups=(), items=(), checks=(), models=("a", "b"), tasks=("qa", "math"), probabilities=True):
    settings = StabilitySettings(embedding="mini<lm>", answer_probability="geometric", models=tuple(models),
                                 tasks=tuple(tasks), questions=20, responses=80, probabilities=probabilities)
    result = SuiteResult("st", "stability", {}, tuple(groups), tuple(items), (),
                         details=StabilityDetails(settings=settings))
    return SuiteVerdict(result, tuple(checks), Verdict.PASS, UnmeasuredPolicy.WARN)


def test_the_best_model_per_task_is_marked_and_missing_cells_are_dashes():
    groups = [task_cell("a", "qa", 0.81), task_cell("b", "qa", 0.92), task_cell("a", "math", 0.5),
              task_cell("b", "math", None), GroupResult("model", (("model", "a"),),
                                                        {"stability_coefficient": 0.7, "questions": 20}, 20)]
    checks = [CheckResult("stability_coefficient", "group", groups[2].key, Op.MIN, 0.6, None, 0.5,
                          CheckVerdict.FAIL)]
    a, b = stability.build(judged(groups, checks=checks, tasks=("qa", "math", "code")), 5)["rows"]
    assert [c["text"] for c in a["cells"]] == ["0.810 ± 0.100 (n=10)", "❌ **0.500 ± 0.100** (n=10) 🏆", "—"]
    assert [c["text"] for c in b["cells"]] == ["**0.920 ± 0.100** (n=10) 🏆", "n/a ± 0.100 (n=10)", "—"]
    assert a["total"] == {"text": "0.700 ± n/a (n=20)"} and b["total"] == {"text": "—"}


def test_each_models_lowest_variation_is_marked():
    groups = [variation("a", "typo", 0.9), variation("a", "rephrase", 0.7), variation("b", "typo", 0.6),
              variation("b", "rephrase", None)]
    rows = stability.build(judged(groups), 5)["variations"]
    assert rows == [{"name": "typo", "cells": ["0.900", "0.600 ⬇"]},
                    {"name": "rephrase", "cells": ["0.700 ⬇", "n/a"]}]


def test_no_variations():
    assert stability.build(judged(), 5)["variations"] == []


def question(number, coefficient, responses=()):
    return Item((("model", "a"), ("task", "qa"), ("question_id", number)),
                {"stability_coefficient": coefficient, "mean_similarity": 0.5, "answer_probability": None},
                details=StabilityItemDetails(responses=tuple(responses)))


def test_the_least_stable_questions_come_first_without_the_unmeasured_ones():
    items = [question("1", 0.9), question("2", None), question("3", 0.1, [
        ShownResponse("v1", None, "Paris", 0.8), ShownResponse("v2", "typo", "It is **Lyon**", None)]),
             question("4", 0.5)]
    worst = stability.build(judged(items=items), 2)["worst"]
    assert [w["label"] for w in worst] == ["a · qa · question 3", "a · qa · question 4"]
    assert (worst[0]["coefficient"], worst[0]["similarity"], worst[0]["probability"]) == ("0.100", "0.500", "n/a")
    assert worst[0]["responses"] == [
        {"variant": "v1", "variation": "", "similarity": "0.800", "response": "Paris"},
        {"variant": "v2", "variation": "typo", "similarity": "n/a", "response": "It is &#42;&#42;Lyon&#42;&#42;"}]


def test_settings_line_says_when_no_probabilities_were_given():
    assert stability.build(judged(), 5)["settings"] == (
        "embedding <code>mini&lt;lm&gt;</code> · P: geometric · 20 questions, 80 responses · 2 models × 2 tasks")
    assert "P: none given (P = 1)" in stability.build(judged(probabilities=False), 5)["settings"]
