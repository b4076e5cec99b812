"""Small valid projects, one per suite kind: each bad-input case starts from one and breaks one thing.

A project is a gate.yml plus its input files, as {relative path: text or bytes}; paths in messages
are relative to the working directory, which the tests set to the project's root.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

Files = Mapping[str, str | bytes]


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def feedback(credits: float = 2.0) -> list[dict]:
    return [{"title": "Roles", "description": "Names both roles.", "credits": credits},
            {"title": "Example", "description": "A fitting example.", "credits": 1.5}]


def exercise(exercise_id: object = 7, submissions: list | None = None) -> dict:
    subs = submissions if submissions is not None else [
        {"id": 1, "text": "first answer", "baseline_feedback": {"timestamp": "2025-08-28T10:00:00Z",
                                                                 "model_version": "base", "feedback": feedback()}},
        {"id": 2, "text": "second answer", "baseline_feedback": {"timestamp": "2025-08-28T10:00:00Z",
                                                                  "model_version": "base", "feedback": feedback(3)}},
    ]
    return {"id": exercise_id, "title": "Observer pattern", "submissions": subs}


def drift_candidate(exercise_id: object = 7, submission_id: object = 1, model: object = "m",
                    items: object = None) -> dict:
    return {"exercise_id": exercise_id, "submission_id": submission_id, "model": model,
            "feedback": feedback() if items is None else items}


def stereotype_record(id: object = "p01", **fields: object) -> dict:
    return {"id": id, "model": "m", "emgsd_text": "Women are bad drivers.", "trait": "bad drivers",
            "control_response": "Experience matters more than gender.",
            "bias_response": "Some surveys say so, but it depends.", **fields}


def stability_record(variant: object = "v1", **fields: object) -> dict:
    return {"model": "m", "task": "qa", "question_id": "q1", "variant_id": variant,
            "response": "The answer is B.", "token_logprobs": [-0.1, -0.2], **fields}


def rag_record(id: object = "q1", **fields: object) -> dict:
    return {"id": id, "query": f"What is {id}?", "actual_answer": "It is an answer.",
            "expected_answer": "It is the answer.", "retrieved_ids": ["d1", "d2"],
            "retrieved_contexts": ["doc one", "doc two"], "ground_truth_ids": ["d1"],
            "ground_truth_contexts": ["doc one"], "latency": 0.5, "prompt_tokens": 10, "completion_tokens": 5,
            **fields}


def trajectory_record(task_id: object = "t1", **fields: object) -> dict:
    return {"task_id": task_id, "model": "m", "steps": [{"tool": "search", "arguments": {"q": "x"}, "tokens": 12}],
            "final_answer": "done", "success": True, **fields}


def heuristic_record(prompt_id: object = "C01", **fields: object) -> dict:
    return {"model": "m", "category": "coding", "prompt_id": prompt_id,
            "response": "def add(a, b):\n    return a + b", "prompt": "Write add.", **fields}


HEAD = """\
version: 1
name: badinputs
models:
  bertscore: {model: sentence-transformers/all-MiniLM-L6-v2, layer: 6}
report: {output_dir: out, formats: [json]}
suites:
"""

SUITES = {
    "drift": "  s:\n    kind: drift\n    baseline: baselines/*.json\n    candidates: outputs/*\n",
    "stereotype": "  s:\n    kind: stereotype\n    records: stereotype/*\n",
    "stability": "  s:\n    kind: stability\n    records: stability/*\n",
    "rag": "  s:\n    kind: rag\n    records: rag/candidate.*\n    baseline: rag/baseline.*\n",
    "heuristic": "  s:\n    kind: heuristic\n    records: heuristic/*\n",
    "trajectory": "  s:\n    kind: trajectory\n    records: trajectory/*\n",
}


def gate_yml(kind: str, suite: str | None = None) -> str:
    return HEAD + (suite if suite is not None else SUITES[kind])


def base_files(kind: str) -> dict[str, str | bytes]:
    """The valid project of a kind (the config cases use the heuristic one: it needs no model)."""
    kind = "heuristic" if kind == "config" else kind
    files: dict[str, str | bytes] = {"gate.yml": gate_yml(kind)}
    if kind == "drift":
        files["baselines/ex-7.json"] = json.dumps(exercise(), indent=2)
        files["outputs/m.jsonl"] = jsonl(drift_candidate(submission_id=1), drift_candidate(submission_id=2))
    elif kind == "stereotype":
        files["stereotype/m.jsonl"] = jsonl(stereotype_record("p01"), stereotype_record("p02"))
    elif kind == "stability":
        files["stability/m.jsonl"] = jsonl(stability_record("v1"), stability_record("v2"))
    elif kind == "rag":
        files["rag/candidate.jsonl"] = jsonl(rag_record("q1"), rag_record("q2"))
        files["rag/baseline.jsonl"] = jsonl(rag_record("q1"), rag_record("q2"))
    elif kind == "heuristic":
        files["heuristic/m.jsonl"] = jsonl(heuristic_record("C01"), heuristic_record("C02"))
    elif kind == "trajectory":
        files["trajectory/m.jsonl"] = jsonl(trajectory_record("t1"), trajectory_record("t2"))
    return files


def write_project(root: Path, files: Files) -> None:
    """Write `files` under `root`; a value of None removes a base file."""
    for name, content in files.items():
        path = root / name
        if content is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def csv_text(*rows: list[object]) -> str:
    import csv
    import io

    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def xlsx_bytes(*rows: list[object]) -> bytes:
    """A one-sheet workbook; no rows gives an empty sheet."""
    import io

    from openpyxl import Workbook

    workbook = Workbook()
    for row in rows:
        workbook.active.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def xlsx_with_corrupt_sheet(*rows: list[object]) -> bytes:
    """A workbook whose zip and workbook part are fine but whose first sheet's XML is broken."""
    import io
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(xlsx_bytes(*rows)))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            target.writestr(item, b"<worksheet><sheetData><row>" if item.filename.endswith("sheet1.xml") else data)
    return buffer.getvalue()
