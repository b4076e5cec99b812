"""The stability suite kind, registered in pyproject.toml as `stability = "gate.kinds.stability:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.stability import build
from gate.scorers.stability import STABILITY

KIND = replace(STABILITY, view=build, charts=("stability_coefficient",), distribution=("stability_coefficient", None),
               calibration_metrics=("stability_coefficient",))

__all__ = ["KIND"]
