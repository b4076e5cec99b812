"""The heuristic suite kind, registered in pyproject.toml as `heuristic = "gate.kinds.heuristic:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.heuristic import build
from gate.scorers.heuristic import HEURISTIC

KIND = replace(HEURISTIC, view=build)

__all__ = ["KIND"]
