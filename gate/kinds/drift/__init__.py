"""Seed quality-drift-bertscore: BERTScore and credit drift of candidate vs baseline feedback.

Per submission and model: BERTScore P/R/F1 of the candidate's feedback text against the baseline's
(DESIGN.md §4) and the credit drift. Per (exercise, model) and per model: the means of P/R/F1 and the
mean/std/max of credit drift — the values the seed's `model_results[...]` judges
(`avg_bertscore_f1 >= 0.8`, `avg_credit_drift <= 3.0`).

`config` is its gate.yml entry and `records` reads its exercise files and candidates; `scorer` is the suite's
scorer (`DRIFT`) and types what the report and the baseline comparison read; `submissions` measures one submission
(credit drift, its item row); `groups` folds them per (exercise, model) and per model and says why a value is
missing; `statistics` gives its pooled credit drift to significance tests; `view` and `exports` are its report
and its seed's report file; `feedback` is `baseline bless --model` (the seed's "regenerate baseline") and the
blessed feedback's age; `starter` is what `llm-gate init` writes for it (templates in `templates/`, with its
report's). `KIND` assembles them, registered in pyproject.toml as `drift = "gate.kinds.drift:KIND"`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gate.kinds.drift import exports, view
from gate.kinds.drift.feedback import bless_outputs, oldest_blessed
from gate.kinds.drift.recipe import GENERATION
from gate.kinds.drift.scorer import (
    DEFAULT_CHECKS,
    DRIFT,
    METRICS,
    DriftDetails,
    DriftSettings,
    ExerciseFacts,
    score_drift,
)
from gate.kinds.drift.starter import STARTER
from gate.kinds.drift.submissions import ITEM_COLUMNS, DriftItemDetails, credit_differences

KIND = replace(DRIFT, generation=GENERATION, templates=Path(__file__).parent / "templates", starter=STARTER,
               view=view.build, exports=exports.write, outputs_blessed_at=oldest_blessed,
               summary_line=view.seed_caption, bless_outputs=bless_outputs,
               charts=("bertscore_f1", "credit_drift_mean"), distribution=("bertscore_f1", (0.0, 1.0)),
               calibration_metrics=("bertscore_f1", "credit_drift_mean"))

__all__ = ["DEFAULT_CHECKS", "DRIFT", "ITEM_COLUMNS", "KIND", "METRICS", "DriftDetails", "DriftItemDetails",
           "DriftSettings", "ExerciseFacts", "credit_differences", "score_drift"]
