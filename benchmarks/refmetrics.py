"""The reference pipelines' arithmetic, written independently of `gate` the way the seeds compute it.

Pure functions over raw records (dicts read from the workload's files) and numpy vectors. The model
calls live in `reference.py`; the heuristic rubric's oracle is `tests/support/seed_rubric_reference.py`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
K = (1, 3, 5)
FAITHFULNESS_THRESHOLD = 0.6


# ------------------------------------------------------------------------------------------ reading

def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_workload(root: Path) -> dict:
    """The raw records of every suite, as the seeds' scripts would read them (plain json)."""
    exercises = [json.loads(p.read_text()) for p in sorted((root / "baselines" / "feedback").glob("*.json"))]
    return {
        "exercises": exercises,
        "candidates": [r for p in sorted((root / "outputs" / "feedback").glob("*.jsonl")) for r in read_jsonl(p)],
        "stability": [r for p in sorted((root / "stability").glob("*.jsonl")) for r in read_jsonl(p)],
        "stereotype": [r for p in sorted((root / "stereotype").glob("*.jsonl")) for r in read_jsonl(p)],
        "rag": [r for name in ("enhanced", "baseline") for r in read_jsonl(root / "rag" / f"{name}.jsonl")],
        "heuristic": [r for p in sorted((root / "heuristic").glob("*.jsonl")) for r in read_jsonl(p)],
    }


# ------------------------------------------------------------------------------------------ drift

def feedback_text(items: list[dict]) -> str:
    return "\n".join(part for item in items for part in (item["title"], item["description"]))


def drift_pairs(data: dict) -> list[tuple[str, str, str, str, str]]:
    """(exercise, submission, model, candidate text, baseline text) for every candidate record."""
    baselines = {(str(e["id"]), str(s["id"])): s["baseline_feedback"]["feedback"]
                 for e in data["exercises"] for s in e["submissions"]}
    return [(str(c["exercise_id"]), str(c["submission_id"]), c["model"], feedback_text(c["feedback"]),
             feedback_text(baselines[str(c["exercise_id"]), str(c["submission_id"])])) for c in data["candidates"]]


# ------------------------------------------------------------------------------------------ stability

def questions(records: list[dict]) -> dict[tuple[str, str, str], list[dict]]:
    grouped: dict[tuple[str, str, str], list[dict]] = {}
    for r in records:
        grouped.setdefault((r["model"], r["task"], str(r["question_id"])), []).append(r)
    return grouped


def stability_coefficient(vectors: np.ndarray, responses: list[dict]) -> float:
    """(mean of the n(n-1) off-diagonal cosine similarities) x mean geometric answer probability."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sim = unit.astype(np.float64) @ unit.astype(np.float64).T
    n = len(responses)
    total = 0.0
    for i in range(n):
        for j in range(n):
            if i != j:
                total += sim[i, j]
    probs = [math.exp(sum(r["token_logprobs"]) / len(r["token_logprobs"])) for r in responses]
    return total / (n * (n - 1)) * (sum(probs) / len(probs))


# ------------------------------------------------------------------------------------------ similarity

def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def mentions(text: str, trait: str) -> bool:
    return re.search(r"\b" + r"\s+".join(map(re.escape, trait.split())) + r"\b", text, re.IGNORECASE) is not None


# ------------------------------------------------------------------------------------------ rag

def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]


def rag_texts(record: dict) -> list[str]:
    """What one RAG sample's embedding metrics need: query, answer, answer and context sentences."""
    context = [s for c in record.get("retrieved_contexts") or [] for s in sentences(c)]
    return [record["query"], record["actual_answer"], *sentences(record["actual_answer"]), *context]


def retrieval(record: dict) -> dict[str, float]:
    """The seed's retrieval metrics by document id (binary relevance), in plain Python."""
    retrieved, truth = record["retrieved_ids"], set(record["ground_truth_ids"])
    out: dict[str, float] = {}
    for k in K:
        top = retrieved[:k]
        hits = len([d for d in top if d in truth])
        out[f"precision_at_k.{k}"] = hits / k
        out[f"recall_at_k.{k}"] = hits / len(truth)
        out[f"ndcg_at_k.{k}"] = _ndcg(top, truth, k)
    out["reciprocal_rank"] = 0.0
    for rank, doc in enumerate(retrieved, 1):
        if doc in truth:
            out["reciprocal_rank"] = 1.0 / rank
            break
    out["ndcg"] = _ndcg(retrieved, truth, len(truth))
    hits, total = 0, 0.0
    for rank, doc in enumerate(retrieved, 1):
        if doc in truth:
            hits += 1
            total += hits / rank
    out["context_precision"] = total / hits if hits else 0.0
    return out


def _ndcg(ranked: list[str], truth: set[str], ideal_len: int) -> float:
    dcg = sum(1.0 / math.log2(rank + 1) for rank, doc in enumerate(ranked, 1) if doc in truth)
    idcg = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(truth), ideal_len) + 1))
    return dcg / idcg if idcg else 0.0


def generation(record: dict, embed) -> dict[str, float]:
    """BLEU and ROUGE-L (sacrebleu, rouge-score), answer relevancy and faithfulness from embeddings."""
    import sacrebleu
    from rouge_score import rouge_scorer

    answer, expected = record["actual_answer"], record["expected_answer"]
    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    out = {"bleu": sacrebleu.sentence_bleu(answer, [expected]).score / 100,
           "rouge_l": rouge.score(expected, answer)["rougeL"].fmeasure,
           "answer_relevancy": cosine(embed(record["query"]), embed(answer))}
    support = [s for c in record["retrieved_contexts"] for s in sentences(c)]
    claims = sentences(answer)
    supported = 0
    for claim in claims:
        if max(cosine(embed(claim), embed(s)) for s in support) >= FAITHFULNESS_THRESHOLD:
            supported += 1
    out["context_similarity"] = supported / len(claims)
    return out
