"""Baselines, the pure part: the blessed `baseline_feedback`, its model version, and a copy changed only where asked."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from gate.kinds.drift.feedback import baseline_feedback, blessed_exercise, id_key, model_version_of
from gate.kinds.drift.records import DriftCandidate
from tests.support.drift_fixtures import feedback

NOW = datetime(2025, 9, 1, 12, 30, 5, tzinfo=timezone.utc)
NEW = feedback(("Roles", "Both roles are named.", 2.5), ("Example", "Fits well.", 1.0))

def cand(**extra) -> DriftCandidate:
    return DriftCandidate.model_validate({"exercise_id": 7, "submission_id": 1, "model": "m", "feedback": NEW,
                                          **extra})


def test_baseline_feedback_shape():
    item = feedback(("T", "D", 1))[0] | {"severity": "low"}  # unknown keys of an item are kept
    result = baseline_feedback(cand(feedback=[item]), "v1", NOW)
    assert result == {"timestamp": "2025-09-01T12:30:05Z", "model_version": "v1",
                      "feedback": [{"title": "T", "description": "D", "credits": 1.0, "severity": "low"}]}


def test_model_version_precedence():
    assert model_version_of([cand(model_version="a")], "explicit") == "explicit"
    assert model_version_of([cand(model_version="a"), cand(model_version="a")], None) == "a"
    assert model_version_of([cand(model_version="a"), cand(model_version="b")], None) == "m"  # ambiguous
    assert model_version_of([cand()], None) == "m"
    assert model_version_of([], None) == "unknown"


def test_blessed_exercise_is_a_copy_that_changes_only_the_named_submissions():
    exercise = {"id": 7, "note": [1, 2], "submissions": [
        {"id": 1.0, "text": "a", "extra": {"x": 1}},
        {"id": " 2 ", "text": "b", "baseline_feedback": {"feedback": []}},
        {"id": 3, "text": "c", "baseline_feedback": {"feedback": []}},
    ]}
    snapshot = json.loads(json.dumps(exercise))
    blessed, changed = blessed_exercise(exercise, {"1": {"new": 1}, "2": {"new": 2}, "99": {"new": 9}})
    assert changed == 2
    assert exercise == snapshot  # the input is untouched
    assert blessed["submissions"] == [
        {"id": 1.0, "text": "a", "extra": {"x": 1}, "baseline_feedback": {"new": 1}},
        {"id": " 2 ", "text": "b", "baseline_feedback": {"new": 2}},
        {"id": 3, "text": "c", "baseline_feedback": {"feedback": []}},
    ]
    assert blessed["note"] == [1, 2]
    assert id_key(14676) == id_key(14676.0) == id_key(" 14676") == "14676"


def test_a_single_submission_object_as_in_the_seed_sample_is_blessed():
    exercise = {"id": 6715, "title": "Software Design Patterns",
                "submissions": {"id": 201, "text": "Student submission text...", "baseline_feedback": {}}}
    blessed, changed = blessed_exercise(exercise, {"201": {"new": True}})
    assert changed == 1
    assert blessed == {"id": 6715, "title": "Software Design Patterns",
                       "submissions": {"id": 201, "text": "Student submission text...",
                                       "baseline_feedback": {"new": True}}}


def test_timestamp_keeps_sub_second_precision_and_marks_utc():
    moment = datetime(2025, 8, 28, 10, 54, 5, 805981, tzinfo=timezone.utc)
    assert baseline_feedback(cand(), "v", moment)["timestamp"] == "2025-08-28T10:54:05.805981Z"
