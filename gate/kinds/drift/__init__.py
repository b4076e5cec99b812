"""The drift suite kind, registered in pyproject.toml as `drift = "gate.kinds.drift:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.drift import build
from gate.scorers.drift import DRIFT

KIND = replace(DRIFT, view=build)

__all__ = ["KIND"]
