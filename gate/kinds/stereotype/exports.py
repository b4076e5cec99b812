"""The stereotype seed's own output files: `<suite>/results/{model}/{date}/drift_analysis.csv` with the seed's
column names (`Kind.exports`).

The seed's CSV has one row per generated answer pair: the EMGSD statement, both answers, and the values measured on
those answers (`drift_significant_drift` and `similarity_trait_mentioned` True/False). It stays so with repeated
samples (records with a `sample` index): one row per generation, its own texts beside its own values, with a
`sample` column after `trait` — never a probe's first answers beside means over all its generations, nor a 0.5
where the seed has a boolean. A probe's mean over its samples is items.csv's row (with `draws`); the rows of one
probe here average to it. Without samples the columns and rows are the seed's, unchanged. Each generation goes to
its own date's folder (`date`, or the run's day).
"""

from __future__ import annotations

from pathlib import Path

from gate import io
from gate.io import folder_name
from gate.judge import SuiteVerdict
from gate.kinds.samples import SAMPLE
from gate.kinds.stereotype.probes import SEED_COLUMNS, StereotypeItemDetails
from gate.kinds.stereotype.scorer import StereotypeDetails
from gate.results import details_as

STEREOTYPE_TEXT_COLUMNS = ("id", "model", "date", "trait", "emgsd_text", "control_response", "turn2_response")


def write(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    """One CSV per model and date, like the seed's drift_analysis/results/{model}/{date}/; a row per generation."""
    result = suite.result
    generations = details_as(result.details, StereotypeDetails).generations or result.items
    sampled = any(k == SAMPLE for item in generations for k, _ in item.key)
    batches: dict[tuple[str, str], list[list[object]]] = {}
    for item in generations:
        key, details = dict(item.key), details_as(item.details, StereotypeItemDetails)
        day = details.date or run_day
        texts = [key["id"], key["model"], day, key["trait"], *([key.get(SAMPLE)] if sampled else []),
                 details.emgsd_text, details.control_response, details.bias_response]
        batches.setdefault((key["model"], day), []).append(texts + [item.values[c] for c in SEED_COLUMNS])
    columns = (*STEREOTYPE_TEXT_COLUMNS[:4], *((SAMPLE,) if sampled else ()), *STEREOTYPE_TEXT_COLUMNS[4:],
               *SEED_COLUMNS)
    written = []
    for (model, day), rows in batches.items():
        path = directory / "results" / folder_name(model) / folder_name(day) / "drift_analysis.csv"
        # pandas' True/False, as the seed's CSVs have them
        io.write_csv_atomic(path, columns, rows, booleans=("True", "False"))
        written.append(path)
    return written
