"""One agent run as the scorer reads it, whichever format it came from: the task, the model, the ordered tool calls
(name, arguments, result, tokens, latency), the final answer, the harness's verdict, its tokens, latency and cost."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gate.io import SourceRef


@dataclass(frozen=True)
class Step:
    """One tool call."""

    tool: str
    arguments: Any = None  # a JSON value (an object as a dict); a string that is JSON is read as that JSON
    result: Any = None
    tokens: int | None = None
    latency: float | None = None  # seconds


@dataclass(frozen=True)
class Run:
    task_id: str
    model: str
    sample: str | None
    steps: tuple[Step, ...]
    final_answer: str | None = None
    success: bool | None = None  # the harness's verdict, where it gives one
    tokens: int | None = None
    latency: float | None = None  # seconds
    cost: float | None = None
    source: SourceRef | None = None  # the record's line, or a trace's first span's
    trace_id: str | None = None  # an OpenTelemetry trace's id
    start: float | None = None  # a trace's first start, seconds since the epoch

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(step.tool for step in self.steps)

    def label(self) -> str:
        sample = f" sample {self.sample}" if self.sample is not None else ""
        return f"task {self.task_id!r} for model {self.model!r}{sample}"


def arguments_of(value: Any) -> Any:
    """Tool-call arguments as JSON: the string an API returns them in (OpenAI's `arguments`, OpenTelemetry's
    `gen_ai.tool.call.arguments`) is parsed; a string that is no JSON stays the string (a model's malformed call is
    the agent's output, judged by the expectations, not an input error)."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def canonical(value: Any) -> str:
    """Arguments as comparable text: two calls with equal arguments give the same text whatever the key order.
    Arguments nested deeper than Python recurses (model output: a JSON parser allows ~1,000 levels) are written
    without recursion, to the same text."""
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    except RecursionError:
        return _canonical_deep(value)


class _Text(str):
    """Text already written, on `_canonical_deep`'s stack (a value that is a `str` is written as JSON)."""


def _canonical_deep(value: Any) -> str:
    """`canonical`'s text with an explicit stack instead of recursion."""
    out: list[str] = []
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, _Text):
            out.append(item)
        elif isinstance(item, dict):
            parts: list[Any] = [_Text("{")]
            for i, key in enumerate(sorted(item)):
                parts += [_Text(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":"), item[key]]
            pending.extend(reversed([*parts, _Text("}")]))
        elif isinstance(item, (list, tuple)):
            parts = [_Text("[")]
            for i, element in enumerate(item):
                parts += [_Text(",")] if i else []
                parts.append(element)
            pending.extend(reversed([*parts, _Text("]")]))
        else:
            out.append(json.dumps(item, ensure_ascii=False, default=str))
    return "".join(out)


def total(values: list[int | None]) -> int | None:
    """The sum of the values given; None when none is."""
    given = [v for v in values if v is not None]
    return sum(given) if given else None
