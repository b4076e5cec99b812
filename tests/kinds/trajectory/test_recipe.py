"""The trajectory kind's generation recipe: tasks → one call per (task, model, sample) to the user's agent → runs in
the kind's tool-call log shape, loaded by the kind's reader and scored against the suite's expectations."""

from __future__ import annotations

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.generate.providers.types import Message, Response, Usage
from gate.kinds import get_kind
from gate.kinds.base import ScoringContext
from gate.kinds.trajectory.config import TrajectorySuiteConfig
from gate.kinds.trajectory.recipe import calls, records, run_fields
from gate.kinds.trajectory.records import load_trajectory
from gate.kinds.trajectory.scorer import score_trajectory
from tests.support.fake_runtime import FakeRuntime
from tests.support.recipes import answer, generate, user_text, write_rows

TASKS = [{"task_id": "weather", "task": "What is the weather in Paris?", "city": "Paris"},
         {"task_id": 7, "task": "Book the cheapest flight to Lisbon."}]
SUITE = TrajectorySuiteConfig.model_validate({
    "kind": "trajectory", "records": "outputs/*.jsonl",
    "expect": {"weather": {"tools_called": ["get_weather"], "answer": {"contains": ["Paris"]}},
               "7": {"order": ["search_flights", "book_flight"]}}})


def agent(call) -> Response:
    """The user's agent: its run beside its answer; the flight task's second run books without searching, and
    names its tools as OpenAI-style tool calls do."""
    if call.fields["task_id"] == "weather":
        return Response("It is 18 °C in Paris.", usage=Usage(300, 40), latency_s=1.5, cost_usd=0.003,
                        model_version="agent-2", extra={"steps": [
                            {"tool": "get_weather", "arguments": {"city": "Paris"}, "result": "18", "tokens": 99}],
                            "success": True})
    tools = ["search_flights", "book_flight"] if call.request.sample == 0 else ["book_flight"]
    return Response("Booked.", extra={"tool_calls": [{"name": t, "arguments": "{\"to\": \"LIS\"}"} for t in tools],
                                      "latency": 2.0, "cost": 0.01, "tokens": 500})


def test_one_call_per_task_model_and_sample_with_its_fields(tmp_path):
    write_rows(tmp_path / "tasks.jsonl", TASKS)
    found = calls("a", SUITE, generate(dataset="tasks.jsonl", models=["v1", "v2"], samples=2), tmp_path)
    assert [(c.fields["task_id"], c.fields["model"], c.fields["sample"]) for c in found] == [
        ("weather", "v1", 0), ("weather", "v1", 1), ("weather", "v2", 0), ("weather", "v2", 1),
        ("7", "v1", 0), ("7", "v1", 1), ("7", "v2", 0), ("7", "v2", 1)]
    assert found[0].request.messages == (Message("user", "What is the weather in Paris?"),)
    custom = calls("a", SUITE, generate(dataset="tasks.jsonl", prompt="[{task_id}] {task}"), tmp_path)
    assert user_text(custom[1]) == "[7] Book the cheapest flight to Lisbon."
    assert get_kind("trajectory").generation.reads == "records"


def test_the_runs_load_and_score_against_the_expectations(tmp_path):
    write_rows(tmp_path / "tasks.jsonl", TASKS)
    given = generate(dataset="tasks.jsonl", samples=2)
    written = records(SUITE, given, answer(calls("a", SUITE, given, tmp_path), agent))
    assert written[0] == {"task_id": "weather", "model": "m", "sample": 0, "final_answer": "It is 18 °C in Paris.",
                          "steps": [{"tool": "get_weather", "arguments": {"city": "Paris"}, "result": "18",
                                     "tokens": 99}],
                          "success": True, "tokens": 340, "latency": 1.5, "cost": 0.003, "model_version": "agent-2"}
    assert written[2]["steps"] == [{"tool": "search_flights", "arguments": "{\"to\": \"LIS\"}"},
                                   {"tool": "book_flight", "arguments": "{\"to\": \"LIS\"}"}]
    assert (written[2]["latency"], written[2]["cost"], written[2]["tokens"]) == (2.0, 0.01, 500)  # the agent's own
    write_rows(tmp_path / "outputs" / "a.jsonl", written)
    context = ScoringContext(GateConfig(version=1, suites={"a": SUITE}), FakeRuntime(), tmp_path)
    result = score_trajectory("a", SUITE, load_trajectory("a", SUITE, tmp_path), context)
    met = {dict(g.key)["task_id"]: g.metrics["expectations_met_rate"] for g in result.groups_at("group")}
    assert met == {"weather": 1.0, "7": 0.5}  # the second flight run booked without searching


def test_a_failed_call_leaves_its_run_missing_and_a_bad_step_is_located(tmp_path):
    write_rows(tmp_path / "tasks.jsonl", TASKS)
    found = calls("a", SUITE, generate(dataset="tasks.jsonl"), tmp_path)
    written = records(SUITE, generate(), answer(found, lambda c: None if c.fields["task_id"] == "7" else agent(c)))
    assert [r["task_id"] for r in written] == ["weather"]
    bad = Response("x", extra={"steps": [{"arguments": {}}]})  # a step without a tool
    write_rows(tmp_path / "outputs" / "a.jsonl", records(SUITE, generate(), [(found[0], bad)]))
    with pytest.raises(InputError) as caught:
        load_trajectory("a", SUITE, tmp_path)
    problem = caught.value.problems[0]
    assert problem.file.endswith("a.jsonl") and problem.line == 1 and "tool" in problem.field
    assert run_fields(Response("plain")) == {"steps": [], "final_answer": "plain"}  # an endpoint's text: no calls


def test_a_repeated_task_and_a_lacking_field_are_located(tmp_path):
    write_rows(tmp_path / "tasks.jsonl", [TASKS[0], {"task_id": "x"}, {**TASKS[1], "task_id": "weather"}])
    with pytest.raises(InputError) as caught:
        calls("a", SUITE, generate(dataset="tasks.jsonl"), tmp_path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "task")]
    write_rows(tmp_path / "tasks.jsonl", [TASKS[0], {**TASKS[1], "task_id": "weather"}])
    with pytest.raises(InputError) as caught:
        calls("a", SUITE, generate(dataset="tasks.jsonl", prompt="{task} in {city}"), tmp_path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "task_id"), (2, "city")]
