"""Drift baseline feedback: the seed's "regenerate baseline" for drift suites (`baseline bless --model`), and its age.

`bless_outputs` (the kind's `Kind.bless_outputs`) replaces `baseline_feedback` of each submission a candidate model
answered with that model's feedback, a timestamp and the model version, atomically per exercise file. Everything
else in the exercise file (other fields, other submissions, unknown keys) is kept as it was.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from gate import io
from gate.errors import ConfigError, InputError, Problem
from gate.kinds.base import Blessing
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import DriftCandidate, load_drift
from gate.kinds.drift.scorer import DriftDetails
from gate.results import SuiteResult


def bless_outputs(name: str, suite: DriftSuiteConfig, base_dir: Path, blessing: Blessing) -> list[Path]:
    """Write `blessing.model`'s feedback as the suite's baseline feedback; the exercise files it updated (would
    update, in a dry run). Refuses candidates with repeated samples: which generation would be the baseline?"""
    model = blessing.model
    data = load_drift(name, suite.model_copy(update={"models": [model]}), base_dir, require_baseline=False)
    sampled = [c for c in data.candidates if c.sample is not None]
    if sampled:  # which generation would become the baseline feedback? refuse rather than keep the last one
        first = sampled[0]
        raise ConfigError("the candidates have repeated samples", [Problem(
            field="--model", expected=f"one generation of {model} per submission to bless as the baseline feedback",
            found=f"records with `sample` (exercise {first.exercise_id}, submission {first.submission_id}, "
                  f"sample {first.sample})",
            fix="bless from a candidate file with one generation per submission (without `sample`)")])
    version = model_version_of(data.candidates, blessing.model_version)
    updates = {(c.exercise_id, c.submission_id): baseline_feedback(c, version, blessing.now) for c in data.candidates}
    written, files = 0, []
    for path in dict.fromkeys(e.path for e in data.exercises):
        document, problems = io.read_json_document(path)
        if document is None:
            raise InputError("cannot re-read an exercise file", problems)
        value = document.value
        exercises = value if isinstance(value, list) else [value]
        new, changed = [], 0
        for exercise in exercises:
            mine = {sub: fb for (ex, sub), fb in updates.items() if ex == id_key(exercise.get("id"))}
            blessed, count = blessed_exercise(exercise, mine)
            new.append(blessed)
            changed += count
        if changed and not blessing.dry_run:
            io.write_json_atomic(path, new if isinstance(value, list) else new[0])
        if changed:
            files.append(path)
        written += changed
        action = "would update" if blessing.dry_run else "updated"
        sys.stdout.write(f"{io.display_path(path)}: {action} {changed} submission(s)\n")
    answered = {(c.exercise_id, c.submission_id) for c in data.candidates}
    kept = [f"{e.id}/{s.id}" for e in data.exercises for s in e.submissions if (e.id, s.id) not in answered]
    sys.stdout.write(f"{'Would bless' if blessing.dry_run else 'Blessed'} {written} submission(s) with {model} "
                     f"(model_version {version}).\n")
    if kept:
        shown = ", ".join(kept[:10]) + (" …" if len(kept) > 10 else "")
        sys.stdout.write(f"warning: {len(kept)} submission(s) have no candidate from {model} and keep their "
                         f"previous baseline: {shown}\n")
    return files


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
