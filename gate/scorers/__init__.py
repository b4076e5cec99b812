"""Registry: suite kind -> scorer. An unknown kind lists the known ones."""

from __future__ import annotations

from typing import Any

from gate.errors import ConfigError, Problem
from gate.scorers.base import Scorer
from gate.scorers.drift import DRIFT
from gate.scorers.heuristic import HEURISTIC
from gate.scorers.rag import RAG
from gate.scorers.stability import STABILITY
from gate.scorers.stereotype import STEREOTYPE

SCORERS: dict[str, Scorer[Any, Any]] = {
    scorer.kind: scorer for scorer in (DRIFT, STEREOTYPE, STABILITY, HEURISTIC, RAG)}


def get_scorer(kind: str) -> Scorer[Any, Any]:
    try:
        return SCORERS[kind]
    except KeyError:
        raise ConfigError(
            "unknown suite kind",
            [Problem(field="kind", expected=f"one of {', '.join(SCORERS)}", found=repr(kind))],
        ) from None
