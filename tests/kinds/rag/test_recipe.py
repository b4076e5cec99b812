"""RAG's generation recipe: queries → one call per (query, model, sample) to the user's pipeline → the seed's test
samples, with what the pipeline reported beside its answer, loaded by the kind's reader and scored (no model)."""

from __future__ import annotations

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.generate.providers.types import Message, Response, Usage
from gate.kinds import get_kind
from gate.kinds.base import ScoringContext
from gate.kinds.rag import score_rag
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.recipe import calls, measured, records
from gate.kinds.rag.records import load_rag
from tests.support.fake_runtime import FakeRuntime
from tests.support.recipes import answer, generate, user_text, write_rows

QUERIES = [{"id": "q1", "query": "How long is the refund window?", "expected_answer": "14 days.",
            "ground_truth_ids": ["refunds-1"], "topic": "billing"},
           {"id": 2, "query": "Which payment methods are accepted?", "ground_truth_ids": ["billing-3"]}]
SUITE = RagSuiteConfig(kind="rag", records=["outputs/*.jsonl"], embedding_metrics=False)
PIPELINE = {"q1": ["refunds-1", "pricing-2"], "2": ["pricing-2", "billing-3"]}


def reply(call) -> Response:
    """The pipeline's answer: its retrieval in `extra`, its timing and tokens where it reports them."""
    ids = PIPELINE[call.fields["id"]]
    extra = {"retrieved_ids": ids, "retrieved_contexts": [f"text of {i}" for i in ids], "latency": 0.4,
             "tokens": {"prompt": 300, "completion": 20}, "cost": 0.002} if call.fields["id"] == "q1" else \
        {"retrieved_ids": ids, "retrieved_contexts": [f"text of {i}" for i in ids]}
    return Response(f"answer to {call.fields['id']}", usage=Usage(120, 9), latency_s=0.9, cost_usd=None,
                    model_version="rag-1.2", extra=extra)


def score(directory):
    context = ScoringContext(GateConfig(version=1, suites={"r": SUITE}), FakeRuntime(), directory)
    return score_rag("r", SUITE, load_rag("r", SUITE, directory), context)


def test_one_call_per_query_and_the_fields_known_before_the_answer(tmp_path):
    write_rows(tmp_path / "queries.jsonl", QUERIES)
    found = calls("r", SUITE, generate(dataset="queries.jsonl", models=["rag-app"]), tmp_path)
    assert [c.request.messages for c in found] == [(Message("user", q["query"]),) for q in QUERIES]
    assert dict(found[0].fields) == {"id": "q1", "query": QUERIES[0]["query"], "expected_answer": "14 days.",
                                     "ground_truth_ids": ["refunds-1"], "model": "rag-app"}
    custom = calls("r", SUITE, generate(dataset="queries.jsonl", prompt="[{id}] {query}"), tmp_path)
    assert user_text(custom[1]) == "[2] Which payment methods are accepted?"
    several = calls("r", SUITE, generate(dataset="queries.jsonl", models=["v1", "v2"]), tmp_path)
    assert [c.fields["system"] for c in several] == ["v1", "v2", "v1", "v2"]  # each model its own system
    assert get_kind("rag").generation.reads == "records"


def test_records_are_the_seeds_test_samples_and_score(tmp_path):
    write_rows(tmp_path / "queries.jsonl", QUERIES)
    written = records(SUITE, generate(), answer(calls("r", SUITE, generate(dataset="queries.jsonl"), tmp_path),
                                                reply))
    assert written[0] == {"id": "q1", "query": QUERIES[0]["query"], "expected_answer": "14 days.",
                          "ground_truth_ids": ["refunds-1"], "model": "m", "actual_answer": "answer to q1",
                          "retrieved_ids": ["refunds-1", "pricing-2"],
                          "retrieved_contexts": ["text of refunds-1", "text of pricing-2"], "latency": 0.4,
                          "prompt_tokens": 300, "completion_tokens": 20, "cost": 0.002, "model_version": "rag-1.2"}
    # the second reports no timing, tokens or cost: the response's own latency and usage stand in
    assert (written[1]["latency"], written[1]["prompt_tokens"], written[1]["completion_tokens"]) == (0.9, 120, 9)
    assert "cost" not in written[1]
    write_rows(tmp_path / "outputs" / "r.jsonl", written)
    result = score(tmp_path)
    rr = {dict(i.key)["id"]: i.values["reciprocal_rank"] for i in result.items}
    assert rr == {"q1": 1.0, "2": 0.5}
    assert result.groups_at("group")[0].metrics["mrr"] == pytest.approx(0.75)


def test_a_failed_call_leaves_its_query_missing(tmp_path):
    write_rows(tmp_path / "queries.jsonl", QUERIES)
    answered = answer(calls("r", SUITE, generate(dataset="queries.jsonl", samples=2), tmp_path),
                      lambda c: None if (c.fields["id"], c.request.sample) == ("2", 1) else reply(c))
    written = records(SUITE, generate(samples=2), answered)
    assert [(r["id"], r["sample"]) for r in written] == [("q1", 0), ("q1", 1), ("2", 0)]
    write_rows(tmp_path / "outputs" / "r.jsonl", written)
    assert len(load_rag("r", SUITE, tmp_path).candidates) == 3


def test_what_the_pipeline_returns_is_checked_by_the_kinds_reader(tmp_path):
    write_rows(tmp_path / "queries.jsonl", QUERIES[:1])
    found = calls("r", SUITE, generate(dataset="queries.jsonl"), tmp_path)
    bad = Response("a", extra={"retrieved_ids": ["x"], "retrieved_contexts": ["one", "two"]})
    write_rows(tmp_path / "outputs" / "r.jsonl", records(SUITE, generate(), [(found[0], bad)]))
    with pytest.raises(InputError) as caught:
        load_rag("r", SUITE, tmp_path)
    assert caught.value.problems[0].file.endswith("r.jsonl") and caught.value.problems[0].line == 1
    assert measured(Response("a", extra={"tokens": 42})) == {"tokens": 42}


def test_a_bad_query_a_repeated_id_and_a_lacking_field_are_located(tmp_path):
    write_rows(tmp_path / "queries.jsonl", [QUERIES[0], {"id": "q9", "ground_truth_ids": "refunds-1"},
                                            {**QUERIES[1], "id": "q1"}])
    with pytest.raises(InputError) as caught:
        calls("r", SUITE, generate(dataset="queries.jsonl"), tmp_path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "query"), (2, "ground_truth_ids")]
    write_rows(tmp_path / "queries.jsonl", [QUERIES[0], {**QUERIES[1], "id": "q1"}])
    with pytest.raises(InputError) as caught:
        calls("r", SUITE, generate(dataset="queries.jsonl", prompt="{topic}: {query}"), tmp_path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "id"), (2, "topic")]
