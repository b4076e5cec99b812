"""The LLM's side of claim-level faithfulness (advisory): the suite's judge verifies claims against the contexts,
and with `claim_decomposition: llm` first splits each answer into claims itself (Ragas' faithfulness: decompose,
then verify). Pure apart from the grader handed in through the scoring context, which keeps the judge's endpoint
rules, budget and cache.

- `sentences` (default): the judge verifies the NLI model's own claims (`claims.split_claims`), so the two are
  compared claim by claim: `claim_agreement` = the share of an answer's claims on which they agree.
- `llm`: one decomposition request per answer (a JSON array of standalone claims, `parse_claims`), then one
  verification request per claim: `llm_claim_faithfulness` = supported / claims (Ragas' formula), the unsupported
  ones in `llm_unsupported_claims`. The LLM's claims are not the NLI model's sentences, so agreement is read per
  answer: `claim_agreement` = 1 when both call the answer fully supported or both do not, else 0.

The claims an LLM returns are model output built from the pull request's answers and contexts: they reach only
these advisory values and the report (escaped like any record text), and their number is bounded (MAX_CLAIMS).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gate.kinds.base import ScoringContext
from gate.kinds.rag.claim_scores import UNSUPPORTED_SEPARATOR, ClaimScores
from gate.kinds.rag.claims import premise
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.grader import BUDGET_EXHAUSTED, GraderItem, GraderRun
from gate.kinds.rag.records import RagRecord

LLM_SUPPORTED = 0.5  # the judge replies 1 (supported) or 0; a reply in between counts from here up
MAX_CLAIMS = 32  # claims taken from one decomposition reply; more is an unreadable reply, not a longer bill
MAX_CLAIM_CHARS = 500
MAX_REPLY_CHARS = 20_000
QUOTE = 80  # characters of a bad reply quoted in its reason
NOT_ASKED = "no contexts or no answer"  # an answer the judge is not asked to decompose

CLAIM_TEMPLATE = """You verify one claim of an answer against the retrieved context.

Context: {context}
Claim: {answer}

Is the claim supported by the context alone (stated or directly implied)? Reply 1 if it is supported and 0 if it
is not (contradicted, or not mentioned). Return only the number."""

DECOMPOSE_TEMPLATE = """You break an answer into the claims it makes.

Question: {query}
Answer: {answer}

List every factual claim of the answer as a short, standalone sentence: one fact each, pronouns replaced by what
they refer to, nothing added that the answer does not say. Reply with a JSON array of strings only, e.g.
["Refunds take five days.", "Refunds are paid to the original card."]; reply [] if the answer makes no claim."""

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


@dataclass(frozen=True)
class Decomposed:
    """One answer's claims as the LLM stated them, or why there are none to verify."""

    claims: tuple[str, ...] = ()
    reason: str | None = None


@dataclass(frozen=True)
class ClaimJudgement:
    """Per record: the LLM's share of supported claims, its agreement with the NLI verdicts (None where a claim went
    unscored or the answer has no claims) and, with LLM decomposition, its unsupported claims; the run's note."""

    values: tuple[dict[str, float | str | None], ...]
    note: str
    unsupported: tuple[tuple[str, ...], ...]  # per record, the LLM's own claims it found unsupported (llm only)


def parse_claims(reply: str | None) -> Decomposed:
    """A decomposition reply: a JSON array of non-empty strings (a ```json fence around it allowed), at most
    MAX_CLAIMS of at most MAX_CLAIM_CHARS each; anything else leaves the answer unmeasured, quoting the reply."""
    text = (reply or "").strip()
    quoted = json.dumps(text[:QUOTE] + ("…" if len(text) > QUOTE else ""), ensure_ascii=False)
    if len(text) > MAX_REPLY_CHARS:
        return Decomposed(reason=f"decomposition reply longer than {MAX_REPLY_CHARS:,} characters")
    fenced = _FENCE.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        return Decomposed(reason=f"decomposition reply is not a JSON array of claims: {quoted}")
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
        return Decomposed(reason=f"decomposition reply is not an array of non-empty strings: {quoted}")
    if not value:
        return Decomposed(reason="the judge found no claims in the answer")
    if len(value) > MAX_CLAIMS:
        return Decomposed(reason=f"the judge returned {len(value)} claims, more than {MAX_CLAIMS}")
    if any(len(c) > MAX_CLAIM_CHARS for c in value):
        return Decomposed(reason=f"a claim longer than {MAX_CLAIM_CHARS} characters")
    return Decomposed(tuple(" ".join(c.split()) for c in value))


def judge_claims(suite: RagSuiteConfig, records: Sequence[RagRecord], scores: ClaimScores | None,
                 context: ScoringContext, spent: int = 0) -> ClaimJudgement | None:
    """The judge's claim verdicts for each record (see the module docstring); None unless `claim_judge` is on.
    `spent`: the tokens the suite's criteria grades took already, which count against the judge's one budget."""
    if not suite.claim_judge or scores is None:
        return None
    if context.grader is None:  # the command hands one in whenever a suite enables its judge
        raise TypeError("the RAG suite enables claim_judge, but the scoring context holds no LLM grader")
    llm = suite.claim_decomposition == "llm"
    contexts = [premise(r.retrieved_contexts) for r in records]
    if llm:
        asked = [GraderItem(str(i), "claim_decomposition", r.query, "", r.actual_answer, "")
                 for i, (r, c) in enumerate(zip(records, contexts, strict=True))
                 if c is not None and r.actual_answer.strip()]
        run = _ask(context, suite, DECOMPOSE_TEMPLATE, asked, spent)
        spent += run.tokens if run else 0
        split = {item.key: (parse_claims(s.reply) if s.reply is not None else Decomposed(reason=s.reason))
                 for item, s in zip(asked, run.scores, strict=True)} if run else {
                     item.key: Decomposed(reason=BUDGET_EXHAUSTED) for item in asked}
        claims = [split.get(str(i), Decomposed(reason=NOT_ASKED)) for i in range(len(records))]
    else:
        claims = [Decomposed(tuple(v.claim for v in a.verdicts)) for a in scores.answers]
    items = [GraderItem(f"{i}:{j}", "claim_support", r.query, c or "", claim, "")
             for i, (r, c, d) in enumerate(zip(records, contexts, claims, strict=True))
             for j, claim in enumerate(d.claims)]
    run = _ask(context, suite, CLAIM_TEMPLATE, items, spent)  # grades and decompositions count against the budget
    said = {item.key: s.score for item, s in zip(items, run.scores, strict=True)} if run else dict.fromkeys(
        (item.key for item in items), None)
    values: list[dict[str, float | str | None]] = []
    unsupported: list[tuple[str, ...]] = []
    agreed = compared = 0
    for i, (answer, decomposed) in enumerate(zip(scores.answers, claims, strict=True)):
        verdicts = [said.get(f"{i}:{j}") for j in range(len(decomposed.claims))]
        row: dict[str, float | str | None] = {"llm_claim_faithfulness": None, "claim_agreement": None}
        if llm:
            row["llm_unsupported_claims"] = None
        unsupported.append(())
        if verdicts and all(v is not None for v in verdicts):
            supported = [float(v) >= LLM_SUPPORTED for v in verdicts if v is not None]
            row["llm_claim_faithfulness"] = sum(supported) / len(supported)
            if llm:
                unsupported[-1] = tuple(c for c, ok in zip(decomposed.claims, supported, strict=True) if not ok)
                row["llm_unsupported_claims"] = UNSUPPORTED_SEPARATOR.join(unsupported[-1])
                if answer.faithfulness is not None:
                    agrees = (answer.faithfulness == 1.0) == all(supported)
                    row["claim_agreement"] = float(agrees)
                    agreed, compared = agreed + agrees, compared + 1
            else:
                same = [a == v.supported for a, v in zip(supported, answer.verdicts, strict=True)]
                row["claim_agreement"] = sum(same) / len(same)
                agreed, compared = agreed + sum(same), compared + len(same)
        values.append(row)
    return ClaimJudgement(tuple(values), _note(suite, llm, agreed, compared, claims, said), tuple(unsupported))


def _ask(context: ScoringContext, suite: RagSuiteConfig, template: str, items: list[GraderItem],
         spent: int) -> GraderRun | None:
    """The grader's run of `items` with `template`, within what is left of the judge's token budget after `spent`;
    None when there is nothing to ask or no budget left."""
    budget = suite.judge.budget_tokens
    if not items or context.grader is None or (budget is not None and spent >= budget):
        return None
    update: dict[str, object] = {"prompt_template": template}
    if budget is not None:
        update["budget_tokens"] = budget - spent
    return context.grader("rag", suite.judge.model_copy(update=update), items)


def _note(suite: RagSuiteConfig, llm: bool, agreed: int, compared: int, claims: Sequence[Decomposed],
          said: dict[str, float | None]) -> str:
    unit = "answers (fully supported or not; its claims against the NLI model's sentences)" if llm else "claims"
    note = (f"LLM claim verification ({suite.judge.model}, advisory, not in the overall score"
            + (", claims decomposed by the LLM" if llm else "") + f"): it agrees with the NLI model on {agreed} of "
            f"{compared} {unit}" + (f" ({agreed / compared:.0%})" if compared else ""))
    if unscored := sum(1 for s in said.values() if s is None):
        note += f"; {unscored} claims unscored, their answers unmeasured"
    if llm and (undecomposed := [d.reason for d in claims if d.reason and d.reason != NOT_ASKED]):
        note += f"; {len(undecomposed)} answers not decomposed (first: {undecomposed[0]})"
    return note + "."
