"""Retrieval metrics agree with trec_eval (pytrec_eval) on random runs, graded and binary."""

from __future__ import annotations

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.kinds.rag.records import RagRecord
from gate.kinds.rag.retrieval import context_precision, retrieval_metrics

CUTOFFS = (1, 3, 5, 10)
DOCS = [f"d{i}" for i in range(12)]


def record(retrieved, truth, grades=None, **extra) -> RagRecord:
    return RagRecord(query="q", actual_answer="a", retrieved_ids=retrieved, ground_truth_ids=truth,
                     ground_truth_relevance=grades, **extra)


def trec(retrieved, gains) -> dict[str, float]:
    qrels = {"q": {doc: int(g) for doc, g in gains.items()}}
    run = {"q": {doc: float(len(retrieved) - rank) for rank, doc in enumerate(retrieved)}}
    measures = {f"{m}_{k}" for m in ("P", "recall", "ndcg_cut") for k in CUTOFFS} | {"recip_rank", "ndcg"}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)["q"]


queries = st.tuples(
    st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True),
    st.dictionaries(st.sampled_from(DOCS), st.integers(min_value=0, max_value=3), min_size=1, max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(queries)
def test_agrees_with_trec_eval(query):
    retrieved, judged = query
    truth, grades = list(judged), [float(g) for g in judged.values()]
    ours = retrieval_metrics(record(retrieved, truth, grades), CUTOFFS)
    theirs = trec(retrieved, judged)
    if not any(g > 0 for g in grades):
        # trec_eval leaves out a query without relevant documents; we report it unmeasured
        assert all(ours[f"{m}.{k}"] is None for m in ("recall_at_k", "ndcg_at_k") for k in CUTOFFS)
        assert ours["ndcg"] is None and ours["context_precision"] is None
        return
    for k in CUTOFFS:
        assert ours[f"precision_at_k.{k}"] == pytest.approx(theirs[f"P_{k}"], abs=1e-9)
        assert ours[f"recall_at_k.{k}"] == pytest.approx(theirs[f"recall_{k}"], abs=1e-9)
        assert ours[f"ndcg_at_k.{k}"] == pytest.approx(theirs[f"ndcg_cut_{k}"], abs=1e-9)
    assert ours["reciprocal_rank"] == pytest.approx(theirs["recip_rank"], abs=1e-9)
    assert ours["ndcg"] == pytest.approx(theirs["ndcg"], abs=1e-9)


def test_hand_worked_example():
    # relevant: d1 (rank 2), d4 (rank 4); d9 relevant but not retrieved
    values = retrieval_metrics(record(["d0", "d1", "d2", "d4", "d5"], ["d1", "d4", "d9"]), (1, 3, 5))
    assert values["precision_at_k.1"] == 0.0 and values["precision_at_k.3"] == pytest.approx(1 / 3)
    assert values["precision_at_k.5"] == pytest.approx(2 / 5)
    assert values["recall_at_k.5"] == pytest.approx(2 / 3)
    assert values["reciprocal_rank"] == 0.5
    assert values["context_precision"] == pytest.approx((1 / 2 + 2 / 4) / 2)  # Ragas: mean of P@k at hits


def test_relevance_by_normalised_text_when_no_ids():
    r = RagRecord(query="q", actual_answer="a", retrieved_contexts=["Refunds  take\n5 days.", "Other"],
                  ground_truth_contexts=["Refunds take 5 days."])
    assert retrieval_metrics(r, (1,))["precision_at_k.1"] == 1.0


def test_duplicates_count_once_and_missing_data_is_unmeasured():
    values = retrieval_metrics(record(["d1", "d1", "d2"], ["d1", "d2"]), (2,))
    assert values["precision_at_k.2"] == 1.0  # the list is d1, d2 once each
    blank = retrieval_metrics(RagRecord(query="q", actual_answer="a"), (1,))
    assert all(v is None for v in blank.values())
    no_relevant = retrieval_metrics(record(["d1"], []), (1,))
    assert no_relevant["precision_at_k.1"] == 0.0 and no_relevant["reciprocal_rank"] == 0.0
    assert no_relevant["recall_at_k.1"] is None and no_relevant["context_precision"] is None


@pytest.mark.parametrize("relevant, expected", [
    ([True, True, True], 1.0), ([False, True], 0.5), ([False, False], 0.0), ([True, False, True], (1 + 2 / 3) / 2),
])
def test_context_precision(relevant, expected):
    assert context_precision(relevant) == pytest.approx(expected)
