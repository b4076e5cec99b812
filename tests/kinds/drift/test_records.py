"""Loading drift inputs: typed records, cross-checks, and every problem located at once."""

from __future__ import annotations

import pytest

from gate.errors import InputError
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import feedback_text, load_drift, total_credits
from tests.conftest import EXAMPLES
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise

FB = feedback(("Roles", "Names both roles.", 2.0), ("Example", "Good example.", 1.5))


def suite(**extra) -> DriftSuiteConfig:
    return DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"], **extra)


def test_example_loads():
    config = DriftSuiteConfig(kind="drift", baseline=["baselines/feedback/*.json"],
                              candidates=["outputs/feedback/*.jsonl"])
    data = load_drift("feedback-drift", config, EXAMPLES)
    assert [e.id for e in data.exercises] == ["14676", "15012", "15230"]
    assert [len(e.submissions) for e in data.exercises] == [10, 11, 12]
    assert data.models == ("gpt-4o-2024-11-20", "gpt-4o-mini", "llama-3.1-8b-instruct")
    assert len(data.candidates) == 99
    first = data.candidates[0]
    assert first.source_ref.file.endswith("gpt-4o-2024-11-20.jsonl") and first.source_ref.line == 1
    sub = data.exercises[0].submissions[1]
    assert sub.source_ref.line is not None and sub.source_ref.line > 5


def test_text_and_credits_follow_design():
    data_items = [type("I", (), {"title": t, "description": d, "credits": c})() for t, d, c in
                  [("A", "first", 1.0), ("B", "second", 2.5)]]
    assert feedback_text(data_items) == "A\nfirst\nB\nsecond"
    assert total_credits(data_items) == 3.5
    assert feedback_text([]) == ""


def test_ids_compare_as_strings_and_extra_fields_are_kept(in_tmp):
    write_exercise(in_tmp / "baselines", 7, [submission(1, FB)])
    record = candidate(7, 1, "m", FB) | {"exercise_id": "7", "latency_ms": 812}
    write_candidates(in_tmp / "outputs" / "m.jsonl", [record])
    data = load_drift("fb", suite(), in_tmp)
    assert data.candidates[0].exercise_id == "7"
    assert data.candidates[0].model_extra == {"latency_ms": 812}


def test_every_problem_is_reported_at_once(in_tmp):
    write_exercise(in_tmp / "baselines", 7, [submission(1, FB), submission(2, None), submission(1, FB)])
    bad_item = {"title": "x", "description": "y", "credits": "two"}
    write_candidates(in_tmp / "outputs" / "m.jsonl", [
        candidate(7, 1, "m", FB),
        candidate(7, 1, "m", FB),           # duplicate
        candidate(8, 1, "m", FB),           # unknown exercise
        candidate(7, 9, "m", FB),           # unknown submission
        candidate(7, 2, "m", FB),           # submission without baseline
        candidate(7, 1, "n", [bad_item]),   # wrong type
        {"exercise_id": 7, "model": "m", "feedback": []},  # missing field
    ])
    with pytest.raises(InputError) as caught:
        load_drift("fb", suite(), in_tmp)
    problems = caught.value.problems
    rendered = "\n".join(p.render() for p in problems)
    assert "submission 1 twice" in rendered                                  # in the exercise file
    assert "m.jsonl:2" in rendered and "a second candidate" in rendered      # duplicate line
    assert "m.jsonl:3" in rendered and "exercise present in the baseline" in rendered
    assert "m.jsonl:4" in rendered and "a submission of exercise 7" in rendered
    assert "m.jsonl:5" in rendered and "baseline bless" in rendered
    assert "m.jsonl:6" in rendered and "feedback[0].credits" in rendered and "'two'" in rendered
    assert "m.jsonl:7" in rendered and "submission_id" in rendered and "required" in rendered
    assert len(problems) == 7


def test_unknown_model_filter_suggests_the_close_one(in_tmp):
    write_exercise(in_tmp / "baselines", 7, [submission(1, FB)])
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(7, 1, "gpt-4o-mini", FB)])
    with pytest.raises(InputError) as caught:
        load_drift("fb", suite(models=["gpt-4o-mnii"]), in_tmp)
    assert caught.value.problems[0].fix == "did you mean 'gpt-4o-mini'?"


def test_model_filter_keeps_only_selected(in_tmp):
    write_exercise(in_tmp / "baselines", 7, [submission(1, FB)])
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(7, 1, "a", FB), candidate(7, 1, "b", FB)])
    data = load_drift("fb", suite(models=["b"]), in_tmp)
    assert data.models == ("b",) and [c.model for c in data.candidates] == ["b"]


def test_globs_matching_nothing_and_broken_exercise_files(in_tmp):
    (in_tmp / "baselines").mkdir()
    (in_tmp / "baselines" / "x.json").write_text('{"title": "no id", "submissions": 3}')
    with pytest.raises(InputError) as caught:
        load_drift("fb", suite(), in_tmp)
    rendered = "\n".join(p.render() for p in caught.value.problems)
    assert "suites.fb.candidates" in rendered and "matched nothing" in rendered
    assert "x.json:1" in rendered and "field 'id'" in rendered
    assert "list of submissions" in rendered


def test_duplicate_exercise_ids_across_files(in_tmp):
    write_exercise(in_tmp / "baselines", 7, [submission(1, FB)])
    (in_tmp / "baselines" / "copy.json").write_text((in_tmp / "baselines" / "sampled_exercise-7.json").read_text())
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(7, 1, "m", FB)])
    with pytest.raises(InputError) as caught:
        load_drift("fb", suite(), in_tmp)
    assert "a second exercise 7" in caught.value.problems[0].found


def test_seed_single_submission_object_is_accepted(in_tmp):
    (in_tmp / "baselines").mkdir()
    (in_tmp / "baselines" / "e.json").write_text(
        '{"id": 6715, "title": "Patterns", "submissions": {"id": 201, "text": "t", "baseline_feedback": '
        '{"timestamp": "2024-09-15T10:30:00Z", "model_version": "gpt-4o", "feedback": '
        '[{"title": "Pattern", "description": "Good", "credits": 2.0}]}}}')
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(6715, 201, "m", FB)])
    data = load_drift("fb", suite(), in_tmp)
    assert data.exercises[0].submissions[0].id == "201"
