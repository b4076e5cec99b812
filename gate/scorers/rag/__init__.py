"""The RAG suite (seed rag-evaluation): retrieval, generation, performance, the LLM grader, baseline vs candidate.

`scorer` is the suite's scorer (`RAG`, registered in `gate.scorers`); it measures per query with
`retrieval` (trec_eval's conventions) and `generation` (BLEU, ROUGE-L, embedding metrics), folds the
queries per system with `summary` (performance, overall score, grade, issues, insights) and compares a
candidate run with a baseline run in `compare`. `grader` is the LLM grader's contract (items, scores,
prompt, reply parsing) — gate.yml calls it `judge:`; its HTTP client, `grader_client`, is handed in by the
command and not imported here (it is the only network I/O under gate/scorers). A new per-query metric goes
in `retrieval` or `generation` and into `scorer.METRICS` / `per_query_metrics`. What the report view and the
seed exports read (`RagDetails`: settings, per-system `SystemSummary`, comparison `Row`s) is typed in `scorer`.
"""

from gate.scorers.rag.compare import Row
from gate.scorers.rag.grader import GraderItem, GraderRun, GraderScore
from gate.scorers.rag.scorer import (
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
from gate.scorers.rag.summary import SystemSummary

__all__ = ["DEFAULT_CHECKS", "METRICS", "PATTERN", "RAG", "GraderItem", "GraderRun", "GraderScore", "RagDetails",
           "RagItemDetails", "RagSettings", "Row", "SystemSummary", "per_query_metrics", "score_rag"]
