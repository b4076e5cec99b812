"""RAG records with a `sample` index: several generations per query, in `records:` and `baseline:` (issue 20).

Reciprocal ranks are worked by hand: the one relevant document "g" at rank r scores 1/r.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import partial

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.kinds.base import ScoringContext
from gate.kinds.rag import RAG, score_rag
from gate.kinds.rag.config import RagSuiteConfig, Significance
from gate.kinds.rag.records import load_rag
from gate.kinds.samples import collapse
from tests.support.fake_runtime import FakeRuntime

# query -> the rank of "g" in each of its three candidate generations
RANKS = {0: (1, 1, 1), 1: (1, 2, 3), 2: (3, 3, 2), 3: (2, 1, 2)}


def record(i: int, rank: int = 3, sample=None, **extra) -> dict:
    retrieved = ["x", "y", "z"]
    retrieved[rank - 1] = "g"
    return {"id": f"q{i}", "query": f"question {i}?", "actual_answer": "An answer.", "expected_answer": "An answer.",
            "retrieved_ids": retrieved, "ground_truth_ids": ["g"], "latency": 0.5,
            **({} if sample is None else {"sample": sample}), **extra}


def write(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def suite(baseline: bool) -> RagSuiteConfig:
    return RagSuiteConfig(kind="rag", records=["c.jsonl"], baseline=["b.jsonl"] if baseline else None,
                          embedding_metrics=False, significance=Significance(resamples=500))


def run(directory, candidate, baseline=None):
    write(directory / "c.jsonl", candidate)
    if baseline:
        write(directory / "b.jsonl", baseline)
    config = suite(bool(baseline))
    context = ScoringContext(GateConfig(version=1, suites={"r": config}), FakeRuntime(), directory)
    return score_rag("r", config, load_rag("r", config, directory), context)


def problems(directory, candidate, baseline=None) -> list:
    with pytest.raises(InputError) as caught:
        run(directory, candidate, baseline)
    return list(caught.value.problems)


SAMPLED = [record(i, rank, s) for i, ranks in RANKS.items() for s, rank in enumerate(ranks)]
PER_QUERY_RR = {i: sum(Fraction(1, r) for r in ranks) / 3 for i, ranks in RANKS.items()}  # 1, 11/18, 7/18, 2/3


def test_three_samples_per_query_load_and_key_each_generation(in_tmp):
    result = run(in_tmp, SAMPLED)
    assert len(result.items) == 12
    assert result.items[1].key == (("id", "q0"), ("system", "candidate"), ("query", "question 0?"), ("sample", "1"))
    assert result.item_columns[:4] == ("id", "system", "query", "sample")
    assert result.groups_at("group")[0].metrics["queries"] == 4  # queries, not generations


@pytest.mark.parametrize("baseline_sampled", [False, True])
def test_the_comparison_pairs_each_querys_mean_over_its_samples(in_tmp, baseline_sampled):
    baseline = ([record(i, 3, s) for i in RANKS for s in range(3)] if baseline_sampled
                else [record(i, 3) for i in RANKS])
    result = run(in_tmp, SAMPLED, baseline)
    [rows] = result.details.comparisons.values()
    mrr = next(r for r in rows if r.metric == "mrr")
    assert mrr.n == 4 and mrr.n_candidate == 4 and mrr.n_baseline == 4  # one pair per query
    expected = sum(PER_QUERY_RR.values()) / 4 - Fraction(1, 3)  # 2/3 − 1/3; the last sample alone would give 1/4
    assert mrr.delta == pytest.approx(float(expected))
    assert (mrr.baseline, mrr.candidate) == (pytest.approx(1 / 3), pytest.approx(2 / 3))  # Δ's own means
    assert result.groups_at("comparison")[0].metrics["delta_mrr"] == pytest.approx(1 / 3)


def test_a_candidate_without_samples_still_compares_with_a_sampled_baseline(in_tmp):
    baseline = [record(i, 3, s) for i in RANKS for s in range(3)]
    result = run(in_tmp, [record(i, 1) for i in RANKS], baseline)
    [rows] = result.details.comparisons.values()
    mrr = next(r for r in rows if r.metric == "mrr")
    assert (mrr.n, mrr.delta) == (4, pytest.approx(2 / 3))


def test_collapsed_items_are_each_querys_mean(in_tmp):
    result = run(in_tmp, SAMPLED, [record(i, 3) for i in RANKS])
    merged = collapse(result, partial(RAG.statistic, suite(True), columns=tuple(result.items[0].values)))
    candidate = [i for i in merged.items if dict(i.key)["system"] == "candidate"]
    assert [i.draws for i in candidate] == [3, 3, 3, 3]
    assert [i.values["reciprocal_rank"] for i in candidate] == pytest.approx([float(v) for v in PER_QUERY_RR.values()])
    assert merged.groups_at("group")[0].metrics["mrr"] == pytest.approx(2 / 3)


def test_the_same_query_and_sample_twice_is_a_located_duplicate_in_either_file(in_tmp):
    [found] = problems(in_tmp, [record(0, 1, 0), record(0, 1, 1), record(0, 2, 1)])
    assert (found.file, found.line, found.field) == ("c.jsonl", 3, "sample")
    assert "id 'q0' with sample '1' again (first at c.jsonl:2)" in found.found
    [found] = problems(in_tmp, [record(0, 1, 0)], [record(0, 1, "s1"), record(0, 1, "s1")])
    assert (found.file, found.line, found.field) == ("b.jsonl", 2, "sample")


def test_samples_of_a_query_without_id_are_told_apart_by_the_query_text(in_tmp):
    rows = [{k: v for k, v in record(0, 1, s).items() if k != "id"} for s in range(3)]
    result = run(in_tmp, rows)
    assert [dict(i.key)["id"] for i in result.items] == ["question 0?"] * 3
    [found] = problems(in_tmp, rows + [rows[0]])
    assert found.line == 4 and "query 'question 0?' with sample '0' again" in found.found


def test_mixing_records_with_and_without_sample_is_a_located_error(in_tmp):
    [found] = problems(in_tmp, [record(0, 1, 0), record(1, 1), record(0, 1)])
    assert (found.file, found.line, found.field) == ("c.jsonl", 3, "sample")
    assert "mixes records with and without `sample`" in found.render() and "c.jsonl:1" in found.render()
    [found] = problems(in_tmp, [record(0, 1)], [record(0, 1), record(0, 2, 2)])
    assert (found.file, found.line) == ("b.jsonl", 2)


@pytest.mark.parametrize("value", [-2, False, "", 0.5])
def test_a_sample_that_is_no_index_is_a_located_error(in_tmp, value):
    [found] = problems(in_tmp, [record(0, 1, value)])
    assert (found.line, found.field) == (1, "sample") and "non-negative whole number" in found.expected


def test_without_samples_keys_and_columns_are_unchanged(in_tmp):
    result = run(in_tmp, [record(i, 1) for i in RANKS], [record(i, 3) for i in RANKS])
    assert result.items[0].key == (("id", "q0"), ("system", "candidate"), ("query", "question 0?"))
    assert "sample" not in result.item_columns
    assert collapse(result, lambda metric: None) is result
