"""The trajectory kind's generation recipe (`Kind.generation`): each task put to the user's agent, k times.

Dataset: tasks `{task_id, task}` (JSON or JSONL; other fields are carried into the prompt template, default
`{task}`). The agent is a `command` provider (the user's own program, speaking JSON Lines; an OpenAI-compatible
endpoint answers text only, which is an agent run with no tool calls). Its response's `text` is the final answer;
its other fields (`Response.extra`) carry the run:

    {"text": "It is 18 °C in Paris.", "steps": [{"tool": "get_weather", "arguments": {"city": "Paris"},
     "result": "18 °C, sunny", "tokens": 412, "latency": 0.7}], "success": true, "cost": 0.0031}

`steps` may be called `tool_calls`, and a step's `tool` may be called `name` (the shape OpenAI-style tool calls
have); `tokens`, `latency` and `cost` default to what the provider measured for the call. One record per answered
call, in the kind's tool-call log shape (`records.RunRecord`): `{task_id, model, sample, steps, final_answer,
success, tokens, latency, cost, model_version}`. What the agent returns is checked by the kind's reader like any
logged run (a bad step is a located error on the generated file). A failed call writes no record: its task's run is
missing (`missing_tasks`), never passed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from gate.config.generation import GenerateConfig
from gate.errors import InputError
from gate.generate.providers.types import Request, Response
from gate.kinds.generation import Answered, Call, Generation
from gate.kinds.prompts import asked, draws, duplicates, missing_fields, parameters, read_dataset, render, rows_of
from gate.kinds.records import Id, InputModel
from gate.kinds.trajectory.config import TrajectorySuiteConfig

DEFAULT_PROMPT = "{task}"
NonEmpty = Annotated[str, Field(min_length=1)]
STEP_ALIASES = {"name": "tool"}  # an OpenAI-style tool call names its function `name`


class TaskRow(InputModel):
    task_id: Id
    task: NonEmpty


def calls(name: str, suite: TrajectorySuiteConfig, generate: GenerateConfig, base_dir: Path) -> list[Call]:
    tasks = read_dataset(name, "trajectory", generate, base_dir, TaskRow, "tasks")
    template = generate.prompt or DEFAULT_PROMPT
    rows = rows_of(tasks)
    problems = duplicates(tasks, lambda t: str(t.task_id), "task_id", lambda t: f"task {t.task_id!r}")
    problems += missing_fields(template, rows, f"suites.{name}.generate.prompt", "task")
    if problems:
        raise InputError(f"suite '{name}' (trajectory): the generation dataset is invalid", problems)
    settings = parameters(generate)
    found = []
    for task, (values, _) in zip(tasks, rows, strict=True):
        text = render(template, values)
        for model, sample in draws(generate):
            # Every run has its sample: a task's runs are told apart by it whether k is 1 or more.
            fields = {"task_id": task.task_id, "model": model, "sample": sample}
            found.append(Call(Request(model, asked(generate, text), parameters=settings, sample=sample), fields))
    return found


def _step(step: Any) -> Any:
    """A step with `name` read as `tool` where it gives no `tool`; anything else as given (the reader checks it)."""
    if not isinstance(step, Mapping) or "tool" in step or "name" not in step:
        return step
    return {STEP_ALIASES.get(k, k): v for k, v in step.items()}


def run_fields(response: Response) -> dict[str, Any]:
    """The run the agent reported beside its answer, with the provider's own latency, usage and cost where it
    reported none. Values pass as given: the kind's reader checks them."""
    extra: Mapping[str, Any] = response.extra
    steps = extra.get("steps", extra.get("tool_calls", []))
    found: dict[str, Any] = {"steps": [_step(s) for s in steps] if isinstance(steps, list) else steps,
                             "final_answer": response.text}
    if extra.get("success") is not None:
        found["success"] = extra["success"]
    tokens = extra.get("tokens")
    if tokens is None and response.usage.prompt_tokens is not None and response.usage.completion_tokens is not None:
        tokens = response.usage.prompt_tokens + response.usage.completion_tokens
    latency = extra.get("latency", response.latency_s if response.latency_s > 0 else None)
    cost = extra.get("cost", response.cost_usd)
    found.update({k: v for k, v in (("tokens", tokens), ("latency", latency), ("cost", cost)) if v is not None})
    if response.model_version:
        found["model_version"] = response.model_version
    return found


def records(suite: TrajectorySuiteConfig, generate: GenerateConfig, answered: Sequence[Answered]) -> list[
        dict[str, Any]]:
    return [{**call.fields, **run_fields(response)} for call, response in answered if response is not None]


GENERATION: Generation[TrajectorySuiteConfig] = Generation(calls=calls, records=records, reads="records")
