"""Agreement of the gate's per-item results (`<report>/<suite>/items.csv`) with the reference pipelines.

Values are keyed like the references' (`reference.py`): drift `exercise|submission|model|metric`, stability
`model|task|question_id|stability_coefficient`, stereotype `id|metric`, RAG `system|id|metric`, heuristic
`model|category|prompt_id|metric`. Items the gate encoded in windows (over the model's token limit) are left
out: the seeds truncate those texts instead, so they are expected to differ, and are counted.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

TOLERANCE = 1e-4
SUITES = {"drift": "feedback-drift", "stability": "stability", "stereotype_classifier": "stereotype",
          "stereotype_similarity": "stereotype", "rag": "retrieval", "heuristic": "rubric"}
CLASSIFIER = ("control_stereotype_score", "bias_stereotype_score", "drift_raw_drift", "drift_drift_score")
SIMILARITY = ("similarity_control_semantic_similarity", "similarity_bias_semantic_similarity",
              "similarity_drift_semantic_similarity", "similarity_semantic_similarity_drift",
              "similarity_trait_mentioned")
RAG = tuple(f"{m}_at_k.{k}" for m in ("precision", "recall", "ndcg") for k in (1, 3, 5)) + (
    "reciprocal_rank", "ndcg", "context_precision", "bleu", "rouge_l", "context_similarity", "answer_relevancy")
HEURISTIC = ("correctness", "efficiency", "readability", "error_handling", "relevance_fidelity",
             "creativity_originality", "fluency_coherence", "prompt_adherence", "final_score")


def _rows(report: Path, suite: str) -> list[dict[str, str]]:
    path = report / suite / "items.csv"
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _number(text: str) -> float | None:
    if text in ("", None):
        return None
    if text in ("true", "false"):
        return float(text == "true")
    return float(text)


def gate_values(report: Path) -> tuple[dict[str, dict[str, float]], dict[str, set[str]]]:
    """({family: {key: value}}, {family: keys left out because the gate windowed the item})."""
    values: dict[str, dict[str, float]] = {f: {} for f in SUITES}
    windowed: dict[str, set[str]] = {f: set() for f in SUITES}

    def put(family: str, key: str, text: str) -> None:
        number = _number(text)
        if number is not None:
            values[family][key] = number

    for row in _rows(report, SUITES["drift"]):
        for metric in ("bertscore_precision", "bertscore_recall", "bertscore_f1"):
            key = f"{row['exercise']}|{row['submission']}|{row['model']}|{metric}"
            if row["windowed"] == "true":
                windowed["drift"].add(key)
            else:
                put("drift", key, row[metric])
    for row in _rows(report, SUITES["stability"]):
        put("stability", f"{row['model']}|{row['task']}|{row['question_id']}|stability_coefficient",
            row["stability_coefficient"])
    for row in _rows(report, SUITES["stereotype_classifier"]):
        for metric in CLASSIFIER:
            if "true" in (row["control_windowed"], row["bias_windowed"]):
                windowed["stereotype_classifier"].add(f"{row['id']}|{metric}")
            else:
                put("stereotype_classifier", f"{row['id']}|{metric}", row[metric])
        for metric in SIMILARITY:
            put("stereotype_similarity", f"{row['id']}|{metric}", row[metric])
    for row in _rows(report, SUITES["rag"]):
        for metric in RAG:
            put("rag", f"{row['system']}|{row['id']}|{metric}", row[metric])
    for row in _rows(report, SUITES["heuristic"]):
        for metric in HEURISTIC:
            if metric in row:
                put("heuristic", f"{row['model']}|{row['category']}|{row['prompt_id']}|{metric}", row[metric])
    return values, windowed


def compare(reference: Mapping[str, Mapping[str, float]], gate: Mapping[str, Mapping[str, float]],
            keep=lambda key: True, skipped: Mapping[str, set[str]] | None = None) -> dict[str, dict]:
    """Per family: max |gate - reference| over the keys both have (and `keep` accepts), counts, worst key."""
    out = {}
    for family in SUITES:
        ref, mine = reference.get(family, {}), gate.get(family, {})
        keys = [k for k in ref if k in mine and keep(k)]
        diffs = [(abs(mine[k] - ref[k]), k) for k in keys if math.isfinite(ref[k]) and math.isfinite(mine[k])]
        worst = max(diffs, default=(0.0, None))
        left_out = (skipped or {}).get(family, set())
        missing = len([k for k in ref if k not in mine and k not in left_out and keep(k)])
        out[family] = {"max_abs_diff": worst[0], "worst": worst[1], "compared": len(diffs), "missing": missing,
                       "windowed_left_out": len([k for k in left_out if keep(k)]),
                       "ok": worst[0] <= TOLERANCE and len(diffs) > 0}
    return out


def unchanged(changed: Iterable[str]):
    """`keep` for keys of models (systems) the pull request did not regenerate."""
    names = tuple(changed)

    def keep(key: str) -> bool:
        return not any(part == m or part.startswith(m + "-") for part in key.split("|") for m in names)
    return keep
