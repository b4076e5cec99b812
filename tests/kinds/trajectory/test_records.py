"""Agent runs read from both formats into one shape: tool-call records and OpenTelemetry GenAI spans (OTLP JSON,
one export per line or pretty-printed; the SDK's span JSON), grouped by trace id across lines and files; bad traces
are located problems (file, line, field, expected, found, fix), all of them at once."""

from __future__ import annotations

import json

import pytest

from gate.errors import InputError
from gate.kinds.trajectory.config import TrajectorySuiteConfig
from gate.kinds.trajectory.records import load_trajectory
from tests.kinds.trajectory.traces import agent_spans, jsonl, otlp_export, otlp_span, record, sdk_span, write


@pytest.fixture(autouse=True)
def _in_the_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # paths in problems are relative to the working directory


CALLS = [("search", {"q": "weather in Paris"}), ("get_weather", {"city": "Paris", "unit": "C"})]


def load(directory, **fields):
    config = TrajectorySuiteConfig.model_validate({"kind": "trajectory", "records": "runs/*", **fields})
    return load_trajectory("agent", config, directory)


def problems(directory, **fields) -> list:
    with pytest.raises(InputError) as caught:
        load(directory, **fields)
    return list(caught.value.problems)


def test_a_run_reads_the_same_from_every_format(tmp_path):
    spans = agent_spans("ab" * 16, "weather", CALLS, model="gpt-x", answer="18 °C", success=True, cost=0.02)
    write(tmp_path / "runs" / "logged.jsonl", jsonl(record(
        "weather", CALLS, model="gpt-x", final_answer="18 °C", success=True, cost=0.02, tokens=360)))
    [logged] = load(tmp_path).runs
    formats = {
        "otlp.jsonl": jsonl(otlp_export(*spans)),  # the collector's file exporter: one export a line
        "otlp.json": json.dumps(otlp_export(*spans), indent=2),
        "sdk.json": json.dumps([sdk_span(s) for s in spans], indent=2),  # ConsoleSpanExporter / to_json()
        "sdk.jsonl": jsonl(*(sdk_span(s) for s in spans)),
    }
    for name, text in formats.items():
        (tmp_path / "runs" / "logged.jsonl").unlink(missing_ok=True)
        for other in (tmp_path / "runs").iterdir():
            other.unlink()
        write(tmp_path / "runs" / name, text)
        data = load(tmp_path)
        [run] = data.runs
        assert data.formats == ("otel",)
        assert (run.task_id, run.model, run.tools, run.final_answer, run.success, run.cost) == (
            logged.task_id, logged.model, logged.tools, logged.final_answer, logged.success, logged.cost), name
        assert [s.arguments for s in run.steps] == [s.arguments for s in logged.steps]  # parsed from JSON text
        assert run.tokens == 3 * (100 + 20) == logged.tokens  # three model calls' input + output tokens
        assert run.latency == pytest.approx(2.2, abs=1e-5)  # the root span: first start to last end
        assert [s.latency for s in run.steps] == pytest.approx([0.5, 0.5], abs=1e-5)
        assert run.trace_id == "ab" * 16 and run.source is not None and run.source.file.endswith(name)


def test_a_logged_run_sums_its_steps_where_it_gives_no_totals(tmp_path):
    write(tmp_path / "runs" / "r.jsonl", jsonl(record("t", CALLS), record("u", [("ls", "{\"path\": \"/\"}")],
                                                                          tokens=7, latency=9.0)))
    first, second = load(tmp_path).runs
    assert (first.tokens, first.latency, first.cost, first.success) == (20, 1.0, None, None)
    assert (second.tokens, second.latency) == (7, 9.0)
    assert second.steps[0].arguments == {"path": "/"}  # OpenAI's arguments string, read as JSON


def test_spans_of_one_trace_are_one_run_across_files_and_traces_of_a_task_are_numbered(tmp_path):
    first = agent_spans("01" * 16, "t", CALLS, start=100.0)
    second = agent_spans("02" * 16, "t", CALLS[:1], start=50.0)
    write(tmp_path / "runs" / "a.jsonl", jsonl(otlp_export(*first[:3]), otlp_export(*second)))
    write(tmp_path / "runs" / "b.jsonl", jsonl(otlp_export(*first[3:])))
    write(tmp_path / "runs" / "noise.jsonl", jsonl(otlp_export({"traceId": "ff", "spanId": "1", "name": "GET /"})))
    data = load(tmp_path)
    assert sorted((r.sample, r.tools) for r in data.runs) == [("0", ("search",)), ("1", ("search", "get_weather"))]
    assert data.skipped_traces == 1  # no gen_ai.operation.name: not an agent run


def test_resource_attributes_and_the_configured_attribute_names(tmp_path):
    spans = agent_spans("cd" * 16, "ignored", CALLS, model="m")
    for span in spans:
        span["attributes"] = [a for a in span["attributes"] if a["key"] != "task.id"]
    spans[0]["attributes"].append({"key": "eval.success", "value": {"boolValue": False}})
    write(tmp_path / "runs" / "o.json", json.dumps(otlp_export(*spans, resource={"eval.task": "weather-7"})))
    [run] = load(tmp_path, otel={"task_id": "eval.task", "success": "eval.success"}).runs
    assert (run.task_id, run.success) == ("weather-7", False)


def test_bad_traces_are_located_all_at_once(tmp_path):
    good = agent_spans("aa" * 16, "t", CALLS)
    no_task = [dict(s, attributes=[a for a in s["attributes"] if a["key"] != "task.id"])
               for s in agent_spans("bb" * 16, "t", CALLS)]
    nameless = agent_spans("cc" * 16, "u", CALLS)
    nameless[2]["attributes"] = [a for a in nameless[2]["attributes"] if a["key"] != "gen_ai.tool.name"]
    bad_usage = agent_spans("dd" * 16, "v", [])
    bad_usage[1]["attributes"].append({"key": "gen_ai.usage.input_tokens", "value": {"stringValue": "many"}})
    text = json.dumps(otlp_export(*good, *no_task, *nameless, *bad_usage), indent=1)
    write(tmp_path / "runs" / "o.json", text)
    write(tmp_path / "runs" / "r.jsonl", jsonl(
        {"task_id": "w", "model": "m", "steps": [{"tool": "", "tokens": -1}]},
        {"task_id": "w", "model": "m", "steps": [], "success": "yes"},
        {"traceId": "ee", "startTimeUnixNano": "soon", "attributes": [{"key": "x", "value": {"odd": 1}}]}))
    found = problems(tmp_path)
    by_field = {p.field: p for p in found}
    # each trace problem is at the line where its span's object opens (the line above its "traceId")
    opening = [number for number, line in enumerate(text.splitlines()) if line.strip().startswith('"traceId"')]
    spans = "resourceSpans[0].scopeSpans[0].spans"
    task = by_field[f"{spans}[6].attributes.task.id"]  # the second trace's root span
    assert (task.file, task.line, task.record) == ("runs/o.json", opening[6], f"trace {'bb' * 16}")
    assert "task id" in task.expected and task.found == "no span gives it" and "otel.task_id" in task.fix
    tool = by_field[f"{spans}[14].attributes.gen_ai.tool.name"]
    assert tool.line == opening[14] and "tool's name" in tool.expected and tool.found == "nothing"
    assert "gen_ai.tool.name" in tool.fix
    usage = by_field[f"{spans}[19].attributes.gen_ai.usage.input_tokens"]
    assert usage.line == opening[19] and usage.found == "'many'" and "token count" in usage.expected
    logged = {(p.line, p.field): p for p in found if p.file == "runs/r.jsonl"}
    assert logged[(1, "steps[0].tool")].expected == "a non-empty string"
    assert logged[(1, "steps[0].tokens")].fix == "use a value of at least 0"
    assert logged[(2, "success")].expected == "true or false" and logged[(2, "success")].found == "'yes'"
    assert "nanoseconds since the Unix epoch" in logged[(3, "startTimeUnixNano")].expected
    assert "OTLP AnyValue" in logged[(3, "attributes[0].value")].expected
    assert all(p.expected and p.fix for p in found)
    assert len(found) == 8, [(p.file, p.line, p.field) for p in found]


def test_a_run_twice_needs_samples_and_mixing_is_refused(tmp_path):
    write(tmp_path / "runs" / "r.jsonl", jsonl(record("t"), record("t"), record("u", sample=0), record("u"),
                                                record("v", sample=1), record("v", sample=1)))
    found = {(p.line, p.field): p for p in problems(tmp_path)}
    assert "one run per (model, task)" in found[(2, "task_id")].expected
    assert "its own `sample`" in found[(2, "task_id")].fix
    assert "with and without `sample`" in found[(4, "sample")].found
    assert "one run per (model, task, sample)" in found[(6, "sample")].expected


def test_expectations_from_a_file_with_located_errors(tmp_path):
    write(tmp_path / "runs" / "r.jsonl", jsonl(record("t", CALLS)))
    write(tmp_path / "expect.yml", "t:\n  tools_called: [search]\n42:\n  max_steps: many\n")
    found = problems(tmp_path, expect_file="expect.yml")
    assert [(p.file, p.line, p.field) for p in found] == [("expect.yml", 4, "42.max_steps")]
    write(tmp_path / "expect.yml", "t:\n  tools_called: [search]\n42: {max_steps: 3}\n")
    data = load(tmp_path, expect_file="expect.yml", expect={"*": {"tools_never": ["rm"]}})
    assert set(data.expectations) == {"t", "42", "*"}
    [twice] = problems(tmp_path, expect_file="expect.yml", expect={"t": {"max_steps": 1}})
    assert twice.field == "t" and "also under `suites.agent.expect`" in twice.found


def test_only_the_selected_models_and_nothing_found_is_a_problem(tmp_path):
    write(tmp_path / "runs" / "r.jsonl", jsonl(record("t", model="a"), record("t", model="b")))
    assert [r.model for r in load(tmp_path, models=["b"]).runs] == ["b"]
    write(tmp_path / "runs" / "r.jsonl", jsonl(otlp_export(otlp_span("ab", "1", "GET", 0, 1))))
    (tmp_path / "runs" / "r.jsonl").write_text(jsonl({"traceId": "ab", "spanId": "1", "name": "GET /"}))
    [nothing] = problems(tmp_path)
    assert nothing.field == "suites.agent.records" and "none with a GenAI span" in nothing.found
