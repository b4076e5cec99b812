"""Scored submissions folded per (exercise, model) and per model, with why a value is missing.

The means of P/R/F1 and the mean/std/max of credit drift are the values the seed's `model_results[...]`
judges; coverage counts the baseline submissions a model answered (several samples answer one once).
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.kinds.drift.records import DriftData
from gate.kinds.drift.submissions import Scored
from gate.results import GroupResult, Key, Unmeasured
from gate.stats import maximum, mean, std


def aggregate(scored: Sequence[Scored], coverage: float | None) -> dict[str, float | None]:
    drifts = [d for s in scored for d in (s.drifts or ())]
    return {
        "bertscore_precision": mean(s.precision for s in scored),
        "bertscore_recall": mean(s.recall for s in scored),
        "bertscore_f1": mean(s.f1 for s in scored),
        "credit_drift_mean": mean(drifts),
        "credit_drift_std": std(drifts),
        "credit_drift_max": maximum(drifts),
        "coverage": coverage,
    }


def group_results(data: DriftData, scored: Sequence[Scored]) -> tuple[tuple[GroupResult, ...], list[Unmeasured],
                                                                       list[str]]:
    groups: list[GroupResult] = []
    unmeasured: list[Unmeasured] = []
    notes: list[str] = []
    by_pair: dict[tuple[str, str], list[Scored]] = {}
    for s in scored:
        by_pair.setdefault((s.candidate.exercise_id, s.candidate.model), []).append(s)
    expected_total = {m: 0 for m in data.models}
    for model in data.models:
        for exercise in data.exercises:
            with_baseline = [s for s in exercise.submissions if s.baseline_feedback is not None]
            items = by_pair.get((exercise.id, model), [])
            expected_total[model] += len(with_baseline)
            key: Key = (("exercise", exercise.id), ("model", model))
            metrics = aggregate(items, _answered(items) / len(with_baseline) if with_baseline else None)
            gaps, gap_notes = _explain_gaps(key, metrics, exercise, items, with_baseline)
            unmeasured += gaps
            notes += gap_notes
            groups.append(GroupResult("group", key, metrics, len(items),
                                      tuple(s.candidate.source_ref for s in items if s.candidate.source_ref)))
    for model in data.models:
        items = [s for s in scored if s.candidate.model == model]
        coverage = _answered(items) / expected_total[model] if expected_total[model] else None
        groups.append(GroupResult("model", (("model", model),), aggregate(items, coverage), len(items),
                                  tuple(s.candidate.source_ref for s in items if s.candidate.source_ref)))
    return tuple(groups), unmeasured, notes


def _explain_gaps(key: Key, metrics: dict, exercise, items: Sequence[Scored],
                  with_baseline: Sequence) -> tuple[list[Unmeasured], list[str]]:
    """Why a group's values are missing (unmeasured entries) or partial (notes)."""
    have = {s.candidate.submission_id for s in items}
    missing = [s.id for s in with_baseline if s.id not in have]
    notes = []
    if missing:
        shown = ", ".join(missing[:8]) + (" …" if len(missing) > 8 else "")
        notes.append(f"{dict(key)['model']}: {len(missing)} of {len(with_baseline)} submissions of exercise "
                     f"{exercise.id} have no candidate ({shown}); its values cover the rest")
    if not with_baseline:
        reason = f"exercise {exercise.id} has no submission with baseline feedback"
    elif not items:
        reason = "no candidate feedback for this exercise"
    else:
        reason = "no measurable submissions"
    return [Unmeasured(key, metric, reason) for metric, value in metrics.items() if value is None], notes


def _answered(scored: Sequence[Scored]) -> int:
    """Submissions with a candidate: several samples of one submission answer it once (coverage ≤ 1)."""
    return len({(s.candidate.exercise_id, s.candidate.submission_id) for s in scored})
