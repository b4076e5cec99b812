"""The seeds' own output files, written next to the gate's report for users of the original tools.

- drift: `<suite>/quality_drift_report.json` (the seed's structure, with `passed` per exercise × model);
- stereotype: `<suite>/results/{model}/{date}/drift_analysis.csv` with the seed's column names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from gate import io
from gate.judge import SuiteVerdict
from gate.report import drift_export
from gate.scorers.stereotype import SEED_COLUMNS

STEREOTYPE_TEXT_COLUMNS = ("id", "model", "date", "trait", "emgsd_text", "control_response", "turn2_response")


def write_seed_exports(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    writer = _WRITERS.get(suite.result.kind)
    return writer(suite, directory, run_day) if writer else []


def _drift(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    path = directory / "quality_drift_report.json"
    io.write_json_atomic(path, drift_export.quality_drift_report(suite))
    return [path]


def _stereotype(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    """One CSV per model and date, like the seed's drift_analysis/results/{model}/{date}/."""
    batches: dict[tuple[str, str], list[list[object]]] = {}
    for item in suite.result.items:
        key = dict(item.key)
        day = item.details.get("date") or run_day
        texts = [key["id"], key["model"], day, key["trait"], item.details["emgsd_text"],
                 item.details["control_response"], item.details["bias_response"]]
        batches.setdefault((key["model"], day), []).append(texts + [item.values[c] for c in SEED_COLUMNS])
    written = []
    for (model, day), rows in batches.items():
        path = directory / "results" / _folder(model) / _folder(day) / "drift_analysis.csv"
        # pandas' True/False, as the seed's CSVs have them
        io.write_csv_atomic(path, [*STEREOTYPE_TEXT_COLUMNS, *SEED_COLUMNS], rows, booleans=("True", "False"))
        written.append(path)
    return written


def _folder(name: str) -> str:
    """A model name or date as one safe path component ("org/model" -> "org_model")."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "_"
    return safe[:100]


_WRITERS: dict[str, Callable[[SuiteVerdict, Path, str], list[Path]]] = {"drift": _drift, "stereotype": _stereotype}
