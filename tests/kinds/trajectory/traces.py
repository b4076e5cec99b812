"""Agent runs as a harness writes them: tool-call records (JSONL) and OpenTelemetry GenAI spans (OTLP JSON and the
Python SDK's span JSON), built from (tool, arguments) calls, for the trajectory kind's tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Call = tuple[str, Any]  # (tool, arguments)


def record(task: str, calls: Sequence[Call] = (), model: str = "m", **fields: Any) -> dict:
    """A run record {task_id, model, steps, ...}; `fields` add final_answer, success, cost, sample, tokens..."""
    return {"task_id": task, "model": model,
            "steps": [{"tool": tool, "arguments": arguments, "tokens": 10, "latency": 0.5}
                      for tool, arguments in calls], **fields}


def jsonl(*rows: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def any_value(value: Any) -> dict:
    """A Python value as an OTLP JSON AnyValue (intValue as text, as the protobuf JSON mapping writes int64)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def otlp_span(trace: str, span: str, operation: str, start: float, end: float, parent: str | None = None,
              name: str | None = None, **attributes: Any) -> dict:
    """One OTLP JSON span; attribute names use `__` for dots (gen_ai__tool__name)."""
    found = {"gen_ai.operation.name": operation, **{k.replace("__", "."): v for k, v in attributes.items()}}
    return {"traceId": trace, "spanId": span, **({"parentSpanId": parent} if parent else {}),
            "name": name or operation, "kind": 1, "startTimeUnixNano": str(int(start * 1e9)),
            "endTimeUnixNano": str(int(end * 1e9)),
            "attributes": [{"key": k, "value": any_value(v)} for k, v in found.items() if v is not None]}


def otlp_export(*spans: dict, resource: dict | None = None) -> dict:
    return {"resourceSpans": [{"resource": {"attributes": [{"key": k, "value": any_value(v)}
                                                           for k, v in (resource or {}).items()]},
                               "scopeSpans": [{"scope": {"name": "agent"}, "spans": list(spans)}]}]}


def agent_spans(trace: str, task: str, calls: Sequence[Call], model: str = "m", *, start: float = 1_700_000_000.0,
                answer: str | None = None, success: bool | None = None, sample: int | None = None,
                cost: float | None = None, usage: tuple[int, int] = (100, 20)) -> list[dict]:
    """One agent run's spans: the root `invoke_agent` (task, sample, success, cost), a `chat` before each tool call
    and one at the end (with the answer as output messages), and an `execute_tool` per call."""
    spans, t = [], start + 0.1
    messages = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]) if answer else None
    for i in range(len(calls) + 1):
        last = i == len(calls)
        spans.append(otlp_span(trace, f"c{i}", "chat", t, t + 0.2, "root", gen_ai__request__model=model,
                               gen_ai__usage__input_tokens=usage[0], gen_ai__usage__output_tokens=usage[1],
                               gen_ai__output__messages=messages if last else None))
        t += 0.3
        if not last:
            tool, arguments = calls[i]
            spans.append(otlp_span(trace, f"t{i}", "execute_tool", t, t + 0.5, "root", name=f"execute_tool {tool}",
                                   gen_ai__tool__name=tool, gen_ai__tool__call__arguments=json.dumps(arguments)))
            t += 0.6
    root = otlp_span(trace, "root", "invoke_agent", start, t, task__id=task, task__success=success,
                     task__sample=sample, task__cost=cost)
    return [root, *spans]


def sdk_span(otlp: dict) -> dict:
    """The same span as the Python SDK's `ReadableSpan.to_json()` writes it."""
    from datetime import datetime, timezone

    def iso(nanos: str) -> str:
        return datetime.fromtimestamp(int(nanos) / 1e9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    attributes = {}
    for entry in otlp["attributes"]:
        [(kind, value)] = entry["value"].items()
        attributes[entry["key"]] = int(value) if kind == "intValue" else value
    return {"name": otlp["name"], "context": {"trace_id": "0x" + otlp["traceId"], "span_id": "0x" + otlp["spanId"],
                                              "trace_state": "[]"},
            "kind": "SpanKind.INTERNAL", "parent_id": "0x" + otlp["parentSpanId"] if "parentSpanId" in otlp else None,
            "start_time": iso(otlp["startTimeUnixNano"]), "end_time": iso(otlp["endTimeUnixNano"]),
            "status": {"status_code": "UNSET"}, "attributes": attributes, "events": [], "links": [],
            "resource": {"attributes": {"service.name": "agent"}, "schema_url": ""}}
