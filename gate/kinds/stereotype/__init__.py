"""The stereotype suite kind, registered in pyproject.toml as `stereotype = "gate.kinds.stereotype:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.stereotype import build
from gate.scorers.stereotype import STEREOTYPE

KIND = replace(STEREOTYPE, view=build,
               charts=("drift_score_mean", "significant_drift_rate"), distribution=("drift_drift_score", (0.0, 1.0)),
               calibration_metrics=("drift_score_mean",))

__all__ = ["KIND"]
