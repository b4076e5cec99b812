"""The drift suite's scorer: BERTScore of every candidate against its baseline, credit drift, the groups.

Its metrics and the seed's thresholds (`METRICS`, `DEFAULT_CHECKS`) and what the report view and the
baseline comparison read (`DriftSettings`, `ExerciseFacts`, `DriftDetails`) are typed here; one
submission's values are in `submissions`, their folding per (exercise, model) and per model in `groups`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gate.config import CheckConfig
from gate.io import paths
from gate.kinds.base import Kind, ScoringContext
from gate.kinds.drift.config import DriftSuiteConfig, drift_models
from gate.kinds.drift.groups import aggregate, group_results
from gate.kinds.drift.records import DriftData, Exercise, feedback_text, load_drift
from gate.kinds.drift.statistics import drift_columns, drift_statistic
from gate.kinds.drift.submissions import Scored, baseline_of, columns_of, credit_differences, item_key, to_item
from gate.results import Direction, MetricSpec, SuiteDetails, SuiteResult, SuiteSettings, Unmeasured
from gate.runtime.api import BertScoreSpec
from gate.stats.similarity import snap

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


def score_drift(name: str, suite: DriftSuiteConfig, data: DriftData, context: ScoringContext) -> SuiteResult:
    baselines = {(e.id, s.id): s for e in data.exercises for s in e.submissions}
    candidates = list(data.candidates)
    pairs = [(feedback_text(c.feedback), feedback_text(baseline_of(baselines[c.exercise_id, c.submission_id])))
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
        baseline = baseline_of(baselines[candidate.exercise_id, candidate.submission_id])
        both_empty = not pairs[i][0].strip() and not pairs[i][1].strip()
        drifts = credit_differences(baseline, candidate.feedback, suite.credit_drift_mode)
        key = item_key(candidate)
        if both_empty:
            unmeasured += [Unmeasured(key, m, "baseline and candidate feedback are both empty")
                           for m in ("bertscore_precision", "bertscore_recall", "bertscore_f1")]
        if drifts is None:
            unmeasured.append(Unmeasured(key, "credit_drift", "item mode: baseline or candidate has no items"))
        scored.append(Scored(candidate, baseline,
                             None if both_empty else precision[i], None if both_empty else recall[i],
                             None if both_empty else f1[i], drifts, scores.windowed[i]))
    groups, group_unmeasured, notes = group_results(data, scored)
    windowed = sum(s.windowed for s in scored)
    if windowed:
        notes.append(f"{windowed} submission(s) had feedback longer than the model's {scores.max_tokens}-token "
                     "limit and were scored in overlapping windows (not truncated).")
    notes += list(scores.notes)
    return SuiteResult(
        name=name, kind="drift",
        metrics=aggregate(scored, None),
        groups=groups,
        items=tuple(to_item(s, suite.credit_drift_mode) for s in scored),
        item_columns=columns_of(candidates, suite.credit_drift_mode),
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


DRIFT = Kind(
    kind="drift",
    config_model=DriftSuiteConfig,
    metrics=METRICS,
    group_fields=("exercise", "model"),
    levels=("model",),
    default_checks=DEFAULT_CHECKS,
    load=load_drift,
    score=score_drift,
    models_of=drift_models,
    item_columns_of=drift_columns,
    item_statistic=drift_statistic,
)
