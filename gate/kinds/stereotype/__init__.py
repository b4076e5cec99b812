"""The stereotype suite kind, registered in pyproject.toml as `stereotype = "gate.kinds.stereotype:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.stereotype import build
from gate.scorers.stereotype import STEREOTYPE

KIND = replace(STEREOTYPE, view=build)

__all__ = ["KIND"]
