"""The RAG suite's report view: per system grade and metrics, the seed's baseline-vs-enhanced table
with Δ% and significance, issues and insights, the queries that got worse, and (with claim_faithfulness) the
answers with the most claims their contexts do not entail."""

from __future__ import annotations

from typing import Any

from gate.judge import SuiteVerdict
from gate.kinds.rag.compare import Row
from gate.kinds.rag.scorer import RagDetails, RagItemDetails
from gate.report.escape import inert
from gate.report.formatting import icon, number
from gate.results import Item, SuiteResult, details_as

SECTIONS = (  # (title, metrics)
    ("Retrieval", ("mrr", "ndcg", "context_precision")),
    ("Generation", ("bleu", "rouge_l", "context_similarity", "answer_relevancy")),
    ("Performance", ("latency_p50", "latency_p95", "latency_p99", "throughput_qps", "cost_per_query")),
)
FORMATS = {"latency_p50": ".2f", "latency_p95": ".2f", "latency_p99": ".2f", "throughput_qps": ".2f",
           "cost_per_query": ".4f", "latency_mean": ".2f", "cost_mean": ".4f"}
UNITS = {"latency_p50": "s", "latency_p95": "s", "latency_p99": "s", "latency_mean": "s"}


def _sections(claims: bool) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """SECTIONS, with claim_faithfulness beside context_similarity where the suite measures it."""
    if not claims:
        return SECTIONS
    return tuple((t, tuple(x for m in ms for x in ((m, "claim_faithfulness") if m == "context_similarity" else (m,))))
                 for t, ms in SECTIONS)


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result = suite.result
    details = details_as(result.details, RagDetails)
    settings = details.settings
    sections = _sections(settings.claim_model is not None)
    k = settings.k
    systems = [(g, "candidate", "group") for g in result.groups_at("group")] + \
              [(g, "baseline", "baseline") for g in result.groups_at("baseline")]
    columns = [f"{m}.{n}" for m in ("precision_at_k", "recall_at_k", "ndcg_at_k") for n in k]
    table = []
    for group, which, level in systems:
        name = dict(group.key)["system"]
        summary = details.systems.get((which, name))
        verdict = suite.group_shown(level, group.key)
        table.append({
            "system": inert(name, limit=60) + (" (baseline)" if which == "baseline" else ""),
            "icon": icon(verdict) if verdict else "", "grade": (summary.grade if summary else None) or "—",
            "overall": number(group.metrics.get("overall_score")), "n": group.n,
            "sections": {title: [_value(group.metrics, m) for m in metrics] for title, metrics in sections},
            "at_k": [_value(group.metrics, c) for c in columns],
            "issues": [inert(i, limit=200) for i in (summary.issues if summary else ())],
            "insights": [inert(i, limit=200) for i in (summary.insights if summary else ())],
        })
    comparisons = []
    for title, rows in details.comparisons.items():
        comparisons.append({"title": inert(title), "rows": [_row(r) for r in rows if _measured(r)]})
    return {
        "settings": f"k = {', '.join(map(str, k))} · embedding <code>{inert(settings.embedding)}</code> · "
                    f"context_similarity: answer sentences with cosine ≥ "
                    f"{settings.context_similarity_threshold:g} to a context sentence · "
                    + _claims_setting(settings.claim_model, settings.claim_threshold)
                    + f"{'LLM judge on' if settings.judge else 'no LLM judge'}",
        "sections": [{"title": t, "metrics": list(m)} for t, m in sections],
        "at_k_columns": [c.replace("_at_k.", "@") for c in columns],  # ours, no escaping needed
        "systems": table,
        "comparisons": comparisons,
        "worse": _worse(result, worst_items),
        "unsupported": _unsupported(result, worst_items),
    }


def _claims_setting(model: str | None, threshold: float) -> str:
    if model is None:
        return ""
    return (f"claim_faithfulness: answer sentences entailed by the contexts, P(entailment) ≥ {threshold:g} with NLI "
            f"model <code>{inert(model)}</code> · ")


def _unsupported(result: SuiteResult, count: int) -> list[dict[str, Any]]:
    """The candidate answers with an unsupported claim — the NLI model's sentences, or the LLM judge's own claims
    (`claim_decomposition: llm`, advisory) — lowest claim_faithfulness first (then the judge's share)."""
    def worst_first(item: Item) -> tuple[float, float]:
        nli, llm = item.values.get("claim_faithfulness"), item.values.get("llm_claim_faithfulness")
        return (nli if isinstance(nli, float) else 1.0, llm if isinstance(llm, float) else 1.0)

    def shown(claims: tuple[str, ...], column: str, title: str | None = None) -> dict[str, Any]:
        return {"title": title, "claims": [inert(c, limit=300, newline=" ") for c in claims[:5]],
                "more": max(0, len(claims) - 5), "column": column}

    found = sorted((item for item in result.items if _said(item).which == "candidate"
                    and (_said(item).unsupported or _said(item).judge_unsupported)), key=worst_first)
    return [{"query": inert(dict(item.key).get("query", ""), limit=200, newline=" "),
             "system": inert(dict(item.key).get("system", ""), limit=60),
             "score": number(item.values.get("claim_faithfulness")),
             "judge_score": (number(item.values.get("llm_claim_faithfulness"))
                             if _said(item).judge_unsupported else None),
             "lists": [shown(_said(item).unsupported, "unsupported_claims"),
                       shown(_said(item).judge_unsupported, "llm_unsupported_claims",
                             "The LLM judge's own claims it found unsupported (advisory):")]}
            for item in found[:count]]


def _value(metrics, name: str) -> str:
    return number(metrics.get(name), FORMATS.get(name, ".3f")) + (UNITS.get(name, "") if metrics.get(name) is not None
                                                                   else "")


def _row(row: Row) -> dict[str, str]:
    """A comparison row as shown: Baseline and Candidate are the values Δ% is the change between (per-query
    metrics: the means over the n paired queries), so the two never disagree in sign; a system's own mean over
    more queries is named in the evidence, and shown alone (without Δ%) where no query was measured in both."""
    fmt = FORMATS.get(row.metric, ".3f")
    pct = row.delta_pct
    lower = row.metric in ("latency_mean", "cost_mean", "latency_p50", "latency_p95", "latency_p99", "cost_per_query")
    if pct is None:
        change = "—"
    elif lower:
        change = f"{abs(pct):.1f}% {'faster' if 'latency' in row.metric else 'cheaper'}" if pct < 0 else \
            f"{pct:.1f}% {'slower' if 'latency' in row.metric else 'dearer'}"
    else:
        change = f"{pct:+.1f}%"
    if row.low is not None and row.method and "bootstrap" in row.method:
        evidence = f"CI [{format(row.low, '+' + fmt)}, {format(row.high, '+' + fmt)}], n={row.n} paired"
    elif row.p_value is not None:
        evidence = f"p={row.p_value:.3g}, n={row.n} paired"
    elif row.n == 0:
        evidence = "no query measured in both: each system's own mean"
    else:
        evidence = f"n={row.n} paired" if row.n else "system-level"
    if row.n and _subset(row.n, row):  # the paired means are over fewer queries than a system measured
        evidence += (f"; each system's mean over all its queries: {number(row.system_baseline, fmt)} "
                     f"({row.n_baseline}) → {number(row.system_candidate, fmt)} ({row.n_candidate})")
    mark = {"improvement": "✅ improvement", "regression": "⚠️ regression"}.get(row.outcome, "")
    base, cand = (row.baseline, row.candidate) if row.n != 0 else (row.system_baseline, row.system_candidate)
    # metric names are ours (judge criteria are validated to letters, digits and '_'): no escaping needed
    return {"metric": row.metric.replace("_at_k.", "@"), "baseline": number(base, fmt),
            "candidate": number(cand, fmt), "change": change, "evidence": evidence, "mark": mark}


def _measured(row: Row) -> bool:
    return any(v is not None for v in (row.baseline, row.candidate, row.delta, row.system_baseline,
                                       row.system_candidate))


def _subset(n: int, row: Row) -> bool:
    """Whether the n paired queries are fewer than a system measured (its mean is then over more queries)."""
    return any(side is not None and n < side for side in (row.n_baseline, row.n_candidate))


def _worse(result: SuiteResult, count: int) -> list[dict[str, str]]:
    """Queries whose reciprocal rank or ROUGE-L dropped most against the baseline (`pairing`'s pairs)."""
    by_key: dict[tuple[str, str], dict[str, Item]] = {}
    for item in result.items:  # paired as the comparison pairs them: the same id asking the same question
        key = dict(item.key)
        by_key.setdefault((key["id"], " ".join(str(key.get("query", "")).split())), {})[_said(item).which] = item
    drops: list[tuple[float, dict[str, Item]]] = []
    for pair in by_key.values():
        if "candidate" not in pair or "baseline" not in pair:
            continue
        c, b = pair["candidate"].values, pair["baseline"].values
        delta = sum((c.get(m) or 0.0) - (b.get(m) or 0.0) for m in ("reciprocal_rank", "rouge_l"))
        if delta < 0:
            drops.append((delta, pair))
    drops.sort(key=lambda d: d[0])
    return [{"query": inert(pair["candidate"].key[2][1], limit=200, newline=" "),
             "rr": f"{number(pair['baseline'].values.get('reciprocal_rank'))} → "
                   f"{number(pair['candidate'].values.get('reciprocal_rank'))}",
             "rouge": f"{number(pair['baseline'].values.get('rouge_l'))} → "
                      f"{number(pair['candidate'].values.get('rouge_l'))}",
             "baseline": inert(_said(pair["baseline"]).answer, limit=500),
             "candidate": inert(_said(pair["candidate"]).answer, limit=500),
             "expected": inert(_said(pair["candidate"]).expected, limit=300)} for _, pair in drops[:count]]


def _said(item: Item) -> RagItemDetails:
    return details_as(item.details, RagItemDetails)
