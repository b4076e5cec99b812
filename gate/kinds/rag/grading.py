"""A RAG suite's criteria grades by its LLM judge (`judge: {enabled: true, criteria: [...]}`): one grader item per
query and criterion, the scores by record, and the rule for the ones it could not score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gate.kinds.base import ScoringContext
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.grader import BUDGET_EXHAUSTED, GraderItem

# One rule for every judge item without a score (unparseable reply, HTTP error, budget spent, not sent): it is
# listed in `unmeasured` with its reason, and a system's judge_<criterion> is the mean over its scored queries
# when at most this share went unscored, else unmeasured. Scores lie in [0, 1], so a mean over the rest is within
# that share of the mean over all, whatever the unscored ones would have scored.
GRADER_MAX_UNSCORED = 0.05


def grade(suite: RagSuiteConfig, records,
          context: ScoringContext) -> tuple[dict[int, dict], str | None, dict[int, dict[str, str]], int]:
    """Grader scores by record index, the run's note, by record index the judge_* metrics it could not grade, and
    the tokens spent (the claim judge spends what is left of the budget)."""
    if not suite.judge.enabled:
        return {}, None, {}, 0
    if context.grader is None:  # the command hands one in whenever a suite enables it
        raise TypeError("the RAG suite enables its LLM grader, but the scoring context holds none")
    items = [GraderItem(str(index), criterion, r.query, "\n\n".join(r.retrieved_contexts or ()), r.actual_answer,
                       r.expected_answer or "")
             for index, (_, r) in enumerate(records) for criterion in suite.judge.criteria]
    run = context.grader("rag", suite.judge, items)
    scores: dict[int, dict] = {}
    not_judged: dict[int, dict[str, str]] = {}
    for item, score in zip(items, run.scores, strict=True):
        scores.setdefault(int(item.key), {})[f"judge_{item.criterion}"] = score.score
        if score.score is None:  # unparseable or never answered alike (GRADER_MAX_UNSCORED)
            not_judged.setdefault(int(item.key), {})[f"judge_{item.criterion}"] = score.reason or "no reply"
    unmeasured = sum(1 for s in run.scores if s.score is None)
    failure = next((s.reason for s in run.scores if s.failed and s.reason != BUDGET_EXHAUSTED), None)
    note = (f"LLM judge {suite.judge.model}: {run.requests} requests, {run.cache_hits} from cache, {run.tokens} "
            f"tokens (${run.cost_usd:.4f}); {unmeasured} of {len(items)} scores unmeasured"
            + (" — the budget was reached" if run.stopped_by_budget else "")
            + (f" — the endpoint failed: {failure}" if failure else "") + ".")
    return scores, note, not_judged, run.tokens


def not_judged(rows: Sequence[int], not_judged: Mapping[int, Mapping[str, str]]) -> tuple[dict[str, str],
                                                                                            dict[str, int]]:
    """(metric -> why a system's mean of it is unmeasured: more than GRADER_MAX_UNSCORED of its queries have no
    judge score; metric -> how many queries it leaves out where no more than that share have none)."""
    lost: dict[str, list[str]] = {}
    for row in rows:
        for metric, reason in not_judged.get(row, {}).items():
            lost.setdefault(metric, []).append(reason)
    over = {metric: f"the LLM judge did not judge {len(reasons)} of {len(rows)} queries ({reasons[0]}); more than "
                    f"{GRADER_MAX_UNSCORED:.0%} unscored, a mean over the rest could be another sample's score"
            for metric, reasons in lost.items() if len(reasons) > GRADER_MAX_UNSCORED * len(rows)}
    return over, {metric: len(reasons) for metric, reasons in lost.items() if metric not in over}
