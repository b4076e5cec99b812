"""The drift suite kind, registered in pyproject.toml as `drift = "gate.kinds.drift:KIND"`."""

from __future__ import annotations

from dataclasses import replace

from gate.report.kinds.drift import build
from gate.scorers.drift import DRIFT

KIND = replace(DRIFT, view=build,
               charts=("bertscore_f1", "credit_drift_mean"), distribution=("bertscore_f1", (0.0, 1.0)),
               calibration_metrics=("bertscore_f1", "credit_drift_mean"))

__all__ = ["KIND"]
