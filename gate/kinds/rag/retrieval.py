"""Retrieval metrics per query, as trec_eval computes them (pure).

An item is relevant by id when the sample gives ids, else by whitespace-normalised text equality of
retrieved and ground-truth contexts. Gains are 1, or the sample's graded `ground_truth_relevance`
(an item graded 0 is not relevant). A retrieved item repeated later in the list counts once, at its
first rank. Conventions (trec_eval's): P@k divides by k even when fewer than k items were retrieved;
the reciprocal rank is 0 when nothing relevant was retrieved; NDCG discounts rank r by log2(r + 1)
and IDCG takes the best possible ordering of all relevant items (cut at k for NDCG@k). A query with
no relevant items is unmeasured for recall, NDCG and context precision; a query without retrieval
or ground-truth data is unmeasured for all of them.

Context precision is Ragas' definition with reference relevance: over the retrieved list (K items),
Σ_k (precision@k · v_k) / (number of relevant items among the K), 0 when none of them is relevant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gate.kinds.rag.records import RagRecord

Values = dict[str, float | None]


def normalise(text: str) -> str:
    return " ".join(text.split())


def judgments(record: RagRecord) -> tuple[list[str], dict[str, float]] | None:
    """(retrieved keys in rank order, {relevant key: gain}); None when the sample cannot be judged."""
    if record.retrieved_ids is not None and record.ground_truth_ids is not None:
        retrieved, truth = list(record.retrieved_ids), list(record.ground_truth_ids)
    elif record.retrieved_contexts is not None and record.ground_truth_contexts is not None:
        retrieved = [normalise(t) for t in record.retrieved_contexts]
        truth = [normalise(t) for t in record.ground_truth_contexts]
    else:
        return None
    grades = record.ground_truth_relevance or [1.0] * len(truth)
    gains: dict[str, float] = {}
    for key, grade in zip(truth, grades, strict=True):
        if grade > 0:
            gains[key] = max(gains.get(key, 0.0), float(grade))
    return list(dict.fromkeys(retrieved)), gains


def retrieval_metrics(record: RagRecord, cutoffs: Sequence[int]) -> Values:
    names = [*(f"{m}.{k}" for m in ("precision_at_k", "recall_at_k", "ndcg_at_k") for k in cutoffs),
             "reciprocal_rank", "ndcg", "context_precision"]
    judged = judgments(record)
    if judged is None:
        return dict.fromkeys(names)
    ranked, gains = judged
    relevant = [key in gains for key in ranked]
    values: Values = {}
    for k in cutoffs:
        hits = sum(relevant[:k])
        values[f"precision_at_k.{k}"] = hits / k
        values[f"recall_at_k.{k}"] = hits / len(gains) if gains else None
        values[f"ndcg_at_k.{k}"] = ndcg(ranked, gains, k) if gains else None
    first = next((rank for rank, hit in enumerate(relevant, start=1) if hit), None)
    values["reciprocal_rank"] = 1.0 / first if first else 0.0
    values["ndcg"] = ndcg(ranked, gains, None) if gains else None
    values["context_precision"] = context_precision(relevant) if gains else None
    return values


def ndcg(ranked: Sequence[str], gains: dict[str, float], k: int | None) -> float:
    cut = ranked if k is None else ranked[:k]
    dcg = math.fsum(gains.get(key, 0.0) / math.log2(rank + 1) for rank, key in enumerate(cut, start=1))
    ideal = sorted(gains.values(), reverse=True)
    ideal = ideal if k is None else ideal[:k]
    idcg = math.fsum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def context_precision(relevant: Sequence[bool]) -> float:
    hits, total = 0, 0.0
    for rank, hit in enumerate(relevant, start=1):
        if hit:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0
