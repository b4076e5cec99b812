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


# ---------------------------------------------------------------- the LLM's verdicts (advisory)

LLM_SUPPORTED = 0.5  # the judge replies 1 (supported) or 0; a reply in between counts from here up
CLAIM_TEMPLATE = """You verify one claim of an answer against the retrieved context.

Context: {context}
Claim: {answer}

Is the claim supported by the context alone (stated or directly implied)? Reply 1 if it is supported and 0 if it
is not (contradicted, or not mentioned). Return only the number."""


@dataclass(frozen=True)
class ClaimJudgement:
    """Per record: the LLM's share of supported claims and its agreement with the NLI verdicts (None where a claim
    went unscored or the answer has no claims), and the run's note."""

    values: tuple[dict[str, float | None], ...]
    note: str


def judge_claims(suite: RagSuiteConfig, records: Sequence[RagRecord], scores: ClaimScores | None,
                 context: ScoringContext) -> ClaimJudgement | None:
    """Each claim the NLI model decided, asked of the suite's LLM judge too (verify; the claims are
    `split_claims`'s, as the NLI model's, so the two are compared claim by claim). Advisory: the overall score
    never includes it."""
    if not suite.claim_judge or scores is None:
        return None
    if context.grader is None:  # the command hands one in whenever a suite enables its judge
        raise TypeError("the RAG suite enables claim_judge, but the scoring context holds no LLM grader")
    from gate.kinds.rag.grader import GraderItem

    items = [GraderItem(f"{i}:{j}", "claim_support", record.query, premise(record.retrieved_contexts) or "",
                        verdict.claim, "")
             for i, (record, answer) in enumerate(zip(records, scores.answers, strict=True))
             for j, verdict in enumerate(answer.verdicts)]
    run = context.grader("rag", suite.judge.model_copy(update={"prompt_template": CLAIM_TEMPLATE}), items) \
        if items else None
    llm: dict[str, float | None] = {item.key: s.score for item, s in zip(items, run.scores, strict=True)} \
        if run is not None else {}
    values: list[dict[str, float | None]] = []
    agreed, compared = 0, 0
    for i, answer in enumerate(scores.answers):
        said = [llm.get(f"{i}:{j}") for j in range(len(answer.verdicts))]
        if not said or any(s is None for s in said):
            values.append({"llm_claim_faithfulness": None, "claim_agreement": None})
            continue
        llm_supported = [float(s) >= LLM_SUPPORTED for s in said if s is not None]
        same = [a == v.supported for a, v in zip(llm_supported, answer.verdicts, strict=True)]
        agreed, compared = agreed + sum(same), compared + len(same)
        values.append({"llm_claim_faithfulness": sum(llm_supported) / len(llm_supported),
                       "claim_agreement": sum(same) / len(same)})
    unscored = sum(1 for s in llm.values() if s is None)
    note = (f"LLM claim verification ({suite.judge.model}, advisory, not in the overall score): it agrees with the "
            f"NLI model on {agreed} of {compared} claims" + (f" ({agreed / compared:.0%})" if compared else "")
            + (f"; {unscored} claims unscored, their answers unmeasured" if unscored else "") + ".")
    return ClaimJudgement(tuple(values), note)
