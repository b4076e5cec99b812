"""Which checks a rag suite can ever measure, told from its config alone (gate.yml's loader asks).

A system (`group`, `baseline`) has the means of the per-query columns, corpus BLEU, the performance figures,
the overall score and the query count; a comparison (`comparison`, only with a `baseline:`) has `delta_<m>` of
those and the counts of significant regressions and improvements; the suite itself has no value of its own.
The k-metrics exist for the cut-offs of `k:`, the judge metrics for the criteria of an enabled `judge:`,
claim_faithfulness with `claim_faithfulness: true`.
A check outside these would only ever be unmeasured, so the loader reports it with the fix.
"""

from __future__ import annotations

import re

from gate.config import CheckConfig
from gate.config.base import CheckProblem
from gate.config.located import suggest
from gate.kinds.rag.compare import SUMMARY_NAME, SYSTEM_LEVEL
from gate.kinds.rag.config import RagSuiteConfig

PERFORMANCE = ("latency_p50", "latency_p95", "latency_p99", "throughput_qps", "cost_per_query")
COUNTS = ("regressions", "improvements")  # significant changes against the baseline, per comparison
_AT_K = re.compile(r"^(precision|recall|ndcg)_at_k\.(\d+)$")


def per_query_metrics(suite: RagSuiteConfig) -> list[str]:
    """The item columns: one value per query and system."""
    k_metrics = [f"{m}.{k}" for m in ("precision_at_k", "recall_at_k", "ndcg_at_k") for k in suite.k]
    judged = [f"judge_{c}" for c in suite.judge.criteria] if suite.judge.enabled else []
    claims = (["claim_faithfulness"] if suite.claim_faithfulness else []) + (
        ["llm_claim_faithfulness", "claim_agreement"] if suite.claim_judge else [])
    return [*k_metrics, "reciprocal_rank", "ndcg", "context_precision", "bleu", "rouge_l", "context_similarity",
            *claims, "answer_relevancy", *judged, "latency", "cost"]


def item_columns(suite: RagSuiteConfig) -> tuple[str, ...]:
    return tuple(per_query_metrics(suite))


def system_metrics(suite: RagSuiteConfig) -> tuple[str, ...]:
    means = [SUMMARY_NAME.get(c, c) for c in per_query_metrics(suite)]
    return tuple(dict.fromkeys([*means, "bleu", *PERFORMANCE, "overall_score", "queries"]))


def comparison_metrics(suite: RagSuiteConfig) -> tuple[str, ...]:
    means = [SUMMARY_NAME.get(c, c) for c in per_query_metrics(suite)]
    return tuple(dict.fromkeys([*(f"delta_{m}" for m in (*means, *SYSTEM_LEVEL)), *COUNTS]))


def check_problem(suite: RagSuiteConfig, metric: str, check: CheckConfig) -> CheckProblem | None:
    scope, compared = check.scope, metric.startswith("delta_") or metric in COUNTS
    if scope == "suite":
        return CheckProblem(expected="a scope with values: `group` (each system), `baseline` or `comparison`",
                            found=f"{metric} at `scope: suite` (a rag suite has no suite-wide values)",
                            fix="use `scope: comparison`" if compared else "drop `scope: suite` (checks each system)")
    if compared and scope != "comparison":
        return CheckProblem(
            expected=f"`scope: comparison` for {metric} (it compares the candidate with the baseline)",
            found=f"scope {scope!r}", fix="add `scope: comparison`" + _baseline_fix(suite, " and "))
    if not compared and scope == "comparison":
        delta = f"delta_{metric}"
        alt = f"check {delta} at `scope: comparison`, or " if delta in comparison_metrics(suite) else ""
        return CheckProblem(expected="at `scope: comparison`, delta_<metric>, regressions or improvements",
                            found=f"{metric}, a per-system value", fix=f"{alt}drop `scope: comparison`")
    if scope == "comparison" and suite.baseline is None:
        return CheckProblem(expected="a `baseline:` in the suite, to compare with", found="no `baseline:`",
                            fix="comparison metrics need a `baseline:` system" + _baseline_fix(suite, ": "))
    produced = comparison_metrics(suite) if scope == "comparison" else system_metrics(suite)
    return None if metric in produced else _missing(suite, metric, scope, produced)


def _baseline_fix(suite: RagSuiteConfig, join: str) -> str:
    return "" if suite.baseline is not None else f"{join}add `baseline: <the baseline system's records>`"


def _missing(suite: RagSuiteConfig, metric: str, scope: str, produced: tuple[str, ...]) -> CheckProblem:
    prefix = "delta_" if metric.startswith("delta_") else ""
    base = metric.removeprefix(prefix)
    at_k = _AT_K.match(base)
    if at_k:
        k = int(at_k.group(2))
        near = min(suite.k, key=lambda c: (abs(c - k), c))
        return CheckProblem(expected=f"a cut-off of the suite's `k:` ({', '.join(map(str, suite.k))})",
                            found=f"{metric}: {k} is not in `k:`",
                            fix=f"add {k} to `k:` or check {prefix}{at_k.group(1)}_at_k.{near}")
    if base == "claim_faithfulness" and not suite.claim_faithfulness:
        return CheckProblem(expected="claim_faithfulness from a suite that measures it",
                            found="`claim_faithfulness` is false (the default)",
                            fix="set `claim_faithfulness: true` (with an NLI model pulled: `models.nli`), or drop "
                                "the check")
    if base.startswith("judge_"):
        criterion = base.removeprefix("judge_")
        if not suite.judge.enabled:
            return CheckProblem(expected="judge_<criterion> metrics from an enabled LLM judge",
                                found="`judge.enabled` is false (the default)",
                                fix="set `judge: {enabled: true}` (with its endpoint), or drop the check")
        criteria = suite.judge.criteria
        close = suggest(criterion, criteria)
        return CheckProblem(expected=f"a criterion of `judge.criteria`: {', '.join(criteria)}",
                            found=f"criterion {criterion!r} is not configured",
                            fix=f"add {criterion} to `judge.criteria`"
                            + (f", or {close}" if close.startswith("did you") else ""))
    return CheckProblem(expected=f"a metric produced at scope {scope}: {', '.join(produced)}",
                        found=f"{metric}, never produced there", fix=suggest(metric, produced))
