"""The stereotype seed's own output files: `<suite>/results/{model}/{date}/drift_analysis.csv` with the seed's
column names (`Kind.exports`)."""

from __future__ import annotations

from pathlib import Path

from gate import io
from gate.io import folder_name
from gate.judge import SuiteVerdict
from gate.kinds.stereotype.probes import SEED_COLUMNS, StereotypeItemDetails
from gate.results import details_as

STEREOTYPE_TEXT_COLUMNS = ("id", "model", "date", "trait", "emgsd_text", "control_response", "turn2_response")


def write(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    """One CSV per model and date, like the seed's drift_analysis/results/{model}/{date}/."""
    batches: dict[tuple[str, str], list[list[object]]] = {}
    for item in suite.result.items:
        key, details = dict(item.key), details_as(item.details, StereotypeItemDetails)
        day = details.date or run_day
        texts = [key["id"], key["model"], day, key["trait"], details.emgsd_text, details.control_response,
                 details.bias_response]
        batches.setdefault((key["model"], day), []).append(texts + [item.values[c] for c in SEED_COLUMNS])
    written = []
    for (model, day), rows in batches.items():
        path = directory / "results" / folder_name(model) / folder_name(day) / "drift_analysis.csv"
        # pandas' True/False, as the seed's CSVs have them
        io.write_csv_atomic(path, [*STEREOTYPE_TEXT_COLUMNS, *SEED_COLUMNS], rows, booleans=("True", "False"))
        written.append(path)
    return written
