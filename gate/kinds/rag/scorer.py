"""Seed rag-evaluation: retrieval, generation and performance per system, grade, baseline vs candidate.

Per query: the retrieval metrics (`retrieval`, trec_eval's conventions), the generation metrics
(`generation`), the optional LLM grader's scores (`grader`; gate.yml's `judge:`), latency and cost. Per
system: their means (BLEU as corpus BLEU), latency percentiles, throughput, cost per query, the overall score
and grade, and the seed's issues and insights (`summary`). With a baseline run: the comparison (`compare`).
Levels: `group` = each candidate system, `baseline` = each baseline system, `comparison` = each
candidate system against each baseline system.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import gate.kinds.rag.claim_judge as claim_judge
import gate.kinds.rag.claim_scores as claim_scores
import gate.kinds.rag.compare as rag_compare
import gate.kinds.rag.grading as grading
import gate.kinds.rag.pairing as pairing
import gate.kinds.rag.summary as rag_summary
from gate.config import CheckConfig
from gate.kinds.base import Kind, ScoringContext
from gate.kinds.rag.checks import check_problem, per_query_metrics
from gate.kinds.rag.config import MODEL_KEYS, RagSuiteConfig, nli_for, rag_models
from gate.kinds.rag.generation import (
    BLEU_STATISTICS,
    corpus_bleu,
    generation_metrics,
    query_bleu_values,
    texts_to_embed,
)
from gate.kinds.rag.records import RagData, RagRecord, load_rag, system_of
from gate.kinds.rag.retrieval import retrieval_metrics
from gate.kinds.rag.statistics import item_values, rag_statistic
from gate.kinds.rag.summary import SystemSummary
from gate.kinds.samples.field import sample_columns, sample_key
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

RAG_KIND = "rag"  # the kind's name in gate.yml, the registry and every result

_H, _L = Direction.HIGHER_IS_BETTER, Direction.LOWER_IS_BETTER
METRICS = {s.name: s for s in (
    MetricSpec("mrr", _H, "Mean reciprocal rank", low=0, high=1),
    MetricSpec("ndcg", _H, "NDCG over the whole list", low=0, high=1),
    MetricSpec("context_precision", _H, "Context precision (Ragas, with reference)", low=0, high=1),
    MetricSpec("bleu", _H, "Corpus BLEU / 100 (sacrebleu)", low=0, high=1),
    MetricSpec("sentence_bleu", _H, "Mean sentence BLEU / 100", low=0, high=1),
    MetricSpec("rouge_l", _H, "Mean ROUGE-L F", low=0, high=1),
    MetricSpec("context_similarity", _H, "Answer sentences close to a context sentence (cosine, not support)", low=0,
               high=1),
    MetricSpec("claim_faithfulness", _H, "Share of answer claims the contexts entail (NLI)", low=0, high=1),
    MetricSpec("llm_claim_faithfulness", _H, "Share of claims the LLM judge finds supported (advisory)", low=0, high=1),
    MetricSpec("claim_agreement", _H, "Share of claims where the LLM judge agrees with the NLI model", low=0, high=1),
    MetricSpec("answer_relevancy", _H, "Mean cosine(query, answer)", low=-1, high=1),
    MetricSpec("latency_mean", _L, "Mean latency (s)", ".2f"), MetricSpec("latency_p50", _L, "P50 latency (s)", ".2f"),
    MetricSpec("latency_p95", _L, "P95 latency (s)", ".2f"), MetricSpec("latency_p99", _L, "P99 latency (s)", ".2f"),
    MetricSpec("throughput_qps", _H, "Queries per second", ".2f"),
    MetricSpec("cost_mean", _L, "Mean cost per query ($)", ".4f"),
    MetricSpec("cost_per_query", _L, "Cost per query ($)", ".4f"),
    MetricSpec("overall_score", _H, "Weighted overall score (0-1)", low=0, high=1),
    MetricSpec("queries", _H, "Queries", ".0f"),
    MetricSpec("regressions", _L, "Significant regressions vs the baseline", ".0f"),
    MetricSpec("improvements", _H, "Significant improvements vs the baseline", ".0f"),
)}
# k-dependent, judge and Δ metrics: precision_at_k.3, judge_accuracy, delta_mrr, ...
PATTERN = re.compile(r"^(delta_)?((precision|recall|ndcg)_at_k\.\d+|judge_[a-z0-9_]+|"
                     + "|".join(re.escape(m) for m in METRICS if m not in ("regressions", "improvements")) + ")$")
DEFAULT_CHECKS = {"overall_score": CheckConfig(min=0.75)}  # the seed's quality gate: --min-score 0.75


@dataclass(frozen=True)
class RagSettings(SuiteSettings):
    k: tuple[int, ...]
    embedding: str
    context_similarity_threshold: float
    weights: Mapping[str, float]  # of the overall score
    judge: bool  # whether the LLM grader (gate.yml's `judge:`) ran
    significance: Mapping[str, Any]  # gate.yml's `significance:` as JSON
    dataset: str
    targets: Mapping[str, Any]  # gate.yml's `targets:`
    claim_model: str | None = None  # the NLI model of claim_faithfulness; None where the suite does not measure it
    claim_threshold: float = 0.5


@dataclass(frozen=True)
class RagDetails(SuiteDetails):
    settings: RagSettings
    systems: Mapping[tuple[str, str], SystemSummary]  # (candidate | baseline, system) -> its summary
    comparisons: Mapping[str, tuple[rag_compare.Row, ...]]  # "<candidate> vs <baseline>" -> per-metric rows


@dataclass(frozen=True)
class RagItemDetails(ItemDetails):
    """A query's answers, shown side by side for the queries that got worse."""

    answer: str
    expected: str
    which: str  # candidate | baseline
    unsupported: tuple[str, ...] = ()  # the answer's claims its contexts do not entail (claim_faithfulness)
    judge_unsupported: tuple[str, ...] = ()  # the LLM judge's own claims of it, unsupported (claim_decomposition: llm)


def _records(data: RagData) -> list[tuple[str, RagRecord]]:
    return [("candidate", r) for r in data.candidates] + [("baseline", r) for r in data.baseline]


def _embedded(suite: RagSuiteConfig, records: list[tuple[str, RagRecord]],
              context: ScoringContext) -> tuple[list[str], Embeddings] | None:
    """The one model request of a RAG suite (None: it makes none): every text its generation metrics embed."""
    texts = list(dict.fromkeys(t for _, r in records for t in texts_to_embed(r))) if suite.embedding_metrics else []
    return (texts, context.runtime.embed(context.gate.embedding_for(suite), texts)) if texts else None


def plan_rag(name: str, suite: RagSuiteConfig, data: RagData, context: ScoringContext) -> None:
    records = _records(data)
    _embedded(suite, records, context)
    claim_scores.ask(suite, [r for _, r in records], context)


def score_rag(name: str, suite: RagSuiteConfig, data: RagData, context: ScoringContext) -> SuiteResult:
    records, embedding = _records(data), context.gate.embedding_for(suite)
    # `faithfulness_threshold`: the setting's name before issue 36, kept here so that blessed snapshots stay comparable
    fingerprint: dict[str, object] = {"embedding": None, "k": suite.k,
                                      "faithfulness_threshold": suite.context_similarity_threshold}
    lookup, truncation = {}, None
    if (asked := _embedded(suite, records, context)) is not None:
        texts, embedded = asked
        lookup = dict(zip(texts, np.asarray(embedded.vectors, dtype=float), strict=True))
        fingerprint["embedding"] = embedded.fingerprint.to_dict()
        truncation = embedded.truncation_note("texts (queries, answers and their sentences, context sentences)")
    judged, judge_note, not_judged, graded_tokens = grading.grade(suite, records, context)
    claims = claim_scores.score_claims(suite, [r for _, r in records], context)
    if claims is not None:  # only then: a suite without it stays comparable with its older snapshots
        fingerprint["claims"] = claims.fingerprint
    llm_claims = claim_judge.judge_claims(suite, [r for _, r in records], claims, context, graded_tokens)
    values: list[dict[str, Any]] = []  # numbers, and unsupported_claims (text)
    for index, (_, record) in enumerate(records):
        v: dict[str, Any] = {**retrieval_metrics(record, suite.k),
             **generation_metrics(record, lookup.__getitem__ if suite.embedding_metrics else None,
                                  suite.context_similarity_threshold)}
        v.update(judged.get(index, {}))
        v.update(claim_scores.item_values(claims, index))
        v.update(llm_claims.values[index] if llm_claims else {})
        v["latency"] = record.latency
        v["cost"] = rag_summary.query_cost(record, suite.cost_per_1k_tokens)
        values.append(v)
    # corpus BLEU's statistics, each query's summed over its generations (items.csv's last columns)
    for v, pooled in zip(values, query_bleu_values([((w, system_of(r, w), r.key), r) for w, r in records]),
                         strict=True):
        v.update(pooled)
    columns = per_query_metrics(suite)
    groups, gaps, summaries, judge_notes = [], [], {}, []
    for level, which in (("group", "candidate"), ("baseline", "baseline")):
        for system in dict.fromkeys(system_of(r, which) for w, r in records if w == which):
            rows = [i for i, (w, r) in enumerate(records) if w == which and system_of(r, which) == system]
            lost, partly = grading.not_judged(rows, not_judged)
            metrics, summary = _system([records[i][1] for i in rows], [values[i] for i in rows], columns, suite,
                                       lost)
            key: Key = (("system", system),)
            groups.append(GroupResult(level, key, metrics, len(rows), _sources(records[i][1] for i in rows)))
            gaps += [Unmeasured(key, m, lost.get(m, "no query has the data for it"))
                     for m, v in metrics.items() if v is None]
            gaps += [Unmeasured((("run", which), ("system", system), ("id", records[i][1].key),
                                 *sample_key(records[i][1].sample)), metric, reason)
                     for i in rows for metric, reason in not_judged.get(i, {}).items()]
            judge_notes += [f"{system}: {metric} is the mean over {len(rows) - k} of {len(rows)} queries; {k} the "
                            "judge could not score are listed as unmeasured (at most "
                            f"{grading.GRADER_MAX_UNSCORED:.0%} may be, so the mean is within that share of the full "
                            "sample's)"
                            for metric, k in partly.items()]
            summaries[(which, system)] = (rows, metrics, summary)
    comparisons, unpaired = pairing.comparisons(records, values, columns, summaries, suite)
    for (system, base), compared in comparisons.items():
        key = (("system", system), ("baseline", base))
        metrics = rag_compare.comparison_metrics(compared)
        groups.append(GroupResult("comparison", key, metrics, len(compared)))
        gaps += [Unmeasured(key, m, "not measured for both runs") for m, v in metrics.items() if v is None]
    notes = [n for n in (judge_note, truncation, llm_claims and llm_claims.note) if n] + judge_notes + unpaired + list(
        claims.notes if claims else ())
    for (_, system), (_, _, summary) in summaries.items():
        if summary.left_out:
            notes.append(f"{system}: the overall score leaves out {', '.join(summary.left_out)} (unmeasured) "
                         "and rescales the other weights.")
    return SuiteResult(
        name=name, kind=RAG_KIND, metrics={}, groups=tuple(groups),
        items=tuple(_item(records[i][1], records[i][0], values[i], columns,
                          claims.answers[i].unsupported if claims else (),
                          llm_claims.unsupported[i] if llm_claims else ())
                    for i in range(len(records))),
        item_columns=("id", "system", "query", *sample_columns(r.sample for _, r in records), *columns,
                      *BLEU_STATISTICS, *(("unsupported_claims",) if claims else ()),
                      *(("llm_unsupported_claims",) if llm_claims and suite.claim_decomposition == "llm" else ())),
        unmeasured=tuple(gaps), fingerprint=fingerprint,
        details=RagDetails(
            RagSettings(k=tuple(suite.k), embedding=embedding,
                        context_similarity_threshold=suite.context_similarity_threshold,
                        weights=dict(suite.overall_weights), judge=suite.judge.enabled,
                        significance=suite.significance.model_dump(mode="json"), dataset=suite.dataset_name or name,
                        targets=suite.targets.model_dump(),
                        claim_model=nli_for(context.gate, suite) if suite.claim_faithfulness else None,
                        claim_threshold=suite.claim_threshold),
            systems={key: summary for key, (_, _, summary) in summaries.items()},
            comparisons={f"{s} vs {b}": tuple(rows) for (s, b), rows in comparisons.items()}),
        notes=tuple(notes),
    )


def _system(records: Sequence[RagRecord], values: Sequence[dict], columns: Sequence[str],
            suite: RagSuiteConfig, lost: Mapping[str, str]) -> tuple[dict[str, float | None], SystemSummary]:
    metrics: dict[str, float | None] = {}
    for column in columns:
        measured = [v[column] for v in values if v.get(column) is not None]
        name = rag_compare.SUMMARY_NAME.get(column, column)
        metrics[name] = math.fsum(measured) / len(measured) if measured and name not in lost else None
    answered = [(r.actual_answer, r.expected_answer) for r in records
                if r.actual_answer.strip() and r.expected_answer and r.expected_answer.strip()]
    metrics["bleu"] = corpus_bleu([a for a, _ in answered], [e for _, e in answered])
    metrics.update(rag_summary.performance(records, suite.cost_per_1k_tokens))
    score, left_out = rag_summary.overall(metrics, suite.overall_weights, max(suite.k))
    metrics["overall_score"] = score
    metrics["queries"] = float(len({r.key for r in records}))  # several samples of a query count once
    letter = rag_summary.grade(score)
    return metrics, SystemSummary(letter, tuple(left_out), len(records),
                                  tuple(rag_summary.issues(metrics, suite.targets, max(suite.k))),
                                  tuple(rag_summary.insights(metrics, letter, suite.targets)))


TEXT_COLUMNS = ("unsupported_claims", "llm_unsupported_claims")  # items.csv's text columns, after the numbers


def _sources(records):
    return tuple(r.source_ref for r in records if r.source_ref)


def _item(record: RagRecord, which: str, values: dict, columns: Sequence[str], unsupported: tuple[str, ...],
          judge_unsupported: tuple[str, ...]) -> Item:
    system = system_of(record, which)
    extra = tuple(c for c in TEXT_COLUMNS if c in values)
    return Item(key=(("id", record.key), ("system", system), ("query", record.query), *sample_key(record.sample)),
                values={c: values.get(c) for c in (*columns, *BLEU_STATISTICS, *extra)}, source=record.source_ref,
                details=RagItemDetails(record.actual_answer, record.expected_answer or "", which, unsupported,
                                       judge_unsupported))


RAG = Kind(
    kind=RAG_KIND, config_model=RagSuiteConfig, metrics=METRICS, group_fields=("system",),
    levels=("baseline", "comparison"), default_checks=DEFAULT_CHECKS, load=load_rag, score=score_rag, plan=plan_rag,
    models_of=rag_models, model_keys=MODEL_KEYS, metric_pattern=PATTERN, check_problem=check_problem,
    item_columns_of=item_values,
    item_means={"mrr": "reciprocal_rank", "latency_mean": "latency", "cost_mean": "cost", "sentence_bleu": "bleu",
                "bleu": ""},  # corpus BLEU is not the mean of sentence BLEU
    item_statistic=lambda suite, metric: rag_statistic(suite, metric, grading.GRADER_MAX_UNSCORED),
)
