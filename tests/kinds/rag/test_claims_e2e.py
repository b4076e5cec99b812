"""A RAG suite with claim_faithfulness through `llm-gate run`, on the tiny NLI stand-in: each claim's verdict
against an independent transformers forward pass, the unsupported claims in items.csv, the comment and the
dashboard, and the errors of a missing or label-less NLI model."""

from __future__ import annotations

import csv
import json
import re

import pytest
import torch
from werkzeug import Response

from tests.support.cli import run_main
from tests.support.tiny_models import NLI_FACTS, build_tiny_nli

FACTS = {i: fact for i, fact in enumerate(NLI_FACTS)}
# Each answer: claims the contexts entail, and one that no context entails (a neutral claim).
RECORDS = [
    {"id": "q0", "query": "When does the library open?", "retrieved_contexts": [FACTS[0][0], FACTS[1][0]],
     "actual_answer": f"{FACTS[0][1].capitalize()}. {FACTS[0][3].capitalize()}."},
    {"id": "q1", "query": "How often does the train leave?", "retrieved_contexts": [FACTS[1][0]],
     "actual_answer": f"{FACTS[1][1].capitalize()}."},
    {"id": "q2", "query": "What does the recipe need?", "retrieved_contexts": [FACTS[2][0], FACTS[3][0]],
     "actual_answer": f"{FACTS[2][1].capitalize()}. {FACTS[3][1].capitalize()}. {FACTS[2][3].capitalize()}."},
    {"id": "q3", "query": "Empty?", "retrieved_contexts": [FACTS[4][0]], "actual_answer": ""},
]


def write_gate(root, nli: str, checks: str = "claim_faithfulness: {min: 0.5}") -> None:
    (root / "rag.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    (root / "gate.yml").write_text(f"""\
version: 1
runtime: {{cache_dir: {root / 'cache'}}}
suites:
  qa:
    kind: rag
    records: rag.jsonl
    embedding_metrics: false
    claim_faithfulness: true
    nli_model: {nli}
    checks:
      {checks}
""")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    root = tmp_path_factory.mktemp("claims")
    build_tiny_nli(root / "nli")
    return root


def independent(model_dir, premise: str, claim: str) -> float:
    """P(entailment) by AutoModelForSequenceClassification on tokenizer(premise, claim), softmax."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    net = AutoModelForSequenceClassification.from_pretrained(str(model_dir)).eval()
    entail = next(i for i, name in net.config.id2label.items() if name == "entailment")
    with torch.no_grad():
        return float(torch.softmax(net(**tokenizer(premise, claim, return_tensors="pt")).logits, -1)[0, entail])


def test_claim_faithfulness_end_to_end(model, monkeypatch, capsys):
    write_gate(model, "nli")
    monkeypatch.chdir(model)
    code, out, err = run_main(monkeypatch, capsys, "run", "-c", "gate.yml", "--no-publish", "-q")
    assert code in (0, 1), err
    report = json.loads((model / "gate-report" / "report.json").read_text())
    [suite] = report["suites"]
    expected, unsupported = {}, {}
    for record in RECORDS:
        claims = [c.strip() for c in record["actual_answer"].split(". ") if c.strip()]
        claims = [c if c.endswith(".") else c + "." for c in claims]
        premise = "\n\n".join(record["retrieved_contexts"])
        supported = [independent(model / "nli", premise, c) >= 0.5 for c in claims]
        expected[record["id"]] = sum(supported) / len(supported) if claims else None
        unsupported[record["id"]] = [c for c, s in zip(claims, supported, strict=True) if not s]
    # the stand-in entails the entailed facts and not the neutral ones
    assert unsupported == {"q0": [FACTS[0][3].capitalize() + "."], "q1": [],
                           "q2": [FACTS[2][3].capitalize() + "."], "q3": []}
    rows = {r["id"]: r for r in csv.DictReader((model / "gate-report" / "qa" / "items.csv").open())}
    for key, value in expected.items():
        cell = rows[key]["claim_faithfulness"]
        assert (cell == "" if value is None else float(cell) == pytest.approx(value, abs=1e-12)), key
        assert rows[key]["unsupported_claims"] == " | ".join(unsupported[key])
    [group] = [g for g in suite["groups"] if g["level"] == "group"]
    measured = [v for v in expected.values() if v is not None]
    assert group["metrics"]["claim_faithfulness"] == pytest.approx(sum(measured) / len(measured))
    assert suite["fingerprint"]["claims"]["method"] == "nli"
    assert suite["fingerprint"]["claims"]["model"]["model"] == "nli"
    markdown = (model / "gate-report" / "report.md").read_text()
    assert "with claims the retrieved contexts do not entail" in markdown
    assert f"- {FACTS[0][3].capitalize()}." in markdown and "claim_faithfulness" in markdown
    assert "unsupported_claims" in (model / "gate-report" / "report.html").read_text()
    # a second run answers from the cache, identically
    assert run_main(monkeypatch, capsys, "run", "-c", "gate.yml", "--no-publish", "-q")[0] == code
    again = json.loads((model / "gate-report" / "report.json").read_text())["suites"][0]
    assert [g["metrics"] for g in again["groups"]] == [g["metrics"] for g in suite["groups"]]


def test_a_missing_nli_model_is_a_located_error(model, monkeypatch, capsys):
    write_gate(model, "no-such-nli-dir")
    monkeypatch.chdir(model)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, out, err = run_main(monkeypatch, capsys, "run", "-c", "gate.yml", "--no-publish", "-q")
    assert code == 3, err
    assert "no-such-nli-dir" in err and "models pull" in err


def test_an_nli_model_without_an_entailment_label_is_a_located_error(model, monkeypatch, capsys):
    build_tiny_nli(model / "unlabelled", id2label={0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    write_gate(model, "unlabelled")
    monkeypatch.chdir(model)
    code, out, err = run_main(monkeypatch, capsys, "run", "-c", "gate.yml", "--no-publish", "-q")
    assert code == 2, err
    assert "config.json" in err and "id2label" in err and "entailment" in err and "LABEL_0" in err


def test_the_llm_claim_verdicts_go_through_the_judge_endpoint_and_its_rules(model, httpserver, monkeypatch, capsys):
    """claim_judge through `llm-gate run`: the claim prompt goes to the endpoint the workflow allows, with the key
    variable it names; an endpoint it does not allow stops the run before any request (exit 2)."""
    prompts = []

    def handler(request):
        content = request.get_json()["messages"][0]["content"]
        prompts.append(content)
        return Response(json.dumps({"choices": [{"message": {"content": "1"}}], "usage": {"total_tokens": 9}}),
                        content_type="application/json")

    httpserver.expect_request(re.compile(r"/v1/chat/completions")).respond_with_handler(handler)
    write_gate(model, "nli", "claim_faithfulness: {min: 0.0}")
    text = (model / "gate.yml").read_text().replace("    checks:", f"""\
    claim_judge: true
    judge:
      enabled: true
      base_url: {httpserver.url_for('/v1')}
      api_key_env: TEST_JUDGE_KEY
      criteria: [relevance]
    checks:""")
    (model / "gate.yml").write_text(text)
    monkeypatch.chdir(model)
    monkeypatch.setenv("TEST_JUDGE_KEY", "sk-test")
    monkeypatch.setenv("LLM_GATE_JUDGE_API_KEY_ENV", "TEST_JUDGE_KEY")
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", "https://api.openai.com/v1")  # not the loopback one
    code, _, err = run_main(monkeypatch, capsys, "run", "-c", "gate.yml", "--no-publish", "-q")
    assert code == 2 and prompts == [] and ("judge_endpoints" in err or "LLM_GATE_JUDGE_ENDPOINTS" in err), err
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))
    code, _, err = run_main(monkeypatch, capsys, "run", "-c", "gate.yml", "--no-publish", "-q")
    assert code == 0, err
    claim_prompts = [p for p in prompts if p.startswith("You verify one claim")]
    assert len(claim_prompts) == 6  # q0: 2 claims, q1: 1, q2: 3, q3: none
    [suite] = json.loads((model / "gate-report" / "report.json").read_text())["suites"]
    [group] = [g for g in suite["groups"] if g["level"] == "group"]
    assert group["metrics"]["llm_claim_faithfulness"] == 1.0  # the endpoint supports every claim
    # the NLI stand-in leaves one claim of q0 and q2 unsupported: agreement (1/2 + 1 + 2/3) / 3
    assert group["metrics"]["claim_agreement"] == pytest.approx((1 / 2 + 1 + 2 / 3) / 3)
    assert any("agrees with the NLI model on 4 of 6 claims (67%)" in n for n in suite["notes"])
