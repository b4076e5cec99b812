"""Seed stability-coefficient: do a model's answers stay the same when the prompt is varied?

Per question (its n responses to n prompt variants): the stability coefficient = (mean cosine
similarity over the n(n−1) ordered pairs i ≠ j of the responses' embeddings) × P, with P the mean
over the responses of each response's answer probability — `answer_probability` when a record gives
it, else from its token log-probabilities (geometric exp(mean), joint exp(sum), or mean of exp). With
no probabilities anywhere in the suite P = 1 (and the report says so). n < 2 is unmeasured.
Per (model, task) and per model: mean, std and count of the question coefficients. Per (model,
variation): how similar the answers to that kind of prompt change are to the other answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gate.config import CheckConfig
from gate.kinds.base import Kind, ScoringContext
from gate.kinds.stability.config import AnswerProbability, StabilitySuiteConfig, stability_models
from gate.kinds.stability.records import StabilityData, StabilityRecord, load_stability
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
from gate.runtime.api import Embeddings
from gate.stats import ItemStatistic, mean, std
from gate.stats import statistics as item_stats
from gate.stats.similarity import cosine_matrix, off_diagonal_mean

METRICS = {spec.name: spec for spec in (
    MetricSpec("stability_coefficient", Direction.HIGHER_IS_BETTER, "Mean stability coefficient over questions"),
    MetricSpec("stability_coefficient_std", Direction.LOWER_IS_BETTER, "Std of question coefficients (population)"),
    MetricSpec("mean_similarity", Direction.HIGHER_IS_BETTER, "Mean off-diagonal cosine similarity of answers"),
    MetricSpec("answer_probability", Direction.HIGHER_IS_BETTER, "Mean answer probability P"),
    MetricSpec("questions", Direction.HIGHER_IS_BETTER, "Questions with at least two responses", ".0f"),
)}
DEFAULT_CHECKS = {"stability_coefficient": CheckConfig(min=0.5)}
ITEM_COLUMNS = ("model", "task", "question_id", "n", "stability_coefficient", "mean_similarity",
                "answer_probability", "min_pair_similarity", "probability_source")


def response_probability(record: StabilityRecord, mode: AnswerProbability) -> float | None:
    if record.answer_probability is not None:
        return record.answer_probability
    logprobs = record.token_logprobs
    if not logprobs:
        return None
    if mode is AnswerProbability.JOINT:
        return math.exp(math.fsum(logprobs))
    if mode is AnswerProbability.MEAN:
        return math.fsum(math.exp(lp) for lp in logprobs) / len(logprobs)
    return math.exp(math.fsum(logprobs) / len(logprobs))


@dataclass(frozen=True)
class StabilitySettings(SuiteSettings):
    embedding: str
    answer_probability: str  # how P is derived from token log-probabilities
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    questions: int
    responses: int
    probabilities: bool  # whether any record gives P; without any P = 1


@dataclass(frozen=True)
class StabilityDetails(SuiteDetails):
    settings: StabilitySettings


@dataclass(frozen=True)
class ShownResponse:
    variant: str
    variation: str | None
    response: str
    similarity: float | None  # mean cosine similarity to the question's other responses


@dataclass(frozen=True)
class StabilityItemDetails(ItemDetails):
    """A question's responses, one per prompt variant, shown for the least stable questions."""

    responses: tuple[ShownResponse, ...]


@dataclass(frozen=True)
class _Question:
    key: tuple[str, str, str]
    records: tuple[StabilityRecord, ...]
    variants: tuple[str, ...]
    mean_similarity: float | None
    min_similarity: float | None
    sibling_similarity: tuple[float | None, ...]  # each response's mean similarity to the others
    probability: float | None
    probability_source: str

    @property
    def coefficient(self) -> float | None:
        if self.mean_similarity is None or self.probability is None:
            return None
        return self.mean_similarity * self.probability


SINGLE_LISTED = 10  # questions with one response named in the note (report.json's `unmeasured` has them all)


def _embedded(suite: StabilitySuiteConfig, data: StabilityData, context: ScoringContext) -> tuple[str, Embeddings]:
    """The suite's one model request: every response's embedding."""
    embedding = context.gate.embedding_for(suite)
    return embedding, context.runtime.embed(embedding, [r.response for r in data.records])


def plan_stability(name: str, suite: StabilitySuiteConfig, data: StabilityData, context: ScoringContext) -> None:
    _embedded(suite, data, context)


def score_stability(name: str, suite: StabilitySuiteConfig, data: StabilityData,
                    context: ScoringContext) -> SuiteResult:
    embedding, embedded = _embedded(suite, data, context)
    vectors = embedded.vectors
    any_probability = any(r.answer_probability is not None or r.token_logprobs for r in data.records)
    by_question: dict[tuple, list[int]] = {}
    for index, record in enumerate(data.records):
        by_question.setdefault(record.question, []).append(index)
    questions = [_question(key, [data.records[i] for i in rows], [data.variants[i] for i in rows],
                           vectors[rows], suite.answer_probability, any_probability)
                 for key, rows in by_question.items()]
    groups, unmeasured = _groups(data, questions)
    notes = [] if any_probability else [
        "No record gives an answer probability or token log-probabilities: P = 1, so each coefficient is the "
        "mean similarity alone."]
    partial = sum(1 for q in questions if q.probability_source.startswith("partial"))
    if partial:
        notes.append(f"{partial} question(s) have probabilities for only some responses; P is their mean.")
    single = [q for q in questions if len(q.records) < 2]
    if single:  # dropped from every mean: the reader must know which, not only that n went down
        shown = ", ".join(f"{m} · {t} · {qid}" for m, t, qid in (q.key for q in single[:SINGLE_LISTED]))
        more = f" and {len(single) - SINGLE_LISTED} more" if len(single) > SINGLE_LISTED else ""
        notes.append(f"{len(single)} question(s) have a single response and are unmeasured (n < 2): {shown}{more}.")
    truncation = embedded.truncation_note("responses")
    if truncation:
        notes.append(truncation)
    suite_metrics, gaps = _aggregate((), questions)
    return SuiteResult(
        name=name, kind="stability", metrics=suite_metrics, groups=groups,
        items=tuple(_item(q) for q in questions), item_columns=ITEM_COLUMNS,
        unmeasured=tuple(unmeasured + gaps + _question_gaps(questions)),
        fingerprint={"embedding": embedded.fingerprint.to_dict(), "answer_probability": suite.answer_probability.value},
        details=StabilityDetails(StabilitySettings(
            embedding=embedding, answer_probability=suite.answer_probability.value, models=tuple(data.models),
            tasks=tuple(dict.fromkeys(r.task for r in data.records)), questions=len(questions),
            responses=len(data.records), probabilities=any_probability)),
        notes=tuple(notes),
    )


def _question(key, records, variants, vectors, mode, any_probability) -> _Question:
    n = len(records)
    probabilities = [response_probability(r, mode) for r in records]
    given = [p for p in probabilities if p is not None]
    if not any_probability:
        probability, source = 1.0, "none (P = 1)"
    elif not given:
        probability, source = None, "none"
    else:
        probability = math.fsum(given) / len(given)
        kind = "given" if all(r.answer_probability is not None for r in records) else mode.value
        source = kind if len(given) == n else f"partial ({len(given)} of {n})"
    if n < 2:
        return _Question(key, tuple(records), tuple(variants), None, None, (None,) * n, probability, source)
    matrix = cosine_matrix(vectors)
    if not math.isfinite(matrix.sum()):  # a zero embedding has no direction
        return _Question(key, tuple(records), tuple(variants), None, None, (None,) * n, probability, source)
    siblings = tuple(float((matrix[i].sum() - matrix[i, i]) / (n - 1)) for i in range(n))
    off = [matrix[i, j] for i in range(n) for j in range(n) if i != j]
    return _Question(key, tuple(records), tuple(variants), off_diagonal_mean(matrix), float(min(off)), siblings,
                     probability, source)


def _aggregate(key: Key, questions: Sequence[_Question]) -> tuple[dict[str, float | None], list[Unmeasured]]:
    coefficients = [q.coefficient for q in questions]
    measured = [c for c in coefficients if c is not None]
    metrics = {
        "stability_coefficient": mean(coefficients),
        "stability_coefficient_std": std(coefficients),
        "mean_similarity": mean(q.mean_similarity for q in questions),
        "answer_probability": mean(q.probability for q in questions),
        "questions": float(len(measured)),
    }
    reason = "no question has two or more responses with probabilities" if questions else "no questions"
    return metrics, [Unmeasured(key, m, reason) for m, v in metrics.items() if v is None]


def _groups(data: StabilityData, questions: Sequence[_Question]) -> tuple[tuple[GroupResult, ...], list[Unmeasured]]:
    groups, gaps = [], []
    tasks = list(dict.fromkeys(q.key[1] for q in questions))
    for model in data.models:
        for task in tasks:
            mine = [q for q in questions if q.key[0] == model and q.key[1] == task]
            if not mine:
                continue
            key: Key = (("model", model), ("task", task))
            metrics, missing = _aggregate(key, mine)
            groups.append(GroupResult("group", key, metrics, len(mine), _sources(mine)))
            gaps += missing
        mine = [q for q in questions if q.key[0] == model]
        metrics, missing = _aggregate((("model", model),), mine)
        groups.append(GroupResult("model", (("model", model),), metrics, len(mine), _sources(mine)))
        gaps += missing
        groups += _variation_groups(model, mine)
    return tuple(groups), gaps


def _variation_groups(model: str, questions: Sequence[_Question]) -> list[GroupResult]:
    """Which prompt change moves the answers most: mean similarity of its answers to their siblings."""
    by_variation: dict[str, list[float | None]] = {}
    for question in questions:
        for record, similarity in zip(question.records, question.sibling_similarity, strict=True):
            if record.variation:
                by_variation.setdefault(record.variation, []).append(similarity)
    return [GroupResult("variation", (("model", model), ("variation", variation)),
                        {"mean_similarity": mean(values)}, len(values))
            for variation, values in by_variation.items()]


def _question_gaps(questions: Sequence[_Question]) -> list[Unmeasured]:
    gaps = []
    for q in questions:
        key: Key = (("model", q.key[0]), ("task", q.key[1]), ("question_id", q.key[2]))
        if len(q.records) < 2:
            gaps.append(Unmeasured(key, "stability_coefficient", "only one response: n < 2"))
        elif q.mean_similarity is None:
            gaps.append(Unmeasured(key, "stability_coefficient", "a response has an empty embedding"))
        elif q.probability is None:
            gaps.append(Unmeasured(key, "stability_coefficient", "no answer probabilities for this question, "
                                                                 "though other questions have them"))
    return gaps


def _sources(questions: Sequence[_Question]):
    return tuple(r.source_ref for q in questions for r in q.records if r.source_ref)


def _item(q: _Question) -> Item:
    model, task, question_id = q.key
    return Item(
        key=(("model", model), ("task", task), ("question_id", question_id)),
        values={"n": len(q.records), "stability_coefficient": q.coefficient, "mean_similarity": q.mean_similarity,
                "answer_probability": q.probability, "min_pair_similarity": q.min_similarity,
                "probability_source": q.probability_source},
        source=q.records[0].source_ref,
        details=StabilityItemDetails(tuple(ShownResponse(v, r.variation, r.response, s) for r, v, s in
                                           zip(q.records, q.variants, q.sibling_similarity, strict=True))),
    )


def stability_statistic(suite: StabilitySuiteConfig, metric: str) -> ItemStatistic | None:
    """The spread across questions, for significance tests; `questions` (a count) no resample recomputes, and at
    the `variation` level `mean_similarity` averages responses, not items."""
    return item_stats.std("stability_coefficient") if metric == "stability_coefficient_std" else None


STABILITY = Kind(
    kind="stability",
    config_model=StabilitySuiteConfig,
    metrics=METRICS,
    group_fields=("model", "task"),
    levels=("model", "variation"),
    default_checks=DEFAULT_CHECKS,
    load=load_stability,
    score=score_stability,
    plan=plan_stability,
    models_of=stability_models,
    item_columns_of=lambda suite: tuple(c for c in ITEM_COLUMNS[3:] if c != "probability_source"),
    item_statistic=stability_statistic,
)
