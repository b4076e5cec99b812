"""Stability's generation recipe: questions → one call per prompt variant with logprobs → the kind's own records,
loaded by its reader and scored; P against the seed's formula written out here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.generate.providers.types import Message, Response
from gate.kinds import get_kind
from gate.kinds.base import ScoringContext
from gate.kinds.stability.config import AnswerProbability, StabilitySuiteConfig
from gate.kinds.stability.recipe import calls, records
from gate.kinds.stability.records import load_stability
from gate.kinds.stability.scorer import response_probability, score_stability
from gate.kinds.stability.variants import stability_variants
from tests.steps.test_generation import invoke, server  # noqa: F401  (fixtures: the CLI, a loopback server)
from tests.support.fake_runtime import FakeRuntime
from tests.support.recipes import answer, generate, user_text, write_rows

QUESTIONS = [{"task": "astro", "question_id": "q1", "question": "Which planet is known as the red planet?"},
             {"task": "astro", "question_id": 2, "question": "How many moons has Mars?",
              "variants": ["How many moons has Mars?", "Mars has how many moons?", "how many moons has mars"]}]
SUITE = StabilitySuiteConfig(kind="stability", records=["outputs/*.jsonl"])


def logprobs_of(call) -> tuple[tuple[str, float], ...]:
    """A scripted answer's token log-probabilities: different per variant."""
    k = int(call.fields["variant_id"][1:])
    return (("Mars", -0.05 * (k + 1)), (".", -0.3), ("!", -1.0 / (k + 2)))


def reply(call) -> Response:
    return Response(f"{call.fields['question_id']} {call.fields['variant_id']}", token_logprobs=logprobs_of(call),
                    model_version="m-2025")


def vectors() -> dict[str, list[float]]:
    return {f"{q} v{k:02d}": [1.0, 0.1 * k, 0.05 * k * k] for q in ("q1", "2") for k in range(10)}


def test_one_call_per_variant_with_logprobs_the_question_first(tmp_path):
    write_rows(tmp_path / "questions.jsonl", QUESTIONS)
    found = calls("s", SUITE, generate(dataset="questions.jsonl", system="Answer briefly."), tmp_path)
    assert len(found) == 10 + 3
    first = found[0]
    assert first.request.messages == (Message("system", "Answer briefly."), Message("user", QUESTIONS[0]["question"]))
    assert first.request.parameters.logprobs and first.request.model == "m" and first.request.sample == 0
    assert [user_text(c) for c in found[:10]] == [v.text for v in stability_variants(QUESTIONS[0]["question"])]
    assert dict(found[10].fields) == {"model": "m", "task": "astro", "question_id": "2", "variant_id": "v00",
                                      "variation": "given", "prompt": "How many moons has Mars?"}
    assert get_kind("stability").generation.logprobs and get_kind("stability").generation.reads == "records"


def test_records_load_and_score_with_p_from_the_token_probabilities(tmp_path):
    write_rows(tmp_path / "questions.jsonl", QUESTIONS)
    answered = answer(calls("s", SUITE, generate(dataset="questions.jsonl"), tmp_path), reply)
    write_rows(tmp_path / "outputs" / "s.jsonl", records(SUITE, generate(), answered))
    data = load_stability("s", SUITE, tmp_path)
    assert len(data.records) == 13 and data.records[0].model_extra["model_version"] == "m-2025"
    result = score_stability("s", SUITE, data, ScoringContext(GateConfig(version=1, suites={"s": SUITE}),
                                                             FakeRuntime(vectors=vectors()), tmp_path))
    item = {dict(i.key)["question_id"]: i.values for i in result.items}["q1"]
    # The seed: coefficient = ((Σ_ij similarity_ij − n) / (n(n − 1))) · P, P the answer probability from the
    # response's token probabilities: per response exp(mean ln p) (the suite's default), averaged over responses.
    n = 10
    probabilities = [math.exp(np.mean([lp for _, lp in logprobs_of(c)])) for c, _ in answered[:n]]
    p = float(np.mean(probabilities))
    v = np.array([vectors()[f"q1 v{k:02d}"] for k in range(n)])
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    coefficient = (float((v @ v.T).sum()) - n) / (n * (n - 1)) * p
    assert item["n"] == n and item["answer_probability"] == pytest.approx(p, abs=1e-12)
    assert item["stability_coefficient"] == pytest.approx(coefficient, abs=1e-12)


def test_a_failed_call_leaves_its_variant_out(tmp_path):
    write_rows(tmp_path / "questions.jsonl", QUESTIONS)
    answered = answer(calls("s", SUITE, generate(dataset="questions.jsonl"), tmp_path),
                      lambda c: None if c.fields["variant_id"] == "v01" else reply(c))
    written = records(SUITE, generate(), answered)
    assert len(written) == 13 - 2 and not any(r["variant_id"] == "v01" for r in written)
    write_rows(tmp_path / "outputs" / "s.jsonl", written)
    data = load_stability("s", SUITE, tmp_path)
    assert [len([r for r in data.records if r.question_id == q]) for q in ("q1", "2")] == [9, 2]


def test_a_bad_row_is_a_located_error(tmp_path):
    write_rows(tmp_path / "questions.jsonl", [QUESTIONS[0], {"task": "astro", "question_id": "q3"}])
    with pytest.raises(InputError) as caught:
        calls("s", SUITE, generate(dataset="questions.jsonl"), tmp_path)
    [problem] = caught.value.problems
    assert problem.file.endswith("questions.jsonl") and problem.line == 2 and problem.field == "question"
    assert problem.found == "nothing" and problem.fix


def test_a_template_field_the_rows_lack_is_a_located_error(tmp_path):
    write_rows(tmp_path / "questions.jsonl", [QUESTIONS[0], {**QUESTIONS[1], "hint": "two"}])
    with pytest.raises(InputError) as caught:
        calls("s", SUITE, generate(dataset="questions.jsonl", prompt="{question} Hint: {hint}"), tmp_path)
    [problem] = caught.value.problems
    assert (problem.line, problem.field, problem.found) == (1, "hint", "nothing (1 of 2 questions lack it)")
    assert "suites.s.generate.prompt" in problem.expected
    found = calls("s", SUITE, generate(dataset="questions.jsonl", prompt="Q: {question} {{json}}"), tmp_path)
    assert user_text(found[0]) == "Q: Which planet is known as the red planet? {json}"


def test_samples_and_a_template_without_the_question_are_refused(tmp_path):
    write_rows(tmp_path / "questions.jsonl", QUESTIONS)
    with pytest.raises(InputError) as caught:
        calls("s", SUITE, generate(dataset="questions.jsonl", samples=3, prompt="Say hi"), tmp_path)
    assert [p.field for p in caught.value.problems] == ["suites.s.generate.samples", "suites.s.generate.prompt"]


def test_logprobs_are_kept_in_the_records_range(tmp_path):
    write_rows(tmp_path / "questions.jsonl", QUESTIONS[1:])
    found = calls("s", SUITE, generate(dataset="questions.jsonl"), tmp_path)
    odd = [Response("a", (("a", 1e-4), ("b", -math.inf))), Response("b", (("a", math.nan),)), Response("c")]
    written = records(SUITE, generate(), list(zip(found, odd, strict=True)))
    assert written[0]["token_logprobs"] == [0.0, -1_000_000] and "token_logprobs" not in written[1]
    write_rows(tmp_path / "outputs" / "s.jsonl", written)
    assert load_stability("s", SUITE, tmp_path).records[0].token_logprobs == [0.0, -1_000_000]


def test_generated_through_the_step_with_the_servers_logprobs(tmp_path, server, monkeypatch, invoke):  # noqa: F811
    """`llm-gate generate` asks the loopback server for logprobs; the records carry them and P follows from them."""
    monkeypatch.chdir(tmp_path)
    write_rows(tmp_path / "questions.jsonl", QUESTIONS[1:])
    (tmp_path / "gate.yml").write_text(f"""version: 1
providers:
  chat: {{type: openai, base_url: "{server.base_url}", max_retries: 0, timeout: 5}}
suites:
  s:
    kind: stability
    records: outputs/*.jsonl
    generate: {{provider: chat, models: [gpt-a], dataset: questions.jsonl}}
""")
    done = invoke(tmp_path, "generate", "--cassettes", "record-missing", base_url=server.base_url)
    assert done.exit_code == 0, done.output
    assert [c["body"]["logprobs"] for c in server.calls] == [True] * 3
    data = load_stability("s", SUITE, tmp_path)
    assert [r.variant_id for r in data.records] == ["v00", "v01", "v02"]
    for record, variant in zip(data.records, QUESTIONS[1]["variants"], strict=True):
        tokens = f"echo: {variant}".split(" ")  # the server's answer, -0.125·(i + 1) per token
        assert record.response == " ".join(tokens)
        assert record.token_logprobs == [-0.125 * (i + 1) for i in range(len(tokens))]
        assert response_probability(record, AnswerProbability.GEOMETRIC) == pytest.approx(
            math.exp(np.mean(record.token_logprobs)))
