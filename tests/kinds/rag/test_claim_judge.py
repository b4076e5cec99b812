"""claim_decomposition: llm — the judge splits each answer into claims (Ragas: decompose, then verify) through the
grader's own client (allow-listed endpoint, budget, cache), on a loopback OpenAI-compatible server. Formulas are
written here: llm_claim_faithfulness = supported / claims, claim_agreement per answer = both fully supported or
both not."""

from __future__ import annotations

import json

import pytest

from gate.config import GateConfig
from gate.kinds.base import ScoringContext
from gate.kinds.rag import score_rag
from gate.kinds.rag.claim_judge import CLAIM_TEMPLATE, DECOMPOSE_TEMPLATE, MAX_CLAIMS, parse_claims
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.grader_client import run_grader
from gate.kinds.rag.records import load_rag
from tests.kinds.rag.test_claims import ENTAILED, RECORDS
from tests.kinds.rag.test_grader_client import FakeLLM, make_httpserver  # noqa: F401 - the threaded server fixture
from tests.support.fake_runtime import FakeRuntime

KEY = "sk-test-decompose"
# q1's answer "Refunds take five days. They are instant." -> three claims, the context supports one
CLAIMS = {"Refunds take five days. They are instant.": ["Refunds take five days.", "Refunds are instant.",
                                                        "Refunds are paid by card."],
          "Logs are kept for thirty days.": ["Logs are kept for thirty days."]}
SUPPORTED = {"Refunds take five days.": "1", "Refunds are instant.": "0", "Refunds are paid by card.": "0",
             "Logs are kept for thirty days.": "1"}


@pytest.mark.parametrize(("reply", "claims", "reason"), [
    ('["A is B.", "C is D."]', ("A is B.", "C is D."), None),
    ('```json\n["A is B."]\n```', ("A is B.",), None),
    ('  ["A   is\\nB."]  ', ("A is B.",), None),
    ("not json", (), "not a JSON array of claims"),
    ('{"claims": ["A."]}', (), "not an array of non-empty strings"),
    ('["A.", 3]', (), "not an array of non-empty strings"),
    ('["A.", "  "]', (), "not an array of non-empty strings"),
    ("[]", (), "found no claims"),
    (json.dumps(["c."] * (MAX_CLAIMS + 1)), (), f"more than {MAX_CLAIMS}"),
    (json.dumps(["x" * 501]), (), "longer than 500"),
    ("[" + '"a.",' * 5000 + '"a."]', (), "longer than 20,000"),
    (None, (), "not a JSON array"),
])
def test_parse_claims(reply, claims, reason):
    parsed = parse_claims(reply)
    assert parsed.claims == claims
    assert (parsed.reason is None) if reason is None else (reason in parsed.reason)


def test_a_bad_reply_is_quoted_briefly_and_never_starts_a_workflow_command():
    parsed = parse_claims("::error::" + "x" * 200)
    assert parsed.reason.startswith("decomposition reply") and "…" in parsed.reason and len(parsed.reason) < 160


@pytest.fixture
def llm(httpserver):
    fake = FakeLLM(httpserver.url_for("/v1"))

    def reply(prompt: str) -> str:
        if prompt.startswith("You break an answer"):
            answer = prompt.split("Answer: ", 1)[1].split("\n\nList every", 1)[0]
            return json.dumps(CLAIMS.get(answer, []))
        if prompt.startswith("You verify one claim"):
            return SUPPORTED.get(prompt.split("Claim: ", 1)[1].split("\n\n", 1)[0], "0")
        return "0.8"  # the suite's own judge criteria

    fake.reply = reply
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(fake.handle)
    yield fake
    httpserver.check_handler_errors()


def score(tmp_path, llm, **judge):
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], claim_faithfulness=True, claim_judge=True,
                           claim_decomposition="llm",
                           judge={"enabled": True, "base_url": llm.base_url, "model": "judge-1",
                                  "criteria": ["relevance"], **judge})
    gate = GateConfig(version=1, suites={"r": suite})

    def grader(kind, config, items):
        return run_grader(config, KEY, items, cache_dir=tmp_path / "cache", sleep=lambda s: None)

    context = ScoringContext(gate, FakeRuntime(entailment=ENTAILED), tmp_path, grader=grader)
    return score_rag("r", suite, load_rag("r", suite, tmp_path), context)


def test_decompose_then_verify_and_agreement_per_answer(tmp_path, llm):
    result = score(tmp_path, llm)
    prompts = llm.prompts()
    decompositions = [p for p in prompts if p.startswith("You break an answer")]
    assert len(decompositions) == 2  # q1 and q2: q3 has no answer, q4 no contexts
    assert "Refunds take five days. They are instant." in decompositions[0] + decompositions[1]
    assert sum(p.startswith("You verify one claim") for p in prompts) == 4  # 3 + 1 claims
    values = {dict(i.key)["id"]: i.values for i in result.items}
    assert values["q1"]["llm_claim_faithfulness"] == pytest.approx(1 / 3)
    assert values["q1"]["llm_unsupported_claims"] == "Refunds are instant. | Refunds are paid by card."
    # NLI: q1 0.5 (not fully supported), LLM 1/3 (not fully): they agree; q2 NLI 1.0, LLM 1.0: they agree
    assert values["q1"]["claim_agreement"] == 1.0 and values["q2"]["claim_agreement"] == 1.0
    assert values["q2"]["llm_claim_faithfulness"] == 1.0 and values["q2"]["llm_unsupported_claims"] == ""
    assert values["q3"]["llm_claim_faithfulness"] is None and values["q4"]["llm_claim_faithfulness"] is None
    assert any("claims decomposed by the LLM" in n and "2 of 2 answers" in n for n in result.notes)
    assert result.fingerprint["claims"]["decomposition"] == {"method": "llm", "model": "judge-1"}
    assert all(KEY not in n for n in result.notes)


def test_a_second_run_is_served_from_the_cache(tmp_path, llm):
    first = score(tmp_path, llm)
    sent = len(llm.calls)
    second = score(tmp_path, llm)
    assert len(llm.calls) == sent == 6 + 4  # 2 decompositions, 4 verifications, 4 relevance grades
    assert [i.values for i in second.items] == [i.values for i in first.items]


def test_a_spent_budget_leaves_answers_unmeasured(tmp_path, llm):
    llm.tokens = 100
    result = score(tmp_path, llm, budget_tokens=150)  # two decompositions fit (checked before each request)
    values = {dict(i.key)["id"]: i.values for i in result.items}
    assert values["q1"]["llm_claim_faithfulness"] is None and values["q2"]["llm_claim_faithfulness"] is None


def test_an_unreadable_decomposition_is_unmeasured_with_its_reason(tmp_path, llm):
    llm.reply = lambda prompt: "Sure! Here are the claims: A, B" if prompt.startswith("You break") else "1"
    result = score(tmp_path, llm)
    values = {dict(i.key)["id"]: i.values for i in result.items}
    assert values["q1"]["llm_claim_faithfulness"] is None and values["q1"]["claim_agreement"] is None
    assert any("2 answers not decomposed (first: decomposition reply is not a JSON array" in n for n in result.notes)


def test_sentences_keep_the_fingerprint_and_llm_needs_the_judge(tmp_path):
    assert RagSuiteConfig(kind="rag", records=["c.jsonl"]).claim_decomposition == "sentences"
    with pytest.raises(ValueError, match="claim_decomposition: llm"):
        RagSuiteConfig(kind="rag", records=["c.jsonl"], claim_faithfulness=True, claim_decomposition="llm")
    assert CLAIM_TEMPLATE != DECOMPOSE_TEMPLATE and "{answer}" in DECOMPOSE_TEMPLATE


def test_the_criteria_grades_decompositions_and_verifications_share_one_budget(tmp_path, llm):
    """budget_tokens is the judge's, not each call's: 4 relevance grades spend 400 of 450, so one decomposition
    fits, the second and every verification do not."""
    llm.tokens = 100
    result = score(tmp_path, llm, budget_tokens=450, max_concurrency=1)
    prompts = llm.prompts()
    assert sum(p.startswith("You break an answer") for p in prompts) == 1
    assert not any(p.startswith("You verify one claim") for p in prompts)
    assert all(i.values["llm_claim_faithfulness"] is None for i in result.items)


def test_the_comment_lists_the_judges_own_unsupported_claims_beside_the_nli_ones(tmp_path, llm):
    from types import SimpleNamespace

    from gate.kinds.rag.view import _unsupported
    from gate.report.markdown import render

    result = score(tmp_path, llm)
    shown = _unsupported(result, 10)
    [q1] = [u for u in shown if u["query"] == dict(next(i for i in result.items if dict(i.key)["id"] == "q1").key)[
        "query"]]
    assert q1["lists"][1]["claims"] == ["Refunds are instant.", "Refunds are paid by card."]
    assert q1["judge_score"] == "0.333"
    text = render({"suite": SimpleNamespace(view={"worse": [], "unsupported": shown})},
                  template="suites/rag.details.md.j2")
    assert "llm_claim_faithfulness 0.333" in text
    assert "The LLM judge's own claims it found unsupported (advisory):\n- Refunds are instant.\n" in text
