"""Drift baseline feedback: the seed's "regenerate baseline" for drift suites (pure part), and its age.

`bless` replaces `baseline_feedback` of each submission a candidate model answered with that
model's feedback, a timestamp and the model version. Everything else in the exercise file (other
fields, other submissions, unknown keys) is kept as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from gate.kinds.drift.records import DriftCandidate
from gate.kinds.drift.scorer import DriftDetails
from gate.results import SuiteResult


def baseline_feedback(candidate: DriftCandidate, model_version: str, now: datetime) -> dict[str, Any]:
    return {
        "timestamp": now.isoformat().replace("+00:00", "Z"),
        "model_version": model_version,
        "feedback": [item.model_dump() for item in candidate.feedback],
    }


def model_version_of(candidates: Sequence[DriftCandidate], explicit: str | None) -> str:
    """--model-version, else the version the candidate records carry, else the model name."""
    if explicit:
        return explicit
    versions = {str(extra["model_version"]) for c in candidates
                if (extra := c.model_extra or {}).get("model_version")}
    if len(versions) == 1:
        return versions.pop()
    return candidates[0].model if candidates else "unknown"


def blessed_exercise(exercise: Mapping[str, Any], updates: Mapping[str, dict[str, Any]]) -> tuple[dict[str, Any], int]:
    """A copy of an exercise object with `baseline_feedback` replaced for the submission ids in `updates`."""
    result = copy.deepcopy(dict(exercise))
    submissions = result.get("submissions")
    items = [submissions] if isinstance(submissions, dict) else submissions
    changed = 0
    for submission in items or []:
        key = id_key(submission.get("id"))
        if key in updates:
            submission["baseline_feedback"] = updates[key]
            changed += 1
    return result, changed


def id_key(value: Any) -> str:
    """An id from an exercise file as the loaders compare it (`gate.kinds.records.Id`): 7, 7.0 and " 7" are "7"."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value.strip() if isinstance(value, str) else str(value)


def oldest_blessed(result: SuiteResult) -> str | None:
    """When the oldest baseline feedback a suite compared with was written (`Kind.outputs_blessed_at`)."""
    exercises = result.details.exercises if isinstance(result.details, DriftDetails) else {}
    stamps = sorted(f.oldest_baseline_at for f in exercises.values() if f.oldest_baseline_at)
    return stamps[0] if stamps else None
