"""Drift suite inputs: baseline exercise files (the seed's format) and candidate feedback records."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from gate import io
from gate.errors import InputError, Problem, describe
from gate.io import JsonDocument, SourceRef
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.records import Id, InputModel, Magnitude, Text, invalid, selected_models, short, validate, validate_each
from gate.kinds.samples.field import Sample, SampleMixing

NonEmpty = Annotated[str, Field(min_length=1)]


class FeedbackItem(InputModel):
    title: Text
    description: Text
    credits: Magnitude  # points awarded: 0 to 1e6 (a negative credit is not a score a tutor gives)


def _timestamp(value: Any) -> Any:
    """The baseline's age is judged from it (`baselines.max_age_days`): text that is no date would be skipped."""
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise invalid("an ISO 8601 date and time, e.g. \"2025-08-28T10:00:00Z\"", "write when the baseline "
                          "was made as YYYY-MM-DDTHH:MM:SSZ, or leave `timestamp` out") from None
    return value


class BaselineFeedback(InputModel):
    timestamp: Annotated[str | None, AfterValidator(_timestamp)] = None
    model_version: str | None = None
    feedback: list[FeedbackItem]


class Submission(InputModel):
    id: Id
    text: Text = ""
    baseline_feedback: BaselineFeedback | None = None


class DriftCandidate(InputModel):
    exercise_id: Id
    submission_id: Id
    model: NonEmpty
    feedback: list[FeedbackItem]
    sample: Sample = None  # one of several generations for this submission and model (gate.kinds.samples.field)


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    submissions: tuple[Submission, ...]
    source: SourceRef
    path: Path  # the file, for `baseline bless`
    index_in_file: int | None  # position when a file holds an array of exercises


@dataclass(frozen=True)
class DriftData:
    exercises: tuple[Exercise, ...]
    candidates: tuple[DriftCandidate, ...]
    models: tuple[str, ...]  # in order of first appearance


def feedback_text(items: Sequence[FeedbackItem]) -> str:
    """The text BERTScore compares (DESIGN.md §4): each item's title then description, joined by newlines."""
    return "\n".join(part for item in items for part in (item.title, item.description))


def total_credits(items: Sequence[FeedbackItem]) -> float:
    return float(sum(item.credits for item in items))


# ---------------------------------------------------------------- loading


def load_drift(suite_name: str, config: DriftSuiteConfig, base_dir: Path, *,
               require_baseline: bool = True) -> DriftData:
    """Read and cross-check baselines and candidates; raise one `InputError` listing every problem.

    `require_baseline=False` accepts candidates for submissions without `baseline_feedback` yet: a
    freshly sampled exercise, which `baseline bless` is about to give one.
    """
    field = f"suites.{suite_name}"
    problems: list[Problem] = []
    baseline_paths, bad = io.expand_globs(config.baseline, base_dir, f"{field}.baseline")
    problems += bad
    exercises, complete = load_exercises(baseline_paths, problems)
    # With an exercise unreadable, "no such exercise" for each of its candidates would bury the cause.
    baselines_complete = complete and not bad
    candidate_paths, bad = io.expand_globs(config.candidates, base_dir, f"{field}.candidates", data=True)
    problems += bad
    raw, bad = io.read_records(candidate_paths)
    problems += bad
    candidates = validate_each(DriftCandidate, raw, problems)
    problems += _cross_check(exercises, candidates, require_baseline, baselines_complete)
    models = selected_models([c.model for c in candidates], config.models, field, problems)
    candidates = [c for c in candidates if c.model in models]
    if problems:
        raise InputError(f"suite '{suite_name}' (drift): input files are invalid", problems)
    return DriftData(tuple(exercises), tuple(candidates), models)


def load_exercises(paths: Sequence[Path], problems: list[Problem]) -> tuple[list[Exercise], bool]:
    """The exercises, and whether every exercise in the files could be read."""
    exercises: list[Exercise] = []
    seen: dict[str, SourceRef] = {}
    complete = True
    for path in paths:
        document, bad = io.read_json_document(path)
        problems += bad
        if document is None:
            complete = False
            continue
        value = document.value
        items = value if isinstance(value, list) else [value]
        for index, item in enumerate(items):
            position = (index,) if isinstance(value, list) else ()
            exercise = _exercise(document, item, position, path, problems)
            if exercise is None:
                complete = False
                continue
            if exercise.id in seen:
                problems.append(Problem(file=exercise.source.file, line=exercise.source.line,
                                        record=f"exercise {short(exercise.id)}", field="id",
                                        expected="unique exercise ids",
                                        found=f"a second exercise {short(exercise.id)} (first at {seen[exercise.id]})",
                                        fix="remove the duplicate file or give it its own id"))
                continue
            seen[exercise.id] = exercise.source
            exercises.append(exercise)
    return exercises, complete


def _exercise(document: JsonDocument, item: object, position: tuple, path: Path,
              problems: list[Problem]) -> Exercise | None:
    source = SourceRef(document.source.file, document.line_of(*position))
    label = f"exercise {position[0] + 1}" if position else "exercise"
    if not isinstance(item, dict):
        problems.append(Problem(file=source.file, line=source.line, record=label,
                                expected="an exercise object with `id` and `submissions`", found=describe(item),
                                fix="a baseline file holds one exercise object, or a JSON array of them"))
        return None
    exercise_id = validate(_ExerciseHead, item, source, label, problems)
    submissions_value = item.get("submissions")
    if isinstance(submissions_value, dict):  # the seed's sample shows a single submission object
        submissions_value = [submissions_value]
    if not isinstance(submissions_value, list):
        problems.append(Problem(file=source.file, line=source.line, record=label, field="submissions",
                                expected="a list of submissions", found=describe(submissions_value),
                                fix="add `submissions`: [{\"id\": ..., \"text\": ..., \"baseline_feedback\": ...}]"))
        return None
    label = f"exercise {short(exercise_id.id)}" if exercise_id else label
    submissions, seen = [], set()
    for index, raw in enumerate(submissions_value):
        sub_source = SourceRef(source.file, document.line_of(*position, "submissions", index))
        submission = validate(Submission, raw, sub_source, f"{label}, submission {index + 1}", problems,
                              prefix=f"submissions[{index}].")
        if submission is None:
            continue
        if submission.id in seen:
            problems.append(Problem(file=sub_source.file, line=sub_source.line, record=label,
                                    field=f"submissions[{index}].id", expected="unique submission ids",
                                    found=f"submission {short(submission.id)} twice", fix="remove one of them"))
            continue
        seen.add(submission.id)
        submissions.append(submission)
    if exercise_id is None:
        return None  # (problems in single submissions are reported; the rest still cross-checks)
    return Exercise(exercise_id.id, exercise_id.title, tuple(submissions), source, path,
                    position[0] if position else None)


class _ExerciseHead(InputModel):
    id: Id
    title: Text = ""


def _cross_check(exercises: Sequence[Exercise], candidates: Sequence[DriftCandidate],
                 require_baseline: bool, baselines_complete: bool = True) -> list[Problem]:
    problems: list[Problem] = []
    by_id = {e.id: {s.id: s for s in e.submissions} for e in exercises}
    seen: dict[tuple[str, str, str, str | None], SourceRef | None] = {}
    mixing = SampleMixing()
    for candidate in candidates:
        where = candidate.source_ref
        file, line = (where.file, where.line) if where else (None, None)
        key = (candidate.exercise_id, candidate.submission_id, candidate.model, candidate.sample)
        if key in seen:
            problems.append(Problem(file=file, line=line, record=f"model {short(candidate.model)}",
                                    field="submission_id" if key[3] is None else "sample",
                                    expected="one candidate per (exercise, submission, model"
                                             + (")" if key[3] is None else ", sample)"),
                                    found=f"a second candidate for exercise {describe(key[0])} submission "
                                          f"{describe(key[1])}" + ("" if key[3] is None else
                                                                    f" sample {describe(key[3])}")
                                          + f" (first at {seen[key]})",
                                    fix="remove the duplicate line" if key[3] is None else
                                        "give each generation its own `sample`, or remove the duplicate line"))
            continue
        seen[key] = where
        mixed = mixing.see(key[:3], candidate.sample, where, f"exercise {short(key[0])} submission "
                           f"{short(key[1])}", f"model {short(candidate.model)}")
        if mixed:
            problems.append(mixed)
        submissions = by_id.get(candidate.exercise_id)
        if submissions is None:
            if baselines_complete:
                problems.append(Problem(file=file, line=line, field="exercise_id",
                                        expected="an exercise present in the baseline files",
                                        found=describe(candidate.exercise_id),
                                        fix=_did_you_mean(candidate.exercise_id, by_id)))
            continue
        submission = submissions.get(candidate.submission_id)
        if submission is None:
            problems.append(Problem(file=file, line=line, field="submission_id",
                                    expected=f"a submission of exercise {short(candidate.exercise_id)}",
                                    found=describe(candidate.submission_id),
                                    fix=_did_you_mean(candidate.submission_id, submissions)))
        elif submission.baseline_feedback is None and require_baseline:
            problems.append(Problem(file=file, line=line, field="submission_id",
                                    expected="a submission that has `baseline_feedback`",
                                    found=f"exercise {short(candidate.exercise_id)} submission "
                                          f"{describe(candidate.submission_id)} has none",
                                    fix="write a baseline with `llm-gate baseline bless`"))
    return problems


def _did_you_mean(value: str, known: Sequence[str] | dict) -> str:
    choices = [str(k) for k in known]
    close = difflib.get_close_matches(value[:200], choices, n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    shown = ", ".join(describe(c, 40) for c in choices[:10]) + (" …" if len(choices) > 10 else "")
    return f"use one of the known ids: {shown}" if choices else "add it to the baseline files"
