"""OpenTelemetry GenAI spans grouped by trace into agent runs: one trace is one run.

What is read (semantic conventions for generative AI; the span's attributes over its resource's):
- `gen_ai.operation.name` on every GenAI span; a trace with none is no agent run and is skipped (counted).
- The steps: the `execute_tool` spans in start order; `gen_ai.tool.name` (required), `gen_ai.tool.call.arguments`
  (JSON text or a value), `gen_ai.tool.call.result`, the span's duration as its latency and its own token usage.
- The run's tokens: `gen_ai.usage.input_tokens` + `gen_ai.usage.output_tokens` summed over the model calls (spans
  whose operation is `chat`, `text_completion` or `generate_content`); none given anywhere: unknown.
- The run's latency: from the first span's start to the last span's end.
- The model: the first span (the root first, then by start) giving `otel.model` (`gen_ai.request.model`), else
  `gen_ai.response.model`.
- The suite's `otel:` attributes: the task id (`task.id`, required), the sample (`task.sample`), the harness's verdict
  (`task.success`, true/false), the cost (`task.cost`, summed over the spans giving it) and the final answer
  (`task.final_answer`; else the text parts of the last message of the last model call's `gen_ai.output.messages`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from gate.errors import Problem, describe
from gate.kinds.trajectory.config import OtelAttributes
from gate.kinds.trajectory.runs import Run, Step, arguments_of, total
from gate.kinds.trajectory.spans import Span

OPERATION = "gen_ai.operation.name"
TOOL_CALL = "execute_tool"
MODEL_CALLS = frozenset({"chat", "text_completion", "generate_content"})
TOOL_NAME, ARGUMENTS, RESULT = "gen_ai.tool.name", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"
INPUT_TOKENS, OUTPUT_TOKENS = "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"
RESPONSE_MODEL, OUTPUT_MESSAGES = "gen_ai.response.model", "gen_ai.output.messages"


def traces(spans: Sequence[Span]) -> dict[str, list[Span]]:
    """Spans by trace id, in the order first seen; each trace's spans root first, then by start time."""
    found: dict[str, list[Span]] = {}
    for span in spans:
        found.setdefault(span.trace_id, []).append(span)
    for members in found.values():
        ids = {s.span_id for s in members}
        members.sort(key=lambda s: (s.parent_id in ids, s.start if s.start is not None else math.inf))
    return found


def runs_of(spans: Sequence[Span], names: OtelAttributes, problems: list[Problem]) -> tuple[list[Run], int]:
    """(the agent runs, how many traces held no GenAI span and were skipped)."""
    found, skipped = [], 0
    for trace, members in traces(spans).items():
        if not any(OPERATION in s.attributes for s in members):
            skipped += 1
            continue
        run = _run(trace, members, names, problems)
        if run is not None:
            found.append(run)
    return found, skipped


def _run(trace: str, spans: list[Span], names: OtelAttributes, problems: list[Problem]) -> Run | None:
    before = len(problems)
    task = _first(spans, names.task_id)
    model = _first(spans, names.model) or _first(spans, RESPONSE_MODEL)
    root = spans[0]
    if task is None or not isinstance(task[1], (str, int)) or isinstance(task[1], bool) or not str(task[1]).strip():
        _problem(problems, task[0] if task else root, trace, names.task_id, "the run's task id (text or a whole "
                 "number) on a span of the trace", describe(task[1]) if task else "no span gives it",
                 f"set the attribute {names.task_id!r} on the agent's root span, or name the attribute your "
                 "harness uses in the suite's `otel.task_id`")
    if model is None or not isinstance(model[1], str) or not model[1].strip():
        _problem(problems, model[0] if model else root, trace, names.model, "the model's name on a span of the "
                 f"trace ({names.model} or {RESPONSE_MODEL})", describe(model[1]) if model else "no span gives it",
                 f"record {names.model} on the model calls, or name the attribute in the suite's `otel.model`")
    sample = _first(spans, names.sample)
    if sample is not None and (isinstance(sample[1], bool) or not isinstance(sample[1], (str, int))
                               or not str(sample[1]).strip()):
        _problem(problems, sample[0], trace, names.sample, "the run's sample (a whole number or text)",
                 describe(sample[1]), "number the runs of a task 0, 1, 2, … or leave the attribute out")
    success = _first(spans, names.success)
    if success is not None and not isinstance(success[1], bool):
        _problem(problems, success[0], trace, names.success, "true or false", describe(success[1]),
                 "record the harness's verdict as a boolean attribute")
    steps = [_step(s, trace, problems) for s in spans if s.attributes.get(OPERATION) == TOOL_CALL]
    steps.sort(key=lambda pair: pair[0].start if pair[0].start is not None else math.inf)
    tokens = [_usage(s, trace, problems) for s in spans if s.attributes.get(OPERATION) in MODEL_CALLS]
    cost = _cost(spans, names.cost, trace, problems)
    if len(problems) > before or task is None or model is None:
        return None
    starts = [s.start for s in spans if s.start is not None]
    ends = [s.end for s in spans if s.end is not None]
    return Run(task_id=str(task[1]).strip(), model=str(model[1]).strip(),
               sample=str(sample[1]).strip() if sample is not None else None,
               steps=tuple(step for _, step in steps), final_answer=_answer(spans, names.final_answer),
               success=success[1] if success is not None else None, tokens=total(tokens),
               latency=max(0.0, max(ends) - min(starts)) if starts and ends else None, cost=cost,
               source=root.source, trace_id=trace, start=min(starts) if starts else None)


def _first(spans: list[Span], name: str) -> tuple[Span, Any] | None:
    return next(((s, s.attributes[name]) for s in spans if s.attributes.get(name) is not None), None)


def _problem(problems: list[Problem], span: Span, trace: str, attribute: str, expected: str, found: str,
             fix: str) -> None:
    problems.append(Problem(file=span.source.file, line=span.source.line, record=f"trace {trace[:32]}",
                            field=(f"{span.field}.attributes" if span.field else "attributes") + f".{attribute}",
                            expected=expected, found=found, fix=fix))


def _step(span: Span, trace: str, problems: list[Problem]) -> tuple[Span, Step]:
    name = span.attributes.get(TOOL_NAME)
    if not isinstance(name, str) or not name.strip():
        _problem(problems, span, trace, TOOL_NAME, f"the tool's name on every {TOOL_CALL} span",
                 "nothing" if name is None else describe(name), f"record {TOOL_NAME} on the tool-call spans")
        name = ""
    return span, Step(tool=name.strip(), arguments=arguments_of(span.attributes.get(ARGUMENTS)),
                      result=span.attributes.get(RESULT), tokens=_usage(span, trace, problems),
                      latency=span.duration)


def _usage(span: Span, trace: str, problems: list[Problem]) -> int | None:
    counts = []
    for name in (INPUT_TOKENS, OUTPUT_TOKENS):
        value = span.attributes.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**9:
            _problem(problems, span, trace, name, "a token count (a whole number from 0 to 1e9)", describe(value),
                     "record token usage as the GenAI conventions do: an integer attribute")
            continue
        counts.append(value)
    return sum(counts) if counts else None


def _cost(spans: list[Span], name: str, trace: str, problems: list[Problem]) -> float | None:
    values = []
    for span in spans:
        value = span.attributes.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1e6:
            _problem(problems, span, trace, name, "a cost (a number from 0 to 1e6)", describe(value),
                     "record the run's cost as a number, on one span or on each model call (not both)")
            continue
        values.append(float(value))
    return math.fsum(values) if values else None


def _answer(spans: list[Span], name: str) -> str | None:
    given = _first(spans, name)
    if given is not None:
        return given[1] if isinstance(given[1], str) else json.dumps(given[1], ensure_ascii=False, default=str)
    calls = [s for s in spans if s.attributes.get(OPERATION) in MODEL_CALLS and OUTPUT_MESSAGES in s.attributes]
    if not calls:
        return None
    last = max(calls, key=lambda s: s.start if s.start is not None else -math.inf)
    return message_text(last.attributes[OUTPUT_MESSAGES])


def message_text(value: Any) -> str | None:
    """The text parts of the last output message (`[{role, parts: [{type: "text", content}]}]`, as JSON text or a
    value); the value itself where it is not that shape."""
    messages = arguments_of(value)
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        parts = messages[-1].get("parts")
        if isinstance(parts, list):
            texts = [p.get("content") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
            return "".join(t for t in texts if isinstance(t, str))
    return value if isinstance(value, str) else None
