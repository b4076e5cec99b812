"""A RAG suite's claim-level faithfulness: the one NLI request of its records, and each answer's claims decided
(`claims` splits and decides; this module asks the runtime). The pairs asked never depend on the values returned
(the planning pass asks exactly what scoring asks)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gate.kinds.base import ScoringContext
from gate.kinds.rag.claims import CLAIM_SPLITTER, NO_CLAIMS, NO_CONTEXTS, AnswerClaims, decide, premise, split_claims
from gate.kinds.rag.config import RagSuiteConfig, nli_for
from gate.kinds.rag.records import RagRecord

UNSUPPORTED_SEPARATOR = " | "  # between an answer's unsupported claims in items.csv's `unsupported_claims`


@dataclass(frozen=True)
class ClaimScores:
    answers: tuple[AnswerClaims, ...]  # per record, in order
    fingerprint: dict[str, Any]  # the suite fingerprint's `claims` entry: method, model, threshold, splitter
    notes: tuple[str, ...] = ()


def _pairs(records: Sequence[RagRecord]) -> tuple[list[tuple[str, ...]], list[tuple[str, str]]]:
    """Per record its claims (none where it has no premise), and the unique (premise, claim) pairs to ask."""
    claims, pairs = [], []
    for record in records:
        found, context = split_claims(record.actual_answer), premise(record.retrieved_contexts)
        claims.append(found if context is not None else ())
        pairs += [(context, c) for c in found] if context is not None else []
    return claims, list(dict.fromkeys(pairs))


def ask(suite: RagSuiteConfig, records: Sequence[RagRecord], context: ScoringContext) -> None:
    """The planning pass: what `score_claims` will ask, nothing measured."""
    if suite.claim_faithfulness and (pairs := _pairs(records)[1]):
        context.runtime.entail(nli_for(context.gate, suite), [p for p, _ in pairs], [c for _, c in pairs])


def score_claims(suite: RagSuiteConfig, records: Sequence[RagRecord], context: ScoringContext) -> ClaimScores | None:
    """Each record's claims decided with the suite's NLI model; None where the suite does not measure them."""
    if not suite.claim_faithfulness:
        return None
    model = nli_for(context.gate, suite)
    claims, pairs = _pairs(records)
    fingerprint: dict[str, Any] = {"method": "nli", "model": {"model": model}, "threshold": suite.claim_threshold,
                                   "splitter": CLAIM_SPLITTER}
    if suite.claim_decomposition == "llm":  # only then: `sentences` keeps older snapshots comparable
        fingerprint["decomposition"] = {"method": "llm", "model": suite.judge.model}
    probability: dict[tuple[str, str], float] = {}
    notes = []
    if pairs:
        result = context.runtime.entail(model, [p for p, _ in pairs], [c for _, c in pairs])
        probability = dict(zip(pairs, result.entailment, strict=True))
        fingerprint["model"] = result.fingerprint.to_dict()
        if windowed := sum(result.windowed):
            notes.append(f"{windowed} of {len(pairs)} claims were checked against contexts longer than the NLI "
                         f"model's {result.max_tokens}-token limit, in overlapping windows: a claim counts as "
                         "supported when any window entails it.")
    answers = []
    for record, found in zip(records, claims, strict=True):
        context_text = premise(record.retrieved_contexts)
        if context_text is None:
            answers.append(AnswerClaims((), NO_CONTEXTS if split_claims(record.actual_answer) else NO_CLAIMS))
        else:
            answers.append(decide(found, [probability[(context_text, c)] for c in found], suite.claim_threshold))
    for reason in (NO_CLAIMS, NO_CONTEXTS):
        if count := sum(1 for a in answers if a.reason == reason):
            notes.append(f"claim_faithfulness is unmeasured for {count} of {len(answers)} answers: {reason}.")
    return ClaimScores(tuple(answers), fingerprint, tuple(notes))


def item_values(scores: ClaimScores | None, index: int) -> dict[str, float | str | None]:
    """A record's claim columns: claim_faithfulness and its unsupported claims (None where unmeasured)."""
    if scores is None:
        return {}
    answer = scores.answers[index]
    unmeasured = answer.reason is not None
    return {"claim_faithfulness": answer.faithfulness,
            "unsupported_claims": None if unmeasured else UNSUPPORTED_SEPARATOR.join(answer.unsupported)}
