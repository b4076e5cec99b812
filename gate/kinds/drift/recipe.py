"""Drift's generation recipe (seed quality-drift-bertscore, `Kind.generation`): feedback on each baselined submission.

No dataset: the calls ask about the submissions of the suite's `baseline:` exercise files that have
`baseline_feedback` (the seed's sampled submissions; one without a baseline cannot be compared, and `baseline bless`
gives it one). The prompt template (default `DEFAULT_PROMPT`: the exercise's title, the submission's text, and the
feedback asked for as JSON) takes the exercise's fields, the submission's fields, `exercise_id` and
`submission_id`. One call per (submission, model, sample); one candidate per answered call, in the shape the
kind's `candidates:` read: `{exercise_id, submission_id, model, feedback: [{title, description, credits}], sample,
model_version}`. The feedback is the response's JSON list of items (an object's `feedback` list, inside a code
fence or prose too), or the `feedback` list a command provider returns beside its text. What does not fit is
said in the candidate's `format_notes` (an item without credits ≥ 0 counts 0 credits; an answer with no such list
is empty feedback, its text kept in `response`): a malformed answer is measured as the poor feedback it is. A
failed call writes no candidate: the submission is missing for that model.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gate import io
from gate.config.generation import GenerateConfig
from gate.errors import InputError, Problem
from gate.generate.providers.types import Request, Response
from gate.io import SourceRef
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import Exercise, load_exercises
from gate.kinds.generation import Answered, Call, Generation
from gate.kinds.prompts import asked, check_template, draws, parameters, render, sample_field, version
from gate.kinds.records import MAX_MAGNITUDE

DEFAULT_PROMPT = (
    "Give feedback on a student's submission to the exercise \"{title}\".\n\n"
    "Submission:\n{text}\n\n"
    "Answer with a JSON list of feedback items and nothing else. Each item is an object with \"title\" (what it is "
    "about), \"description\" (the feedback itself) and \"credits\" (the points awarded for it, a number ≥ 0).")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_OWN = ("submissions", "baseline_feedback")  # structure, not prompt fields


def exercises(name: str, suite: DriftSuiteConfig, base_dir: Path) -> list[Exercise]:
    """The suite's exercises, read as its `load` reads them (InputError naming each problem's file and line)."""
    problems: list[Problem] = []
    paths, bad = io.expand_globs(suite.baseline, base_dir, f"suites.{name}.baseline")
    problems += bad
    found, _ = load_exercises(paths, problems)
    if problems:
        raise InputError(f"suite '{name}' (drift): its baseline files are invalid", problems)
    return found


def _exercise_fields(exercise: Exercise, documents: dict[Path, Any]) -> dict[str, Any]:
    """The exercise object's own fields (its problem statement, grading instructions, …), as the file gives them."""
    if exercise.path not in documents:
        document, _ = io.read_json_document(exercise.path)
        documents[exercise.path] = document.value if document is not None else None
    value = documents[exercise.path]
    if exercise.index_in_file is not None and isinstance(value, list):
        value = value[exercise.index_in_file]
    return {k: v for k, v in value.items() if k not in _OWN} if isinstance(value, dict) else {}


def calls(name: str, suite: DriftSuiteConfig, generate: GenerateConfig, base_dir: Path) -> list[Call]:
    where = f"suites.{name}.generate"
    if generate.dataset is not None:
        raise InputError(f"suite '{name}' (drift): generate: no dataset", [Problem(
            field=f"{where}.dataset", expected="no dataset: drift asks about the submissions of its `baseline:` "
            "exercise files", found=", ".join(generate.dataset), fix="remove `dataset:` from `generate:`")])
    template = generate.prompt or DEFAULT_PROMPT
    documents: dict[Path, Any] = {}
    units: list[tuple[str, str]] = []
    rows: list[tuple[dict[str, Any], SourceRef | None]] = []
    for exercise in exercises(name, suite, base_dir):
        own = _exercise_fields(exercise, documents)
        for submission in exercise.submissions:
            if submission.baseline_feedback is None:
                continue
            values = {**own, "exercise_id": exercise.id, "title": exercise.title,
                      **{k: v for k, v in submission.model_dump().items() if k not in (*_OWN, "id")},
                      "submission_id": submission.id}
            units.append((exercise.id, submission.id))
            rows.append((values, submission.source_ref or exercise.source))
    if not units:
        raise InputError(f"suite '{name}' (drift): nothing to generate", [Problem(
            field=f"suites.{name}.baseline", expected="submissions with `baseline_feedback` to compare with",
            found="none", fix="bless a baseline first (`llm-gate baseline bless`), then generate candidates")])
    check_template(template, rows, f"{where}.prompt", "submission")
    settings = parameters(generate)
    found = []
    for (exercise_id, submission_id), (values, _) in zip(units, rows, strict=True):
        text = render(template, values)
        for model, sample in draws(generate):
            fields = {"exercise_id": exercise_id, "submission_id": submission_id, "model": model,
                      **sample_field(generate, sample)}
            found.append(Call(Request(model, asked(generate, text), parameters=settings, sample=sample), fields))
    return found


def _json_value(text: str) -> Any:
    """The JSON an answer holds: all of it, a fenced block, or the outermost list (or object) in its prose."""
    for candidate in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        candidate = candidate.strip()
        spans = [candidate] + [candidate[candidate.find(a): candidate.rfind(b) + 1] for a, b in ("[]", "{}")
                               if 0 <= candidate.find(a) < candidate.rfind(b)]
        for span in spans:
            try:
                return json.loads(span)
            except (ValueError, RecursionError):
                continue
    return None


def _credits(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and 0 <= number <= MAX_MAGNITUDE else None


def _text(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def parse_feedback(response: Response) -> tuple[list[dict[str, Any]], list[str]]:
    """The feedback items of an answer, and what in it did not fit (`format_notes`)."""
    given = response.extra.get("feedback")
    value = given if isinstance(given, list) else _json_value(response.text)
    if isinstance(value, dict):
        value = value.get("feedback")
    if not isinstance(value, list):
        return [], ["the answer holds no JSON list of feedback items: empty feedback"]
    items, notes = [], []
    for index, item in enumerate(value, 1):
        if not isinstance(item, dict):
            notes.append(f"item {index} is no object: left out")
            continue
        credits = _credits(item.get("credits"))
        if credits is None:
            notes.append(f"item {index} has no credits ≥ 0: counted as 0")
        items.append({"title": _text(item.get("title")), "description": _text(item.get("description")),
                      "credits": credits or 0.0})
    return items, notes


def records(suite: DriftSuiteConfig, generate: GenerateConfig, answered: Sequence[Answered]) -> list[dict[str, Any]]:
    found = []
    for call, response in answered:
        if response is None:
            continue  # a failed call: no feedback for this submission, never a made-up one
        feedback, notes = parse_feedback(response)
        found.append({**call.fields, "feedback": feedback, **version(response),
                      **({"format_notes": notes} if notes else {}),
                      **({"response": response.text} if notes and not feedback else {})})
    return found


GENERATION: Generation[DriftSuiteConfig] = Generation(calls=calls, records=records, reads="candidates")
