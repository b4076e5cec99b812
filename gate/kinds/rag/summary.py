"""Per-system summaries of a RAG run (pure): performance, the overall score and grade, and the seed's
rule-based `issues` and `insights`.

Latency percentiles are numpy's (linear interpolation). Throughput is queries per second of summed
latency (the queries answered one after another). Cost per query is the mean of the samples' `cost`,
else of (prompt + completion tokens) / 1000 × `cost_per_1k_tokens`. The overall score is the weighted
mean of the configured metrics that were measured (the weights of unmeasured ones are left out and
the rest rescaled, which the report notes); `recall_at_k` means recall at the largest k.
Grade: A ≥ 0.9, B ≥ 0.8, C ≥ 0.7, D ≥ 0.6, else F.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.kinds.rag.config import Targets
from gate.kinds.rag.records import RagRecord

GRADES = ((0.9, "A"), (0.8, "B"), (0.7, "C"), (0.6, "D"))
DESCRIPTIONS = {"A": "excellent", "B": "good", "C": "fair", "D": "poor", "F": "failing"}


@dataclass(frozen=True)
class SystemSummary:
    """One system's summary beyond its metrics, as the seed's evaluation report has it."""

    grade: str | None  # None: no overall score
    left_out: tuple[str, ...]  # overall-score components left out as unmeasured (the rest rescaled)
    n: int  # queries
    issues: tuple[str, ...]
    insights: tuple[str, ...]


def performance(records: Sequence[RagRecord], cost_per_1k_tokens: float) -> dict[str, float | None]:
    import numpy as np

    latencies = [r.latency for r in records if r.latency is not None]
    p50, p95, p99 = (float(x) for x in np.percentile(latencies, [50, 95, 99])) if latencies else (None,) * 3
    total = math.fsum(latencies)
    costs = [cost for r in records if (cost := query_cost(r, cost_per_1k_tokens)) is not None]
    return {"latency_p50": p50, "latency_p95": p95, "latency_p99": p99,
            "throughput_qps": len(latencies) / total if total > 0 else None,
            "cost_per_query": math.fsum(costs) / len(costs) if costs else None}


def query_cost(record: RagRecord, cost_per_1k_tokens: float) -> float | None:
    if record.cost is not None:
        return record.cost
    if record.prompt_tokens is None and record.completion_tokens is None:
        return None
    return ((record.prompt_tokens or 0) + (record.completion_tokens or 0)) / 1000 * cost_per_1k_tokens


def overall(metrics: Mapping[str, float | None], weights: Mapping[str, float],
            largest_k: int) -> tuple[float | None, list[str]]:
    """(weighted mean of the measured components, the components left out)."""
    used, missing = [], []
    for name, weight in weights.items():
        value = metrics.get(f"recall_at_k.{largest_k}" if name == "recall_at_k" else name)
        if weight <= 0:
            continue
        if value is None:
            missing.append(name)
        else:
            used.append((weight, value))
    total = math.fsum(w for w, _ in used)
    return (math.fsum(w * v for w, v in used) / total if total > 0 else None), missing


def grade(score: float | None) -> str | None:
    if score is None:
        return None
    return next((letter for floor, letter in GRADES if score >= floor - 1e-12), "F")


def issues(metrics: Mapping[str, float | None], targets: Targets, largest_k: int) -> list[str]:
    found = []
    for name, label in (("latency_p50", "P50 latency"), ("latency_p95", "P95 latency"), ("latency_p99", "P99 latency")):
        value = metrics.get(name)
        if value is not None and value > getattr(targets, name):
            found.append(f"{label} {value:.2f}s exceeds the {getattr(targets, name):g}s target")
    if (qps := metrics.get("throughput_qps")) is not None and qps < targets.throughput_qps:
        found.append(f"Throughput {qps:.2f} queries/s is below the {targets.throughput_qps:g}/s target")
    if (cost := metrics.get("cost_per_query")) is not None and cost > targets.cost_per_query:
        found.append(f"Cost per query ${cost:.4f} exceeds the ${targets.cost_per_query:g} target")
    rules = ((f"recall_at_k.{largest_k}", 0.7, f"Retrieval misses relevant passages (recall@{largest_k} {{:.2f}})"),
             ("mrr", 0.6, "Relevant passages are ranked low (MRR {:.2f})"),
             ("context_similarity", 0.7,
              "Answers are often not grounded in the retrieved context (context similarity {:.2f})"),
             ("answer_relevancy", 0.6, "Answers drift from the question (answer relevancy {:.2f})"))
    for name, floor, message in rules:
        value = metrics.get(name)
        if value is not None and value < floor:
            found.append(message.format(value))
    return found


def insights(metrics: Mapping[str, float | None], letter: str | None, targets: Targets) -> list[str]:
    found = []
    if letter:
        found.append(f"Overall system performance is {DESCRIPTIONS[letter]}")
    if (p1 := metrics.get("precision_at_k.1")) is not None and p1 >= 0.8:
        found.append("Top-1 retrieval is highly accurate")
    if (faith := metrics.get("context_similarity")) is not None and faith >= 0.9:
        found.append("Answers are well grounded in the retrieved context")
    if (relevancy := metrics.get("answer_relevancy")) is not None and relevancy < 0.8:
        found.append("Consider improving query understanding for better relevancy")
    p95 = metrics.get("latency_p95")
    if p95 is not None and p95 <= targets.latency_p95:
        found.append("Latency is within the P95 target")
    return found
