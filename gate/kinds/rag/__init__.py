"""The rag suite kind, registered in pyproject.toml as `rag = "gate.kinds.rag:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.rag import build
from gate.scorers.rag import RAG

KIND = replace(RAG, view=build)

__all__ = ["KIND"]
