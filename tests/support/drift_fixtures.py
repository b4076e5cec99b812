"""Small drift inputs written into a temporary directory, for loader, scorer and CLI tests."""

from __future__ import annotations

import json
from pathlib import Path


def feedback(*items: tuple[str, str, float]) -> list[dict]:
    return [{"title": t, "description": d, "credits": c} for t, d, c in items]


def write_exercise(directory: Path, exercise_id: int, submissions: list[dict], title: str = "Exercise") -> Path:
    path = directory / f"sampled_exercise-{exercise_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"id": exercise_id, "title": title, "submissions": submissions}, indent=2))
    return path


def submission(sub_id: int, items: list[dict] | None, text: str = "answer") -> dict:
    entry: dict = {"id": sub_id, "text": text}
    if items is not None:
        entry["baseline_feedback"] = {"timestamp": "2025-08-28T10:00:00Z", "model_version": "base-model",
                                      "feedback": items}
    return entry


def write_candidates(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def candidate(exercise_id: int, sub_id: int, model: str, items: list[dict]) -> dict:
    return {"exercise_id": exercise_id, "submission_id": sub_id, "model": model, "feedback": items}


GATE_YML = """\
version: 1
models:
  bertscore: {{model: sentence-transformers/all-MiniLM-L6-v2, layer: 6}}
suites:
  fb:
    kind: drift
    baseline: baselines/*.json
    candidates: outputs/*.jsonl
{extra}"""


def write_gate(directory: Path, extra: str = "") -> Path:
    path = directory / "gate.yml"
    path.write_text(GATE_YML.format(extra=extra))
    return path
