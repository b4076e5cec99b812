"""Heuristic's generation recipe: prompts → one call per (prompt, model, sample) → the kind's response records,
loaded by its reader and scored by the rubric (no model needed); a failed call is the kind's missing output."""

from __future__ import annotations

import json

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.generate.providers.types import Message, Response
from gate.kinds import get_kind
from gate.kinds.base import ScoringContext
from gate.kinds.heuristic import score_heuristic
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.recipe import calls, records
from gate.kinds.heuristic.records import load_heuristic
from tests.steps.test_generation import invoke, server  # noqa: F401  (fixtures: the CLI, a loopback server)
from tests.support.fake_runtime import FakeRuntime
from tests.support.recipes import answer, generate, user_text, write_rows

PROMPTS = [{"category": "coding", "prompt_id": "C01", "prompt": "Write a Python function that adds two numbers."},
           {"category": "coding", "prompt_id": "C02", "prompt": "Reverse a list in Python."},
           {"category": "paraphrasing", "prompt_id": "P08", "prompt": "Rewrite as a formal email: send the report",
            "id": 8}]
SUITE = HeuristicSuiteConfig(kind="heuristic", records=["outputs/*.jsonl"])
ANSWERS = {"C01": "```python\ndef add(a, b):\n    return a + b\n```", "C02": "Use `items[::-1]`.",
           "P08": "Dear team,\n\nPlease find the report attached.\n\nBest regards,\nAna"}


def reply(call) -> Response:
    return Response(ANSWERS[call.fields["prompt_id"]], model_version="m-1")


def scored(directory):
    data = load_heuristic("h", SUITE, directory)
    context = ScoringContext(GateConfig(version=1, suites={"h": SUITE}), FakeRuntime(), directory)
    return score_heuristic("h", SUITE, data, context), data


def test_one_call_per_prompt_model_and_sample(tmp_path):
    write_rows(tmp_path / "prompts.jsonl", PROMPTS)
    found = calls("h", SUITE, generate(dataset="prompts.jsonl", models=["x", "y"], samples=2), tmp_path)
    assert len(found) == 3 * 2 * 2
    assert [(c.request.model, c.request.sample) for c in found[:4]] == [("x", 0), ("x", 1), ("y", 0), ("y", 1)]
    assert found[0].request.messages == (Message("user", PROMPTS[0]["prompt"]),)
    assert not found[0].request.parameters.logprobs
    assert dict(found[-1].fields) == {"model": "y", "category": "paraphrasing", "prompt_id": "P08",
                                      "prompt": PROMPTS[2]["prompt"], "id": "8", "sample": 1}
    assert get_kind("heuristic").generation.reads == "records"


def test_records_load_and_score_by_the_rubric(tmp_path):
    write_rows(tmp_path / "prompts.jsonl", PROMPTS)
    settings = generate(dataset="prompts.jsonl", parameters={"temperature": 0.7, "max_tokens": 64, "seed": 3})
    found = calls("h", SUITE, settings, tmp_path)
    assert (found[0].request.parameters.temperature, found[0].request.parameters.max_tokens) == (0.7, 64)
    written = records(SUITE, settings, answer(found, reply))
    assert written[0] == {"model": "m", "category": "coding", "prompt_id": "C01", "prompt": PROMPTS[0]["prompt"],
                          "response": ANSWERS["C01"], "model_version": "m-1"}
    write_rows(tmp_path / "outputs" / "h.jsonl", written)
    result, data = scored(tmp_path)
    assert len(data.records) == 3 and not data.unanswered
    assert len(result.items) == 3 and all(0 <= i.values["final_score"] <= 10 for i in result.items)


def test_a_failed_call_is_a_missing_output(tmp_path):
    write_rows(tmp_path / "prompts.jsonl", PROMPTS)
    answered = answer(calls("h", SUITE, generate(dataset="prompts.jsonl"), tmp_path),
                      lambda c: None if c.fields["prompt_id"] == "C02" else reply(c))
    written = records(SUITE, generate(), answered)
    assert "response" not in written[1] and "model_version" not in written[1]
    write_rows(tmp_path / "outputs" / "h.jsonl", written)
    result, data = scored(tmp_path)
    assert [r.prompt_id for r in data.unanswered] == ["C02"] and len(result.items) == 2
    coding = next(g for g in result.groups if dict(g.key) == {"model": "m", "category": "coding"})
    assert coding.metrics["missing_ratio"] == pytest.approx(1 / 2)


def test_a_bad_row_an_unknown_category_and_a_lacking_field_are_located(tmp_path):
    write_rows(tmp_path / "prompts.jsonl", [PROMPTS[0], {"category": "coding", "prompt": "x"},
                                            {"category": "poetry", "prompt_id": "Z1", "prompt": "A poem."}])
    with pytest.raises(InputError) as caught:
        calls("h", SUITE, generate(dataset="prompts.jsonl"), tmp_path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "prompt_id")]
    write_rows(tmp_path / "prompts.jsonl", [PROMPTS[0], {"category": "poetry", "prompt_id": "Z1", "prompt": "A poem."}])
    with pytest.raises(InputError) as caught:
        calls("h", SUITE, generate(dataset="prompts.jsonl", prompt="{prompt}\n\nLanguage: {language}"), tmp_path)
    category, lacking = caught.value.problems
    assert (category.line, category.field, category.found) == (2, "category", "'poetry'")
    assert (lacking.line, lacking.field) == (1, "language") and lacking.file.endswith("prompts.jsonl")


def test_a_table_dataset_and_a_repeated_prompt(tmp_path):
    (tmp_path / "prompts.csv").write_text("category,prompt_id,prompt\ncoding,C01,Add two numbers.\n"
                                          "coding,C01,Again.\n")
    with pytest.raises(InputError) as caught:
        calls("h", SUITE, generate(dataset="prompts.csv"), tmp_path)
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (3, "prompt_id") and "again" in problem.found
    (tmp_path / "prompts.csv").write_text("category,prompt_id,prompt\ncoding,C01,Add two numbers.\n")
    assert user_text(calls("h", SUITE, generate(dataset="prompts.csv"), tmp_path)[0]) == "Add two numbers."


def test_no_dataset_is_a_located_error(tmp_path):
    with pytest.raises(InputError) as caught:
        calls("h", SUITE, generate(), tmp_path)
    assert caught.value.problems[0].field == "suites.h.generate.dataset"


def test_generated_through_the_step_and_replayed_by_a_run(tmp_path, server, monkeypatch, invoke):  # noqa: F811
    """End to end: `generate --cassettes record-missing` asks the loopback server, `run` replays and scores."""
    monkeypatch.chdir(tmp_path)
    write_rows(tmp_path / "prompts.jsonl", PROMPTS)
    (tmp_path / "gate.yml").write_text(f"""version: 1
providers:
  chat: {{type: openai, base_url: "{server.base_url}", max_retries: 0, timeout: 5}}
suites:
  h:
    kind: heuristic
    records: outputs/*.jsonl
    generate: {{provider: chat, models: [gpt-a], dataset: prompts.jsonl}}
""")
    done = invoke(tmp_path, "generate", "--cassettes", "record-missing", base_url=server.base_url)
    assert done.exit_code == 0, done.output
    written = [json.loads(line) for line in (tmp_path / "outputs" / "h.jsonl").read_text().splitlines()]
    assert [(r["prompt_id"], r["response"]) for r in written] == [(p["prompt_id"], f"echo: {p['prompt']}")
                                                                 for p in PROMPTS]
    ran = invoke(tmp_path, "run", "--no-publish", "--output-dir", str(tmp_path / "report"), base_url=server.base_url)
    assert server.count == 3, ran.output  # the run replayed
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [(g["key"], g["n"]) for g in report["suites"][0]["groups"]] == [
        ({"model": "gpt-a", "category": "coding"}, 2), ({"model": "gpt-a", "category": "paraphrasing"}, 1),
        ({"model": "gpt-a"}, 3)]
    assert report["generation"]["suites"][0]["models"][0]["replayed"] == 3
