"""Bad inputs of the trajectory kind: tool-call records, OpenTelemetry span exports (OTLP JSON and the SDK's span
JSON), the expectations in gate.yml and in their file, and the baseline runs."""

from __future__ import annotations

import json

from tests.badinputs.corpus import Case, case, with_suite
from tests.badinputs.projects import SUITES, gate_yml, jsonl, trajectory_record

RUNS = "trajectory/m.jsonl"
SPANS = "trajectory/spans.jsonl"
TRACE = "5b8aa5a2d2c872e8321cf37308d69df2"


def _attributes(**values: object) -> list[dict]:
    kinds = {bool: "boolValue", int: "intValue", float: "doubleValue", str: "stringValue"}
    return [{"key": k.replace("__", "."), "value": {kinds[type(v)]: str(v) if isinstance(v, int)
                                                    and not isinstance(v, bool) else v}}
            for k, v in values.items()]


def _span(span: str = "1", operation: str = "invoke_agent", **values: object) -> dict:
    return {"traceId": TRACE, "spanId": span, "name": operation, "startTimeUnixNano": "1717236000000000000",
            "endTimeUnixNano": "1717236001000000000",
            "attributes": _attributes(gen_ai__operation__name=operation, **values)}


def _export(*spans: dict) -> dict:
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": list(spans)}]}]}


ROOT = {"task__id": "t9"}
CHAT = {"gen_ai__request__model": "m"}


def _trace(*spans: dict) -> dict:
    return {SPANS: jsonl(_export(*spans))}


def _suite(extra: str) -> dict:
    return {"gate.yml": gate_yml("trajectory", SUITES["trajectory"] + extra)}


def trajectory_cases() -> list[Case]:
    step = {"tool": "search", "arguments": {"q": "x"}}
    spans = "resourceSpans[0].scopeSpans[0].spans"
    return [
        case("trajectory-step-without-tool", "trajectory", {RUNS: jsonl(trajectory_record(steps=[{"arguments": {}}]))},
             f"{RUNS}:1", "field 'steps[0].tool'", "this required field", "Fix: add `tool`"),
        case("trajectory-step-tool-empty", "trajectory", {RUNS: jsonl(trajectory_record(steps=[{"tool": ""}]))},
             f"{RUNS}:1", "field 'steps[0].tool'", "a non-empty string", "Fix:"),
        case("trajectory-steps-not-list", "trajectory", {RUNS: jsonl(trajectory_record(steps="search, answer"))},
             f"{RUNS}:1", "field 'steps'", "expected a list", "Fix: write `steps` as a JSON list"),
        case("trajectory-step-tokens-negative", "trajectory",
             {RUNS: jsonl(trajectory_record(steps=[{**step, "tokens": -3}]))},
             f"{RUNS}:1", "field 'steps[0].tokens'", "a number ≥ 0", "Fix: use a value of at least 0"),
        case("trajectory-step-tokens-bool", "trajectory",
             {RUNS: jsonl(trajectory_record(steps=[{**step, "tokens": True}]))},
             f"{RUNS}:1", "field 'steps[0].tokens'", "a whole number", "not true/false"),
        case("trajectory-latency-text", "trajectory", {RUNS: jsonl(trajectory_record(latency="slow"))},
             f"{RUNS}:1", "field 'latency'", "a number", "'slow'", "Fix:"),
        case("trajectory-success-text", "trajectory", {RUNS: jsonl(trajectory_record(success="yes"))},
             f"{RUNS}:1", "field 'success'", "true or false", "'yes'", "Fix: write `success` as true or false"),
        case("trajectory-cost-infinite", "trajectory", {RUNS: jsonl(trajectory_record(cost="inf"))},
             f"{RUNS}:1", "field 'cost'", "a finite number", "Fix:"),
        case("trajectory-sample-negative", "trajectory", {RUNS: jsonl(trajectory_record(sample=-1))},
             f"{RUNS}:1", "field 'sample'", "a sample index", "Fix: number the generations from 0"),
        case("trajectory-run-twice", "trajectory", {RUNS: jsonl(trajectory_record(), trajectory_record())},
             f"{RUNS}:2", "field 'task_id'", "one run per (model, task)", f"first at {RUNS}:1",
             "Fix: give each run of the task its own `sample`"),
        case("trajectory-sample-twice", "trajectory",
             {RUNS: jsonl(trajectory_record(sample=0), trajectory_record(sample=0))},
             f"{RUNS}:2", "field 'sample'", "one run per (model, task, sample)", "Fix:"),
        case("trajectory-sample-mixed", "trajectory", {RUNS: jsonl(trajectory_record(sample=0), trajectory_record())},
             f"{RUNS}:2", "field 'sample'", "with and without `sample`", "Fix:"),
        case("trajectory-span-without-trace-id", "trajectory",
             _trace({k: v for k, v in _span(**ROOT).items() if k != "traceId"} | {"spanId": "1"}),
             f"{SPANS}:1", f"field '{spans}[0].traceId'", "the span's trace id", "found nothing",
             "Fix: export every span with its trace id"),
        case("trajectory-span-bad-time", "trajectory", _trace(_span(**ROOT) | {"startTimeUnixNano": "10:00"})
             | {RUNS: None}, f"{SPANS}:1", f"field '{spans}[0].startTimeUnixNano'",
             "nanoseconds since the Unix epoch", "'10:00'", "Fix:"),
        case("trajectory-span-attributes-object", "trajectory", _trace(_span() | {"attributes": {"task.id": "t9"}}),
             f"{SPANS}:1", f"field '{spans}[0].attributes'", "a list of {key, value} attributes", "Fix:"),
        case("trajectory-span-odd-value", "trajectory",
             _trace(_span() | {"attributes": [{"key": "task.id", "value": {"uuidValue": "x"}}]}),
             f"{SPANS}:1", f"field '{spans}[0].attributes[0].value'", "an OTLP AnyValue", "Fix:"),
        case("trajectory-tool-span-without-name", "trajectory",
             _trace(_span(**ROOT), _span("2", "chat", **CHAT), _span("3", "execute_tool")),
             f"{SPANS}:1", f"trace {TRACE}", f"field '{spans}[2].attributes.gen_ai.tool.name'",
             "the tool's name on every execute_tool span", "found nothing", "Fix: record gen_ai.tool.name"),
        case("trajectory-trace-without-task", "trajectory", _trace(_span(), _span("2", "chat", **CHAT)),
             f"{SPANS}:1", f"field '{spans}[0].attributes.task.id'", "the run's task id", "no span gives it",
             "Fix: set the attribute 'task.id'"),
        case("trajectory-trace-without-model", "trajectory", _trace(_span(**ROOT)),
             f"{SPANS}:1", f"field '{spans}[0].attributes.gen_ai.request.model'", "the model's name",
             "Fix: record gen_ai.request.model"),
        case("trajectory-usage-text", "trajectory",
             _trace(_span(**ROOT), _span("2", "chat", **CHAT, gen_ai__usage__input_tokens="many")),
             f"{SPANS}:1", f"field '{spans}[1].attributes.gen_ai.usage.input_tokens'", "a token count", "'many'",
             "Fix:"),
        case("trajectory-success-not-boolean", "trajectory",
             _trace(_span(**ROOT, task__success="yes"), _span("2", "chat", **CHAT)),
             f"{SPANS}:1", f"field '{spans}[0].attributes.task.success'", "true or false", "'yes'", "Fix:"),
        case("trajectory-resource-spans-not-list", "trajectory", {SPANS: jsonl({"resourceSpans": {"spans": []}})},
             f"{SPANS}:1", "field 'resourceSpans'", "a list of resource spans", "Fix:"),
        case("trajectory-sdk-span-bad-time", "trajectory", {SPANS: jsonl({
            "name": "chat", "context": {"trace_id": "0x" + TRACE, "span_id": "0x1"}, "start_time": "yesterday",
            "attributes": {"gen_ai.operation.name": "chat", "task.id": "t9", "gen_ai.request.model": "m"}})},
             f"{SPANS}:1", "field 'start_time'", "an ISO 8601 time with its zone", "'yesterday'", "Fix:"),
        case("trajectory-only-other-traces", "trajectory",
             {RUNS: jsonl({"traceId": "ab", "spanId": "1", "name": "GET /health"})},
             "field 'suites.s.records'", "at least one agent run", "none with a GenAI span", "Fix:"),
        case("trajectory-baseline-bad-record", "trajectory",
             {**_suite("    baseline: base/*.jsonl\n"), "base/b.jsonl": jsonl({"task_id": "t1", "steps": []})},
             "base/b.jsonl:1", "field 'model'", "this required field", "Fix: add `model`"),
        case("trajectory-expect-file-missing", "trajectory", _suite("    expect_file: expect.yml\n"),
             "expect.yml", "Fix:"),
        case("trajectory-expect-file-bad-value", "trajectory",
             {**_suite("    expect_file: expect.yml\n"), "expect.yml": "t1:\n  tools_called: [search]\nt2:\n"
                                                                         "  max_steps: many\n"},
             "expect.yml:4", "field 't2.max_steps'", "Fix:"),
        case("trajectory-expect-file-unknown-field", "trajectory",
             {**_suite("    expect_file: expect.yml\n"), "expect.yml": json.dumps({"t1": {"tool_called": ["a"]}})},
             "expect.yml:1", "field 't1.tool_called'", "unknown field 'tool_called'", "did you mean 'tools_called'"),
        case("trajectory-expect-schema-ref", "trajectory",
             _suite("    expect:\n      t1:\n        arguments: {search: {$ref: '#/x'}}\n"),
             "gate.yml:12", "field 'suites.s.expect.t1.arguments'", "search.$ref: unsupported keyword", "Fix:"),
        case("trajectory-expect-answer-empty", "trajectory", _suite("    expect:\n      t1: {answer: {}}\n"),
             "gate.yml:11", "field 'suites.s.expect.t1.answer'", "one of `exact`, `contains` or `similar_to`", "Fix:"),
        case("trajectory-edit-distance-without-baseline", "trajectory",
             with_suite("trajectory", checks="{tool_edit_distance_mean: {max: 1}}"),
             "field 'suites.s.checks.tool_edit_distance_mean'", "a `baseline:` of runs", "Fix: add `baseline:"),
        case("trajectory-significant-pass-hat-k", "trajectory",
             with_suite("trajectory", checks="{pass_hat_k: {max_decrease: 0, significant: true}}"),
             "field 'suites.s.checks.pass_hat_k'", "a metric the items determine", "Fix: drop `significant: true`"),
    ]
