"""Seed quality-drift-bertscore: BERTScore and credit drift of candidate vs baseline feedback.

Per submission and model: BERTScore P/R/F1 of the candidate's feedback text against the baseline's
(DESIGN.md §4) and the credit drift. Per (exercise, model) and per model: the means of P/R/F1 and the
mean/std/max of credit drift — the values the seed's `model_results[...]` judges
(`avg_bertscore_f1 >= 0.8`, `avg_credit_drift <= 3.0`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.config import CheckConfig, CreditDriftMode, DriftSuiteConfig
from gate.io import paths
from gate.records.drift import (
    DriftCandidate,
    DriftData,
    Exercise,
    FeedbackItem,
    Submission,
    feedback_text,
    load_drift,
    total_credits,
)
from gate.records.samples import sample_columns, sample_key
from gate.results import (
    Direction,
    GroupResult,
    Item,
    ItemDetails,
    Key,
    MetricSpec,
    SuiteDetails,
    SuiteResult,
    SuiteSettings,
    Unmeasured,
)
from gate.runtime.api import BertScoreSpec
from gate.scorers.base import Scorer, ScoringContext
from gate.scorers.item_statistics import drift_columns, drift_item_values, drift_statistic
from gate.similarity import snap
from gate.stats import maximum, mean, std

METRICS = {
    spec.name: spec
    for spec in (
        MetricSpec("bertscore_precision", Direction.HIGHER_IS_BETTER, "BERTScore precision, mean over submissions"),
        MetricSpec("bertscore_recall", Direction.HIGHER_IS_BETTER, "BERTScore recall, mean over submissions"),
        MetricSpec("bertscore_f1", Direction.HIGHER_IS_BETTER, "BERTScore F1, mean over submissions"),
        MetricSpec("credit_drift_mean", Direction.LOWER_IS_BETTER, "Mean credit drift", ".2f"),
        MetricSpec("credit_drift_std", Direction.LOWER_IS_BETTER, "Std of credit drift (population)", ".2f"),
        MetricSpec("credit_drift_max", Direction.LOWER_IS_BETTER, "Largest credit drift", ".2f"),
        MetricSpec("coverage", Direction.HIGHER_IS_BETTER, "Share of baseline submissions with a candidate", ".0%"),
    )
}

# The seed's thresholds: MIN_BERTSCORE_F1 = 0.8, MAX_MEAN_CREDIT_DRIFT = 3.0, judged per (exercise, model).
DEFAULT_CHECKS = {
    "bertscore_f1": CheckConfig(min=0.8),
    "credit_drift_mean": CheckConfig(max=3.0),
}

ITEM_COLUMNS = (  # with samples, "sample" follows "model" (`_columns`)
    "exercise", "submission", "model",
    "bertscore_precision", "bertscore_recall", "bertscore_f1", "credit_drift",
    "baseline_credits", "candidate_credits", "baseline_items", "candidate_items", "windowed",
)


@dataclass(frozen=True)
class DriftSettings(SuiteSettings):
    bertscore_model: str
    layer: int
    idf: bool
    rescale_with_baseline: bool
    max_tokens: int
    credit_drift_mode: str
    models: tuple[str, ...]
    exercises: int
    windowed_submissions: int


@dataclass(frozen=True)
class ExerciseFacts:
    """What the seed's per-exercise report says about the baseline: its model and when it was made."""

    file: str
    title: str | None
    baseline_model: str | None
    generated_at: str | None
    oldest_baseline_at: str | None  # the age `baselines.max_age_days` judges
    submissions: int


@dataclass(frozen=True)
class DriftDetails(SuiteDetails):
    settings: DriftSettings
    exercises: Mapping[str, ExerciseFacts]  # by exercise id, in input order


@dataclass(frozen=True)
class DriftItemDetails(ItemDetails):
    """Both feedbacks of a submission, shown side by side for the worst ones."""

    baseline: tuple[FeedbackItem, ...]
    candidate: tuple[FeedbackItem, ...]


@dataclass(frozen=True)
class _Scored:
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


def _item_drift(scored: _Scored) -> float | None:
    return mean(scored.drifts) if scored.drifts else None


def _baseline(submission: Submission) -> tuple[FeedbackItem, ...]:
    """The submission's baseline feedback items (the loader refuses a candidate whose submission has none)."""
    if submission.baseline_feedback is None:
        raise ValueError(f"submission {submission.id} has no baseline_feedback")
    return tuple(submission.baseline_feedback.feedback)


def score_drift(name: str, suite: DriftSuiteConfig, data: DriftData, context: ScoringContext) -> SuiteResult:
    baselines = {(e.id, s.id): s for e in data.exercises for s in e.submissions}
    candidates = list(data.candidates)
    pairs = [(feedback_text(c.feedback), feedback_text(_baseline(baselines[c.exercise_id, c.submission_id])))
             for c in candidates]
    config = context.gate.bertscore_for(suite)
    spec = BertScoreSpec(
        model=config.model, layer=config.layer, idf=config.idf,
        rescale_with_baseline=config.rescale_with_baseline,
        baseline_path=str(paths.confine(context.base_dir / config.baseline_path, context.base_dir,
                                        "bertscore.baseline_path", config.baseline_path).resolve())
        if config.baseline_path else None,
    )
    # idf, when asked for, comes from the baseline texts, each submission once (bert-score takes `refs`).
    idf_corpus = [feedback_text(s.baseline_feedback.feedback) for s in baselines.values()
                  if s.baseline_feedback is not None] if config.idf else []
    scores = context.runtime.bertscore(spec, [p[0] for p in pairs], [p[1] for p in pairs], idf_corpus)
    # P, R and F1 are cosine-based: ≤ 1 (rescaling keeps that), ≥ -1 unless rescaled. float32 noise past those
    # bounds (an F1 of 1.0000000180620137 for identical texts) is put back on them; real excursions stay.
    low = None if config.rescale_with_baseline else -1.0
    precision, recall, f1 = ([snap(x, low, 1.0) for x in values]
                             for values in (scores.precision, scores.recall, scores.f1))
    scored = []
    unmeasured: list[Unmeasured] = []
    for i, candidate in enumerate(candidates):
        baseline = _baseline(baselines[candidate.exercise_id, candidate.submission_id])
        both_empty = not pairs[i][0].strip() and not pairs[i][1].strip()
        drifts = credit_differences(baseline, candidate.feedback, suite.credit_drift_mode)
        key = _item_key(candidate)
        if both_empty:
            unmeasured += [Unmeasured(key, m, "baseline and candidate feedback are both empty")
                           for m in ("bertscore_precision", "bertscore_recall", "bertscore_f1")]
        if drifts is None:
            unmeasured.append(Unmeasured(key, "credit_drift", "item mode: baseline or candidate has no items"))
        scored.append(_Scored(candidate, baseline,
                              None if both_empty else precision[i], None if both_empty else recall[i],
                              None if both_empty else f1[i], drifts, scores.windowed[i]))
    groups, group_unmeasured, notes = _groups(data, scored)
    windowed = sum(s.windowed for s in scored)
    if windowed:
        notes.append(f"{windowed} submission(s) had feedback longer than the model's {scores.max_tokens}-token "
                     "limit and were scored in overlapping windows (not truncated).")
    notes += list(scores.notes)
    return SuiteResult(
        name=name, kind="drift",
        metrics=_aggregate(scored, None),
        groups=groups,
        items=tuple(_item(s, suite.credit_drift_mode) for s in scored),
        item_columns=_columns(candidates),
        unmeasured=tuple(unmeasured + group_unmeasured),
        fingerprint={**scores.fingerprint.to_dict(), "credit_drift_mode": suite.credit_drift_mode.value},
        notes=tuple(notes),
        details=DriftDetails(
            DriftSettings(bertscore_model=config.model, layer=scores.layer, idf=config.idf,
                          rescale_with_baseline=config.rescale_with_baseline, max_tokens=scores.max_tokens,
                          credit_drift_mode=suite.credit_drift_mode.value, models=tuple(data.models),
                          exercises=len(data.exercises), windowed_submissions=windowed),
            exercises={e.id: _exercise_facts(e) for e in data.exercises}),
    )


def _exercise_facts(exercise: Exercise) -> ExerciseFacts:
    feedback = [s.baseline_feedback for s in exercise.submissions if s.baseline_feedback is not None]
    versions = [f.model_version for f in feedback if f.model_version]
    stamps = sorted(f.timestamp for f in feedback if f.timestamp)
    return ExerciseFacts(file=exercise.path.name, title=exercise.title,
                         baseline_model=max(set(versions), key=versions.count) if versions else None,
                         generated_at=stamps[-1] if stamps else None,
                         oldest_baseline_at=stamps[0] if stamps else None, submissions=len(exercise.submissions))


def _aggregate(scored: Sequence[_Scored], coverage: float | None) -> dict[str, float | None]:
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


def _groups(data: DriftData, scored: Sequence[_Scored]) -> tuple[tuple[GroupResult, ...], list[Unmeasured],
                                                                   list[str]]:
    groups: list[GroupResult] = []
    unmeasured: list[Unmeasured] = []
    notes: list[str] = []
    by_pair: dict[tuple[str, str], list[_Scored]] = {}
    for s in scored:
        by_pair.setdefault((s.candidate.exercise_id, s.candidate.model), []).append(s)
    expected_total = {m: 0 for m in data.models}
    for model in data.models:
        for exercise in data.exercises:
            with_baseline = [s for s in exercise.submissions if s.baseline_feedback is not None]
            items = by_pair.get((exercise.id, model), [])
            expected_total[model] += len(with_baseline)
            key: Key = (("exercise", exercise.id), ("model", model))
            metrics = _aggregate(items, _answered(items) / len(with_baseline) if with_baseline else None)
            gaps, gap_notes = _explain_gaps(key, metrics, exercise, items, with_baseline)
            unmeasured += gaps
            notes += gap_notes
            groups.append(GroupResult("group", key, metrics, len(items),
                                      tuple(s.candidate.source_ref for s in items if s.candidate.source_ref)))
    for model in data.models:
        items = [s for s in scored if s.candidate.model == model]
        coverage = _answered(items) / expected_total[model] if expected_total[model] else None
        groups.append(GroupResult("model", (("model", model),), _aggregate(items, coverage), len(items),
                                  tuple(s.candidate.source_ref for s in items if s.candidate.source_ref)))
    return tuple(groups), unmeasured, notes


def _explain_gaps(key: Key, metrics: dict, exercise, items: Sequence[_Scored],
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


def _answered(scored: Sequence[_Scored]) -> int:
    """Submissions with a candidate: several samples of one submission answer it once (coverage ≤ 1)."""
    return len({(s.candidate.exercise_id, s.candidate.submission_id) for s in scored})


def _columns(candidates: Sequence[DriftCandidate]) -> tuple[str, ...]:
    extra = sample_columns(c.sample for c in candidates)
    return (*ITEM_COLUMNS[:3], *extra, *ITEM_COLUMNS[3:])


def _item_key(candidate: DriftCandidate) -> Key:
    return (("exercise", candidate.exercise_id), ("submission", candidate.submission_id),
            ("model", candidate.model), *sample_key(candidate.sample))


def _item(s: _Scored, mode: CreditDriftMode) -> Item:
    c = s.candidate
    pooled = drift_item_values(s.drifts) if mode is CreditDriftMode.ITEM else {}  # not in items.csv
    return Item(
        key=_item_key(c),
        values={"bertscore_precision": s.precision, "bertscore_recall": s.recall, "bertscore_f1": s.f1,
                "credit_drift": _item_drift(s), "baseline_credits": total_credits(s.baseline),
                "candidate_credits": total_credits(c.feedback), "baseline_items": len(s.baseline),
                "candidate_items": len(c.feedback), "windowed": s.windowed, **pooled},
        source=c.source_ref,
        details=DriftItemDetails(baseline=tuple(s.baseline), candidate=tuple(c.feedback)),
    )


DRIFT = Scorer(
    kind="drift",
    config_model=DriftSuiteConfig,
    metrics=METRICS,
    group_fields=("exercise", "model"),
    levels=("model",),
    default_checks=DEFAULT_CHECKS,
    load=load_drift,
    score=score_drift,
    model_roles=("bertscore",),
    item_columns_of=drift_columns,
    item_statistic=drift_statistic,
)
