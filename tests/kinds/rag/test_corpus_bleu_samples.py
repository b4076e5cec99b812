"""A system's corpus BLEU with repeated samples is sacrebleu's corpus BLEU over every answer it gave, each
generation one segment (issue 35, item 11): it was computed from each query's averaged, fractional n-gram counts.

References: `sacrebleu.corpus_bleu` on the raw answers (over all of them, and over the answers of each query for
its items.csv row), and sacrebleu's own `BLEU.compute_bleu` on the column sums of items.csv as read back. No gate
code computes an expected value."""

from __future__ import annotations

import csv
import json
import random
from functools import partial

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics.bleu import BLEU as SacreBLEU

from gate import io
from gate.config import GateConfig
from gate.kinds.base import ScoringContext
from gate.kinds.rag import RAG, score_rag
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.generation import BLEU_STATISTICS
from gate.kinds.rag.records import load_rag
from gate.kinds.samples import collapse
from gate.report import item_rows
from tests.kinds.rag.test_statistics import pairs
from tests.support.fake_runtime import FakeRuntime

DRAWS = (1, 2, 5, 3, 1, 4, 2, 1, 3, 2)  # generations per query: uneven on purpose


def records(seed: int, sampled: bool) -> list[dict]:
    """Queries with DRAWS[q] generations each (one without `sample`); q3 answers nothing in any generation, q5 has
    no expected answer, and some other generations are empty: none of those count in the corpus."""
    rng = random.Random(seed)
    pool = iter(pairs(seed, 40))
    rows = []
    for q, draws in enumerate(DRAWS):
        reference = next(pool)[1]
        for s in range(draws if sampled else 1):
            answer = next(pool)[0] if q != 3 and rng.random() > 0.15 else ""
            rows.append({"id": f"q{q}", "query": f"question {q}?", "actual_answer": answer,
                         "expected_answer": None if q == 5 else reference, "latency": 0.5,
                         **({"sample": s} if sampled else {})})
    return rows


def counted(rows: list[dict], query: str | None = None) -> tuple[list[str], list[str]]:
    """The answers the corpus counts (an answer and an expected answer), with their references."""
    kept = [r for r in rows if r["actual_answer"].strip() and r["expected_answer"]
            and (query is None or r["id"] == query)]
    return [r["actual_answer"] for r in kept], [r["expected_answer"] for r in kept]


def score(directory, candidate: list[dict], baseline: list[dict]):
    for name, rows in (("c.jsonl", candidate), ("b.jsonl", baseline)):
        (directory / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], baseline=["b.jsonl"], embedding_metrics=False,
                           overall_weights={"bleu": 1.0})
    context = ScoringContext(GateConfig(version=1, suites={"r": suite}), FakeRuntime(), directory)
    result = score_rag("r", suite, load_rag("r", suite, directory), context)
    # as the run does (gate.steps.suites): the generations of a query become one item
    return suite, result, collapse(result, partial(RAG.statistic, suite, columns=result.value_names()))


def csv_rows(directory, result) -> list[dict[str, str]]:
    io.write_csv_atomic(directory / "items.csv", result.item_columns, item_rows(result))
    with (directory / "items.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def sacrebleu_of_sums(rows: list[dict[str, str]]) -> float:
    """sacrebleu's own `compute_bleu` (corpus defaults: exp smoothing) on items.csv's column sums."""
    sums = [round(sum(float(r[c]) for r in rows if r[c] != "")) for c in BLEU_STATISTICS]
    return SacreBLEU.compute_bleu(correct=sums[2:6], total=sums[6:], sys_len=sums[0], ref_len=sums[1],
                                  smooth_method="exp").score / 100


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("sampled", [True, False])
def test_corpus_bleu_pools_every_generation_as_sacrebleu_does(tmp_path, seed, sampled):
    candidate, baseline = records(seed, sampled), records(seed + 10, False)
    suite, raw, merged = score(tmp_path, candidate, baseline)
    for which, rows in (("group", candidate), ("baseline", baseline)):
        answers, references = counted(rows)
        expected = sacrebleu.corpus_bleu(answers, [references]).score / 100
        [scored] = raw.groups_at(which)
        [group] = merged.groups_at(which)
        assert scored.metrics["bleu"] == pytest.approx(expected, rel=1e-12, abs=1e-15)
        assert group.metrics["bleu"] == pytest.approx(expected, rel=1e-12, abs=1e-15)  # recomputed from items
        assert group.metrics["overall_score"] == pytest.approx(expected, rel=1e-12, abs=1e-15)  # bleu alone
    assert merged.groups_at("group")[0].metrics["bleu"] != pytest.approx(  # the corpora differ
        merged.groups_at("baseline")[0].metrics["bleu"])


@pytest.mark.parametrize("sampled", [True, False])
def test_items_csv_holds_each_querys_summed_statistics_and_reproduces_the_group(tmp_path, sampled):
    candidate = records(4, sampled)
    _, _, merged = score(tmp_path, candidate, records(14, False))
    rows = [r for r in csv_rows(tmp_path, merged) if r["system"] == "candidate"]
    assert len(rows) == len(DRAWS)
    for row in rows:
        answers, references = counted(candidate, row["id"])
        if not answers:  # q3 answered nothing, q5 has no reference: no statistics, left out of the corpus
            assert all(row[c] == "" for c in BLEU_STATISTICS), row["id"]
            continue
        theirs = sacrebleu.corpus_bleu(answers, [references])  # this query's answers alone, summed by sacrebleu
        assert [float(row[c]) for c in BLEU_STATISTICS] == [theirs.sys_len, theirs.ref_len, *theirs.counts,
                                                             *theirs.totals], row["id"]
    if sampled:
        assert [int(r["draws"]) for r in rows] == list(DRAWS)
    answers, references = counted(candidate)
    expected = sacrebleu.corpus_bleu(answers, [references]).score / 100
    assert sacrebleu_of_sums(rows) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert float(merged.groups_at("group")[0].metrics["bleu"]) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_the_significance_statistic_recomputes_sacrebleu_on_resampled_queries(tmp_path):
    """What a change test computes on resampled items is sacrebleu's corpus BLEU of the resampled queries'
    answers, every generation of a query drawn with it."""
    candidate = records(5, True)
    suite, _, merged = score(tmp_path, candidate, records(15, False))
    items = [i for i in merged.items if dict(i.key)["system"] == "candidate"]
    statistic = RAG.statistic(suite, "bleu", merged.value_names())
    assert statistic is not None and statistic.columns == BLEU_STATISTICS
    values = np.array([[np.nan if i.values[c] is None else i.values[c] for c in statistic.columns] for i in items])
    rng = np.random.default_rng(7)
    draws = rng.integers(0, len(items), size=(40, len(items)))
    found = statistic.compute(values[draws])
    for resample, value in zip(draws, found, strict=True):
        answers, references = [], []
        for index in resample:
            a, r = counted(candidate, dict(items[index].key)["id"])
            answers += a
            references += r
        expected = sacrebleu.corpus_bleu(answers, [references]).score / 100 if answers else np.nan
        assert value == pytest.approx(expected, rel=1e-9, abs=1e-15, nan_ok=True)
