"""Claim-level faithfulness: the claim splitter's cases, the decision rule against a formula written here, the
scorer's columns and notes on a scripted runtime, and the fingerprint that keeps other methods' snapshots apart."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from gate.baselines.snapshots import Snapshot, compare
from gate.config import GateConfig
from gate.kinds.base import ScoringContext
from gate.kinds.rag import score_rag
from gate.kinds.rag.claims import NO_CLAIMS, NO_CONTEXTS, decide, premise, split_claims
from gate.kinds.rag.config import RagSuiteConfig, rag_models
from gate.kinds.rag.records import load_rag
from tests.support.fake_runtime import FakeRuntime


@pytest.mark.parametrize(("answer", "claims"), [
    ("", ()),  # empty: no claims
    ("   \n\t ", ()),  # blank
    ("...", ()),  # no letter or digit
    ("- ? !", ()),
    ("Refunds take five days", ("Refunds take five days",)),  # no sentence end: one claim
    ("Refunds take five days. Logs are kept for a month!", ("Refunds take five days.", "Logs are kept for a month!")),
    ("Is it safe? Yes.", ("Is it safe?", "Yes.")),
    ("Dr. Smith approved it. It ships today.", ("Dr. Smith approved it.", "It ships today.")),  # abbreviation
    ("Use e.g. the CLI. Or the API.", ("Use e.g. the CLI.", "Or the API.")),
    ("J. K. Rowling wrote it. Twice.", ("J. K. Rowling wrote it.", "Twice.")),  # initials
    ("It costs 3.50 dollars. Cheap.", ("It costs 3.50 dollars.", "Cheap.")),  # a decimal point
    ('He said "stop." Then left.', ('He said "stop."', "Then left.")),  # a closing quote stays with its sentence
    ("First line\nsecond line", ("First line", "second line")),  # a line break ends a claim
    ("One.  \n\n  Two.", ("One.", "Two.")),
    ("Ends with etc. and more", ("Ends with etc. and more",)),
])
def test_claims_are_sentences(answer, claims):
    assert split_claims(answer) == claims


def test_a_claim_is_supported_at_the_threshold_and_faithfulness_is_the_share():
    claims = ("a.", "b.", "c.", "d.")
    probabilities = [0.5, 0.4999, 0.9, 0.0]
    decided = decide(claims, probabilities, 0.5)
    supported = [p >= 0.5 for p in probabilities]  # the rule, written here
    assert [v.supported for v in decided.verdicts] == supported
    assert decided.faithfulness == sum(supported) / len(supported) == 0.5
    assert decided.unsupported == ("b.", "d.") and decided.reason is None
    assert decide(claims, probabilities, 0.95).faithfulness == 0.0


def test_an_answer_without_claims_is_unmeasured_not_zero_or_one():
    empty = decide((), (), 0.5)
    assert empty.faithfulness is None and empty.reason == NO_CLAIMS and empty.unsupported == ()
    with pytest.raises(ValueError, match="2 claims but 1"):
        decide(("a.", "b."), [0.5], 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        decide(("a.",), [float("nan")], 0.5)
    assert premise(None) is None and premise(["", "  "]) is None and premise(["a", "", "b"]) == "a\n\nb"


CONTEXT = "Refunds take five business days. Logs are kept for thirty days."
RECORDS = [
    {"id": "q1", "query": "refunds?", "actual_answer": "Refunds take five days. They are instant.",
     "retrieved_contexts": [CONTEXT]},
    {"id": "q2", "query": "logs?", "actual_answer": "Logs are kept for thirty days.", "retrieved_contexts": [CONTEXT]},
    {"id": "q3", "query": "empty?", "actual_answer": "", "retrieved_contexts": [CONTEXT]},
    {"id": "q4", "query": "no context?", "actual_answer": "Logs are kept.", "retrieved_contexts": []},
]
ENTAILED = {(CONTEXT, "Refunds take five days."): 0.93, (CONTEXT, "They are instant."): 0.02,
            (CONTEXT, "Logs are kept for thirty days."): 0.5}


def run(tmp_path, records=RECORDS, **fields):
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], **fields)
    gate = GateConfig(version=1, suites={"r": suite})
    runtime = FakeRuntime(entailment=ENTAILED)
    result = score_rag("r", suite, load_rag("r", suite, tmp_path), ScoringContext(gate, runtime, tmp_path))
    return result, runtime, gate, suite


def test_the_scorer_decides_each_claim_and_lists_the_unsupported(tmp_path):
    result, runtime, gate, suite = run(tmp_path, claim_faithfulness=True, nli_model="my-nli")
    [(model, pairs)] = runtime.entailed
    assert model == "my-nli" and sorted(pairs) == sorted(ENTAILED)  # one request, each pair once
    items = {dict(i.key)["id"]: i for i in result.items}
    assert items["q1"].values["claim_faithfulness"] == 0.5
    assert items["q1"].values["unsupported_claims"] == "They are instant."
    assert items["q1"].details.unsupported == ("They are instant.",)
    assert items["q2"].values["claim_faithfulness"] == 1.0 and items["q2"].values["unsupported_claims"] == ""
    assert items["q3"].values["claim_faithfulness"] is None and items["q3"].values["unsupported_claims"] is None
    assert items["q4"].values["claim_faithfulness"] is None
    [group] = result.groups_at("group")
    assert group.metrics["claim_faithfulness"] == pytest.approx((0.5 + 1.0) / 2)
    assert result.item_columns[-1] == "unsupported_claims"
    assert "claim_faithfulness" in result.item_columns
    assert any(f"1 of 4 answers: {NO_CLAIMS}" in n for n in result.notes)
    assert any(f"1 of 4 answers: {NO_CONTEXTS}" in n for n in result.notes)
    claims = result.fingerprint["claims"]
    assert claims["method"] == "nli" and claims["threshold"] == 0.5 and claims["model"]["model"] == "my-nli"
    assert [u.role.key for u in rag_models(gate, suite)] == ["embedding", "nli"]


def test_the_threshold_is_configurable(tmp_path):
    result, *_ = run(tmp_path, claim_faithfulness=True, claim_threshold=0.9)
    items = {dict(i.key)["id"]: i.values for i in result.items}
    assert items["q2"]["claim_faithfulness"] == 0.0 and items["q1"]["claim_faithfulness"] == 0.5


def test_off_by_default_asks_no_nli_model_and_keeps_the_fingerprint(tmp_path):
    result, runtime, gate, suite = run(tmp_path)
    assert runtime.entailed == [] and "claims" not in result.fingerprint
    assert "claim_faithfulness" not in result.item_columns and "unsupported_claims" not in result.item_columns
    assert [u.role.key for u in rag_models(gate, suite)] == ["embedding"]


def _compared(then, now):
    snapshot = Snapshot.from_result(then, gate="gate.yml", created_at="2026-01-01T00:00:00Z", commit=None,
                                    inputs_digest="d", tool_version="x")
    return compare(snapshot, now, path="s.json", inputs_digest="d", now=datetime(2026, 1, 2, tzinfo=UTC),
                   max_age_days=None)


def test_a_snapshot_scored_with_another_method_is_not_comparable(tmp_path):
    embedding_only, *_ = run(tmp_path)
    nli, *_ = run(tmp_path, claim_faithfulness=True)
    assert _compared(embedding_only, embedding_only).not_comparable_reason is None
    for then, now in ((embedding_only, nli), (nli, embedding_only)):
        reason = _compared(then, now).not_comparable_reason
        assert reason is not None and reason.startswith("baseline not comparable: claims: ")
    stricter, *_ = run(tmp_path, claim_faithfulness=True, claim_threshold=0.7)
    assert "claims.threshold: 0.5 → 0.7" in _compared(nli, stricter).not_comparable_reason
    other_model, *_ = run(tmp_path, claim_faithfulness=True, nli_model="another-nli")
    assert "claims.model.model" in _compared(nli, other_model).not_comparable_reason


def test_checks_on_claim_faithfulness_are_possible_only_where_it_is_measured():
    from gate.kinds.rag import KIND

    on = {"kind": "rag", "records": "r.jsonl", "claim_faithfulness": True}
    assert KIND.impossible(on, "claim_faithfulness", {"min": 0.8}) is None
    assert KIND.impossible(on, "claim_faithfulness", {"max_decrease": 0, "significant": True}) is None
    assert KIND.impossible({**on, "baseline": "b.jsonl"}, "delta_claim_faithfulness",
                           {"min": 0, "scope": "comparison"}) is None
    problem = KIND.impossible({**on, "claim_faithfulness": False}, "claim_faithfulness", {"min": 0.8})
    assert problem is not None and "claim_faithfulness: true" in problem.fix


def test_the_llm_verdicts_are_advisory_and_their_agreement_with_the_nli_model_is_shown(tmp_path):
    """claim_judge asks the suite's LLM grader about the very claims the NLI model decided (with the claim prompt,
    through the same endpoint and key rules), and reports its share and its agreement; never in the overall."""
    from gate.kinds.rag.claim_judge import CLAIM_TEMPLATE
    from gate.kinds.rag.grader import GraderRun, GraderScore

    asked = []
    llm = {"Refunds take five days.": 1.0, "They are instant.": 1.0, "Logs are kept for thirty days.": None}

    def grader(kind, config, items):
        asked.append((kind, config, list(items)))
        scores = tuple(GraderScore(i.key, i.criterion, llm.get(i.answer, 0.0) if i.criterion == "claim_support"
                                   else 0.8, None if llm.get(i.answer, 0) is not None else "unparseable", False, 1)
                       for i in items)
        return GraderRun(scores, len(items), 0, len(items), 0.0, False)

    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], claim_faithfulness=True, claim_judge=True,
                           judge={"enabled": True, "criteria": ["relevance"]})
    gate = GateConfig(version=1, suites={"r": suite})
    result = score_rag("r", suite, load_rag("r", suite, tmp_path),
                       ScoringContext(gate, FakeRuntime(entailment=ENTAILED), tmp_path, grader=grader))
    claim_calls = [(config, items) for _, config, items in asked if items[0].criterion == "claim_support"]
    [(config, items)] = claim_calls
    assert config.prompt_template == CLAIM_TEMPLATE and config.base_url == suite.judge.base_url
    assert [i.answer for i in items] == ["Refunds take five days.", "They are instant.",
                                         "Logs are kept for thirty days."]
    assert items[0].context == CONTEXT
    values = {dict(i.key)["id"]: i.values for i in result.items}
    # q1: NLI supports 1 of 2, the LLM both: its share 1.0, agreement on 1 of 2
    assert values["q1"]["llm_claim_faithfulness"] == 1.0 and values["q1"]["claim_agreement"] == 0.5
    assert values["q2"]["llm_claim_faithfulness"] is None  # its one claim went unscored
    [group] = result.groups_at("group")
    assert group.metrics["claim_agreement"] == 0.5
    assert any("agrees with the NLI model on 1 of 2 claims (50%); 1 claims unscored" in n for n in result.notes)
    assert group.metrics["overall_score"] is not None  # computed without the advisory values (not weightable)
    with pytest.raises(ValueError, match="claim_faithfulness: true"):
        RagSuiteConfig(kind="rag", records=["c.jsonl"], claim_judge=True, judge={"enabled": True})
    with pytest.raises(ValueError, match="unknown metric"):
        RagSuiteConfig(kind="rag", records=["c.jsonl"], overall_weights={"llm_claim_faithfulness": 1.0})
