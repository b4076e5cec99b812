"""Drift's generation recipe: the baselined submissions of the suite's exercise files → one feedback call per
(submission, model) → candidates in the shape `candidates:` reads, loaded with the baselines and scored."""

from __future__ import annotations

import json

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.generate.providers.types import Response
from gate.kinds import get_kind
from gate.kinds.base import ScoringContext
from gate.kinds.drift import score_drift
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.recipe import calls, parse_feedback, records
from gate.kinds.drift.records import load_drift
from tests.support.drift_fixtures import feedback, submission, write_exercise
from tests.support.fake_runtime import FakeRuntime
from tests.support.recipes import answer, generate, user_text, write_rows

SUITE = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
BASE = feedback(("Roles", "Both roles named.", 2.0), ("Example", "A fitting example.", 1.0))


def exercises(directory) -> None:
    write_exercise(directory / "baselines", 7, [submission(1, BASE, "Singleton and Observer."),
                                                submission(2, None, "Fresh, no baseline yet."),
                                                submission(3, BASE[:1], "Only a singleton.")], title="Patterns")
    path = directory / "baselines" / "sampled_exercise-7.json"
    exercise = json.loads(path.read_text())
    path.write_text(json.dumps({**exercise, "max_points": 3}, indent=2))


def reply(call) -> Response:
    items = [{"title": "Roles", "description": f"{call.request.model} on {call.fields['submission_id']}",
              "credits": 2}]
    return Response("Here you go:\n```json\n" + json.dumps(items) + "\n```", model_version="gpt-x-2025")


def test_one_call_per_baselined_submission_and_model(tmp_path):
    exercises(tmp_path)
    found = calls("fb", SUITE, generate(models=["a", "b"]), tmp_path)
    assert [(c.fields["submission_id"], c.request.model) for c in found] == [("1", "a"), ("1", "b"), ("3", "a"),
                                                                           ("3", "b")]
    asked = user_text(found[0])
    assert asked.startswith('Give feedback on a student\'s submission to the exercise "Patterns".')
    assert "Singleton and Observer." in asked and '"credits"' in asked
    assert dict(found[0].fields) == {"exercise_id": "7", "submission_id": "1", "model": "a"}
    custom = calls("fb", SUITE, generate(prompt="{title} ({max_points} points), #{submission_id}: {text}"), tmp_path)
    assert user_text(custom[1]) == "Patterns (3 points), #3: Only a singleton."
    assert get_kind("drift").generation.reads == "candidates"


def test_candidates_load_with_the_baselines_and_score(tmp_path):
    exercises(tmp_path)
    answered = answer(calls("fb", SUITE, generate(samples=2), tmp_path), reply)
    written = records(SUITE, generate(samples=2), answered)
    assert written[0] == {"exercise_id": "7", "submission_id": "1", "model": "m", "sample": 0,
                          "feedback": [{"title": "Roles", "description": "m on 1", "credits": 2.0}],
                          "model_version": "gpt-x-2025"}
    write_rows(tmp_path / "outputs" / "fb.jsonl", written)
    data = load_drift("fb", SUITE, tmp_path)
    assert len(data.candidates) == 4 and data.candidates[0].model_extra["model_version"] == "gpt-x-2025"
    result = score_drift("fb", SUITE, data, ScoringContext(GateConfig(version=1, suites={"fb": SUITE}),
                                                           FakeRuntime(), tmp_path))
    credit = {(dict(i.key)["submission"], dict(i.key)["sample"]): i.values["credit_drift"] for i in result.items}
    assert credit == {("1", "0"): 1.0, ("1", "1"): 1.0, ("3", "0"): 0.0, ("3", "1"): 0.0}  # |2 − 3|, |2 − 2|


def test_a_failed_call_leaves_the_submission_missing(tmp_path):
    exercises(tmp_path)
    answered = answer(calls("fb", SUITE, generate(), tmp_path),
                      lambda c: None if c.fields["submission_id"] == "3" else reply(c))
    written = records(SUITE, generate(), answered)
    assert [r["submission_id"] for r in written] == ["1"]
    write_rows(tmp_path / "outputs" / "fb.jsonl", written)
    assert len(load_drift("fb", SUITE, tmp_path).candidates) == 1


@pytest.mark.parametrize(("text", "extra", "items", "notes"), [
    ('[{"title": "A", "description": "ok", "credits": 1.5}]', {}, [("A", "ok", 1.5)], []),
    ('{"feedback": [{"title": "A", "description": "ok", "credits": "2"}]}', {}, [("A", "ok", 2.0)], []),
    ('Sure! [{"title": "A", "description": "d", "credits": -1}, 3] Hope it helps.', {}, [("A", "d", 0.0)],
     ["item 1 has no credits ≥ 0: counted as 0", "item 2 is no object: left out"]),
    ("Good work overall.", {}, [], ["the answer holds no JSON list of feedback items: empty feedback"]),
    ("ignored", {"feedback": [{"title": "B", "description": "x", "credits": 1}]}, [("B", "x", 1.0)], []),
])
def test_feedback_is_read_from_the_answer(text, extra, items, notes):
    found, said = parse_feedback(Response(text, extra=extra))
    assert [(i["title"], i["description"], i["credits"]) for i in found] == items and said == notes


def test_an_answer_without_feedback_is_empty_feedback_that_still_loads(tmp_path):
    exercises(tmp_path)
    answered = answer(calls("fb", SUITE, generate(), tmp_path), lambda c: Response("Nice."))
    written = records(SUITE, generate(), answered)
    assert written[0]["feedback"] == [] and written[0]["response"] == "Nice." and written[0]["format_notes"]
    write_rows(tmp_path / "outputs" / "fb.jsonl", written)
    assert [c.feedback for c in load_drift("fb", SUITE, tmp_path).candidates] == [[], []]


def test_located_errors_a_template_field_and_a_dataset(tmp_path):
    exercises(tmp_path)
    with pytest.raises(InputError) as caught:
        calls("fb", SUITE, generate(prompt="{text} rubric: {rubric}"), tmp_path)
    [problem] = caught.value.problems
    assert problem.file.endswith("sampled_exercise-7.json") and problem.line is not None
    assert (problem.field, problem.found) == ("rubric", "nothing (2 of 2 submissions lack it)")
    with pytest.raises(InputError) as caught:
        calls("fb", SUITE, generate(dataset="x.jsonl"), tmp_path)
    assert caught.value.problems[0].field == "suites.fb.generate.dataset"
    (tmp_path / "baselines" / "sampled_exercise-7.json").write_text('{"id": 7, "submissions": [{"text": "x"}]}')
    with pytest.raises(InputError) as caught:
        calls("fb", SUITE, generate(), tmp_path)
    assert caught.value.problems[0].field == "submissions[0].id"
