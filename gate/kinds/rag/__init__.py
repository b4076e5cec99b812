"""The rag suite kind, registered in pyproject.toml as `rag = "gate.kinds.rag:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.rag import build
from gate.scorers.rag import RAG

KIND = replace(RAG, view=build, charts=("overall_score", "mrr", "faithfulness"), distribution=("rouge_l", (0.0, 1.0)),
               calibration_metrics=("overall_score", "mrr", "faithfulness"))

__all__ = ["KIND"]
