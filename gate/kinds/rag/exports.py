"""The seed's own report files (rag-evaluation): `<suite>/evaluation.<system>.json` (the seed's evaluation report)
per system, and `<suite>/comparison.json` when there is a baseline (`Kind.exports`)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from gate import io
from gate.io import folder_name
from gate.judge import SuiteVerdict
from gate.kinds.rag.scorer import RagDetails
from gate.results import details_as

# The seed's evaluation report names the answer-to-context similarity `faithfulness`; the gate calls it
# `context_similarity` (it measures similarity, not support). The exports reproduce the seed's files, so they keep
# the seed's name: seed name -> the gate's metric.
SEED_NAMES = {"faithfulness": "context_similarity"}


def write(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    result = suite.result
    details = details_as(result.details, RagDetails)
    settings = details.settings
    written = []
    levels = [("candidate", g) for g in result.groups_at("group")] + [("baseline", g) for g in
                                                                       result.groups_at("baseline")]
    for index, (which, group) in enumerate(levels, start=1):
        system = dict(group.key)["system"]
        summary = details.systems[(which, system)]
        m = group.metrics
        report = {
            "evaluation_id": f"eval_{run_day.replace('-', '')}_{index:04d}",
            "dataset_name": settings.dataset, "system": system, "role": which, "num_samples": group.n,
            "overall_score": m.get("overall_score"), "grade": summary.grade,
            "metrics": {
                **{name: {str(k): m.get(f"{name}.{k}") for k in settings.k}
                   for name in ("precision_at_k", "recall_at_k", "ndcg_at_k")},
                **{name: m.get(SEED_NAMES.get(name, name)) for name in (
                    "mrr", "ndcg", "context_precision", "bleu", "rouge_l", "faithfulness", "answer_relevancy",
                    "latency_p50", "latency_p95", "latency_p99", "throughput_qps", "cost_per_query")},
                **{name: value for name, value in m.items() if name.startswith("judge_")},
            },
            "issues": summary.issues, "insights": summary.insights,
        }
        path = directory / f"evaluation.{folder_name(system)}.json"
        io.write_json_atomic(path, report)
        written.append(path)
    if details.comparisons:
        path = directory / "comparison.json"
        io.write_json_atomic(path, {"significance": settings.significance, "comparisons": {
            title: {"rows": [asdict(r) for r in rows],
                    "significant_improvements": [r.metric for r in rows if r.outcome == "improvement"],
                    "regressions": [r.metric for r in rows if r.outcome == "regression"]}
            for title, rows in details.comparisons.items()}})
        written.append(path)
    return written
