"""The drift seed's own report file, written next to the gate's: `<suite>/quality_drift_report.json` (the seed's
structure, with `passed` per exercise × model)."""

from __future__ import annotations

from pathlib import Path

from gate import io
from gate.judge import SuiteVerdict
from gate.kinds.drift.view import quality_drift_report


def write(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    path = directory / "quality_drift_report.json"
    io.write_json_atomic(path, quality_drift_report(suite))
    return [path]
