"""The LLM grader's contract (seed rag-evaluation's LLM-as-judge): what it is asked, and what it answers.

Each item (one sample × one criterion) becomes one prompt from the seed's judge template; the first
number of the reply, when it lies in [0, 1], is the score. An item the grader could not score has score
None and the reason: an unparseable reply, a request that still fails after its retries, the budget spent.
This module is pure: the RAG scorer builds `GraderItem`s and reads a `GraderRun`, and never talks to the
endpoint. The HTTP client (`gate.kinds.rag.grader_client.run_grader`) is handed in through
`ScoringContext.judge` by the command, like the model runtime. gate.yml still calls it `judge:` and its
metrics `judge_<criterion>` (the user contract); in the code it is the grader, because "judge" means verdicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_TEMPLATE = """Evaluate the following answer based on {criterion}.

Query: {query}
Context: {context}
Answer: {answer}
Expected: {expected}

Rate the {criterion} on a scale of 0.0 to 1.0.
Consider:
- For relevance: Does the answer address the question?
- For accuracy: Is the information correct?
- For completeness: Are all aspects covered?
- For coherence: Is the answer well-structured?

Return only the numeric score."""

BUDGET_EXHAUSTED = "budget exhausted"
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_PLACEHOLDER = re.compile(r"\{(criterion|query|context|answer|expected)\}")


@dataclass(frozen=True)
class GraderItem:
    key: str  # e.g. the query id
    criterion: str
    query: str
    context: str  # the retrieved contexts joined by "\n\n"
    answer: str
    expected: str  # "" when the sample has no expected answer


@dataclass(frozen=True)
class GraderScore:
    key: str
    criterion: str
    score: float | None  # in [0, 1]; None = unmeasured
    reason: str | None  # why unmeasured
    cached: bool
    tokens: int  # tokens this request used (0 when cached or not sent)
    # Not graded: the endpoint failed, or the budget ran out. (An unparseable reply was graded, unreadably.)
    # Either way score is None; the RAG scorer treats every unscored item alike
    # (gate.kinds.rag.grading.GRADER_MAX_UNSCORED).
    failed: bool = False
    reply: str | None = None  # the reply as received (the key scrubbed), for items whose reply is not a score


@dataclass(frozen=True)
class GraderRun:
    scores: tuple[GraderScore, ...]  # one per item, in the items' order
    requests: int  # HTTP requests sent, retries included
    cache_hits: int
    tokens: int
    cost_usd: float
    stopped_by_budget: bool


def render_prompt(template: str, item: GraderItem) -> str:
    """The template with {criterion} {query} {context} {answer} {expected} filled in, in one pass: other
    braces stay as written (no `{{` escapes needed) and a placeholder inside a value is not expanded."""
    values = {"criterion": item.criterion, "query": item.query, "context": item.context,
              "answer": item.answer, "expected": item.expected}
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def parse_score(text: str) -> float | None:
    """The first number in the reply when it lies in [0, 1] ("8/10" is 8: out of range); else None."""
    match = _NUMBER.search(text or "")
    if match is None:
        return None
    value = float(match.group())
    return value if 0.0 <= value <= 1.0 else None
