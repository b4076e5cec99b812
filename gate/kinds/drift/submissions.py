"""One submission's measurements: its credit drift, its item row and the feedbacks the report shows.

A candidate is paired with its submission's baseline feedback; BERTScore comes from the runtime (in
`scorer`), the credit drift is computed here (the seed's total or positional variant). `Scored` is what
`groups` folds and `to_item` turns into the row of items.csv.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.kinds.drift.config import CreditDriftMode
from gate.kinds.drift.records import DriftCandidate, FeedbackItem, Submission, total_credits
from gate.kinds.drift.statistics import DRIFT_POOLED, drift_item_values
from gate.kinds.samples.field import sample_columns, sample_key
from gate.results import Item, ItemDetails, Key
from gate.stats import mean

ITEM_COLUMNS = (  # with samples, "sample" follows "model"; in item mode the pooled columns end it (`columns_of`)
    "exercise", "submission", "model",
    "bertscore_precision", "bertscore_recall", "bertscore_f1", "credit_drift",
    "baseline_credits", "candidate_credits", "baseline_items", "candidate_items", "windowed",
)


@dataclass(frozen=True)
class DriftItemDetails(ItemDetails):
    """Both feedbacks of a submission, shown side by side for the worst ones."""

    baseline: tuple[FeedbackItem, ...]
    candidate: tuple[FeedbackItem, ...]


@dataclass(frozen=True)
class Scored:
    """A candidate's measurements against its submission's baseline; None where not measurable."""

    candidate: DriftCandidate
    baseline: tuple[FeedbackItem, ...]
    precision: float | None
    recall: float | None
    f1: float | None
    drifts: tuple[float, ...] | None  # one value (total mode) or the positional differences (item mode)
    windowed: bool


def credit_differences(baseline: Sequence[FeedbackItem], candidate: Sequence[FeedbackItem],
                       mode: CreditDriftMode) -> tuple[float, ...] | None:
    """Credit drift of one submission; None where the item-wise variant has nothing to compare."""
    if mode is CreditDriftMode.TOTAL:
        return (abs(total_credits(candidate) - total_credits(baseline)),)
    # The seed's positional variant: pair items by position, trimmed to the shorter list.
    pairs = list(zip((b.credits for b in baseline), (c.credits for c in candidate), strict=False))
    return tuple(abs(b - c) for b, c in pairs) or None


def _item_drift(scored: Scored) -> float | None:
    return mean(scored.drifts) if scored.drifts else None


def baseline_of(submission: Submission) -> tuple[FeedbackItem, ...]:
    """The submission's baseline feedback items (the loader refuses a candidate whose submission has none)."""
    if submission.baseline_feedback is None:
        raise ValueError(f"submission {submission.id} has no baseline_feedback")
    return tuple(submission.baseline_feedback.feedback)


def columns_of(candidates: Sequence[DriftCandidate], mode: CreditDriftMode) -> tuple[str, ...]:
    """items.csv's columns. In item mode they end with each item's share of its group's pooled credit drift
    (`statistics.DRIFT_POOLED`), so the group's mean, std and max can be recomputed from the rows."""
    extra = sample_columns(c.sample for c in candidates)
    pooled = DRIFT_POOLED[1:] if mode is CreditDriftMode.ITEM else ()
    return (*ITEM_COLUMNS[:3], *extra, *ITEM_COLUMNS[3:], *pooled)


def item_key(candidate: DriftCandidate) -> Key:
    return (("exercise", candidate.exercise_id), ("submission", candidate.submission_id),
            ("model", candidate.model), *sample_key(candidate.sample))


def to_item(s: Scored, mode: CreditDriftMode) -> Item:
    c = s.candidate
    pooled = drift_item_values(s.drifts) if mode is CreditDriftMode.ITEM else {}
    return Item(
        key=item_key(c),
        values={"bertscore_precision": s.precision, "bertscore_recall": s.recall, "bertscore_f1": s.f1,
                "credit_drift": _item_drift(s), "baseline_credits": total_credits(s.baseline),
                "candidate_credits": total_credits(c.feedback), "baseline_items": len(s.baseline),
                "candidate_items": len(c.feedback), "windowed": s.windowed, **pooled},
        source=c.source_ref,
        details=DriftItemDetails(baseline=tuple(s.baseline), candidate=tuple(c.feedback)),
    )
