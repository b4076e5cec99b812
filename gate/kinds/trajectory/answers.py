"""A run's final answer compared by meaning: BERTScore F1 against an expectation's `similar_to` (the existing
BERTScore engine, the suite's `bertscore:` or `models.bertscore`), asked once for every distinct (answer,
reference) pair of the suite; exact and containment checks need no model and stay in `expectations`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from gate.io import paths
from gate.kinds.base import ScoringContext
from gate.kinds.trajectory.config import TrajectorySuiteConfig
from gate.kinds.trajectory.expectations import expectations_for
from gate.kinds.trajectory.records import TrajectoryData
from gate.runtime.api import BertScoreSpec


def _none() -> Mapping[tuple[str, str], float]:
    return MappingProxyType({})


@dataclass(frozen=True)
class AnswerScores:
    f1: Mapping[tuple[str, str], float] = field(default_factory=_none)  # (answer, similar_to), both stripped -> F1
    fingerprint: Mapping[str, object] | None = None  # the BERTScore model's, None when no answer was compared


def pairs_of(data: TrajectoryData) -> list[tuple[str, str]]:
    """Every distinct (final answer, reference) an applying `similar_to` asks about, in first-seen order."""
    found: dict[tuple[str, str], None] = {}
    for run in data.runs:
        if run.final_answer is None:
            continue  # "the run has no final answer" needs no model
        for expectation in expectations_for(run.task_id, data.expectations):
            if expectation.answer is not None and expectation.answer.similar_to is not None:
                found[(run.final_answer.strip(), expectation.answer.similar_to.strip())] = None
    return list(found)


def answer_scores(suite: TrajectorySuiteConfig, data: TrajectoryData, context: ScoringContext) -> AnswerScores:
    pairs = pairs_of(data)
    if not pairs:
        return AnswerScores()
    config = context.gate.bertscore_for(suite)
    baseline = str(paths.confine(context.base_dir / config.baseline_path, context.base_dir, "bertscore.baseline_path",
                                 config.baseline_path).resolve()) if config.baseline_path else None
    spec = BertScoreSpec(model=config.model, layer=config.layer, idf=config.idf,
                         rescale_with_baseline=config.rescale_with_baseline, baseline_path=baseline)
    references = [r for _, r in pairs]
    # idf as bert-score computes it for `score(cands, refs, idf=True)`: over the references (each distinct once)
    idf_corpus = list(dict.fromkeys(references)) if config.idf else ()
    scores = context.runtime.bertscore(spec, [a for a, _ in pairs], references, idf_corpus)
    return AnswerScores(MappingProxyType(dict(zip(pairs, scores.f1, strict=True))), scores.fingerprint.to_dict())
