"""Seed quality-drift-bertscore: BERTScore and credit drift of candidate vs baseline feedback.

Per submission and model: BERTScore P/R/F1 of the candidate's feedback text against the baseline's
(DESIGN.md §4) and the credit drift. Per (exercise, model) and per model: the means of P/R/F1 and the
mean/std/max of credit drift — the values the seed's `model_results[...]` judges
(`avg_bertscore_f1 >= 0.8`, `avg_credit_drift <= 3.0`).

`scorer` is the suite's scorer (`DRIFT`, registered in `gate.scorers`) and types what the report and the
baseline comparison read; `submissions` measures one submission (credit drift, its item row);
`groups` folds them per (exercise, model) and per model and says why a value is missing.
"""

from gate.scorers.drift.scorer import (
    DEFAULT_CHECKS,
    DRIFT,
    METRICS,
    DriftDetails,
    DriftSettings,
    ExerciseFacts,
    score_drift,
)
from gate.scorers.drift.submissions import ITEM_COLUMNS, DriftItemDetails, credit_differences

__all__ = ["DEFAULT_CHECKS", "DRIFT", "ITEM_COLUMNS", "METRICS", "DriftDetails", "DriftItemDetails", "DriftSettings",
           "ExerciseFacts", "credit_differences", "score_drift"]
