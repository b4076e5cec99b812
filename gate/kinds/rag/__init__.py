"""The rag suite kind (seed rag-evaluation): retrieval, generation, performance, the LLM grader, baseline vs
candidate.

`config` is its gate.yml entry and `records` reads its samples; `scorer` is the suite's scorer (`RAG`); it measures
per query with `retrieval` (trec_eval's conventions), `generation` (BLEU, ROUGE-L, embedding metrics) and `claims` /
`claim_scores` (claim-level faithfulness, a local NLI model's verdicts), folds the queries per system with `summary`
(performance, overall score, grade, issues, insights) and compares a candidate run with a baseline run in `compare`;
`checks` says which checks its config can measure and `statistics` gives its metrics to significance tests. `grader`
is the LLM grader's contract (items, scores, prompt, reply parsing) — gate.yml calls it `judge:`; its HTTP client,
`grader_client`, is the kind's `grade`, which the command calls with the key it allows (`gate.run.llm_grader`): the
scorer never imports it. `view` and `exports` are its report and its seed's report files, `starter` what `llm-gate
init` writes for it (templates in `templates/`). A new per-query metric goes in `retrieval` or `generation` and into
`scorer.METRICS` / `per_query_metrics`. `KIND` assembles them, registered in pyproject.toml as `rag =
"gate.kinds.rag:KIND"`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from gate.config import GraderConfig
from gate.kinds.rag import exports, view
from gate.kinds.rag.compare import Row
from gate.kinds.rag.grader import GraderItem, GraderRun, GraderScore
from gate.kinds.rag.recipe import GENERATION
from gate.kinds.rag.scorer import (
    DEFAULT_CHECKS,
    METRICS,
    PATTERN,
    RAG,
    RagDetails,
    RagItemDetails,
    RagSettings,
    per_query_metrics,
    score_rag,
)
from gate.kinds.rag.starter import STARTER
from gate.kinds.rag.summary import SystemSummary
from gate.results import SuiteResult, details_as


def _comparisons(result: SuiteResult) -> Mapping[str, Sequence[Row]]:
    """The baseline-vs-candidate rows by title ({} without a baseline)."""
    return dict(details_as(result.details, RagDetails).comparisons)


def _grade(config: GraderConfig, api_key: str, items: Sequence[Any], cache_dir: Path | None) -> GraderRun:
    from gate.kinds.rag.grader_client import run_grader  # network I/O (requests), imported only when grading

    return run_grader(config, api_key, items, cache_dir=cache_dir)


KIND = replace(RAG, generation=GENERATION, templates=Path(__file__).parent / "templates", starter=STARTER,
               view=view.build, exports=exports.write, grade=_grade, comparisons=_comparisons,
               comparison_charts=("mrr", "ndcg", "context_precision", "rouge_l", "context_similarity",
                                  "claim_faithfulness", "answer_relevancy", "overall_score"),
               charts=("overall_score", "mrr", "claim_faithfulness", "context_similarity"),
               distribution=("rouge_l", (0.0, 1.0)),
               calibration_metrics=("overall_score", "mrr", "context_similarity"))

__all__ = ["DEFAULT_CHECKS", "KIND", "METRICS", "PATTERN", "RAG", "GraderItem", "GraderRun", "GraderScore",
           "RagDetails", "RagItemDetails", "RagSettings", "Row", "SystemSummary", "per_query_metrics", "score_rag"]
