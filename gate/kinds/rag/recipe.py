"""RAG's generation recipe (seed rag-evaluation, `Kind.generation`): each test query put to the user's pipeline.

Dataset: queries `{query}` with what the seed's test samples know before an answer — `id`, `expected_answer`,
`ground_truth_ids`, `ground_truth_contexts`, `ground_truth_relevance` (JSON or JSONL). The prompt template (default
`{query}`) takes the row's fields. The pipeline is usually a `command` provider: its response's `text` is the
answer and its other fields (`Response.extra`) carry `retrieved_ids`, `retrieved_contexts`, `relevance_scores`,
`latency` (s), `prompt_tokens`/`completion_tokens` (or `tokens: {prompt, completion}`) and `cost`; the response's
own latency, usage and cost fill in what the pipeline does not report. One record per answered call, in the seed's
test-sample shape (`records.RagRecord`): `{id, query, expected_answer, ground_truth_…, actual_answer, retrieved_…,
latency, prompt_tokens, completion_tokens, cost, model, sample, model_version}`; with several models each is its own
candidate `system`. What the pipeline returns is checked by the kind's reader like any test sample (a bad field
is a located error on the generated file). A failed call writes no record: its query is missing.
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
from gate.kinds.prompts import (
    asked,
    draws,
    duplicates,
    missing_fields,
    parameters,
    read_dataset,
    render,
    rows_of,
    sample_field,
    version,
)
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.records import Id, InputModel, Magnitude

DEFAULT_PROMPT = "{query}"
NonEmpty = Annotated[str, Field(min_length=1)]
KNOWN = ("id", "query", "expected_answer", "ground_truth_ids", "ground_truth_contexts", "ground_truth_relevance")
RETRIEVED = ("retrieved_ids", "retrieved_contexts", "relevance_scores")
_TOKENS = {"prompt_tokens": ("prompt_tokens", "prompt"), "completion_tokens": ("completion_tokens", "completion")}


class QueryRow(InputModel):
    query: NonEmpty
    id: Id | None = None
    expected_answer: str | None = None
    ground_truth_ids: list[Id] | None = None
    ground_truth_contexts: list[str] | None = None
    ground_truth_relevance: list[Magnitude] | None = None


def calls(name: str, suite: RagSuiteConfig, generate: GenerateConfig, base_dir: Path) -> list[Call]:
    queries = read_dataset(name, "rag", generate, base_dir, QueryRow, "queries")
    template = generate.prompt or DEFAULT_PROMPT
    rows = rows_of(queries)
    problems = duplicates(queries, lambda q: q.id if q.id is not None else q.query, "id",
                          lambda q: f"id {q.id!r}" if q.id is not None else f"query {q.query!r}")
    problems += missing_fields(template, rows, f"suites.{name}.generate.prompt", "query")
    if problems:
        raise InputError(f"suite '{name}' (rag): the generation dataset is invalid", problems)
    settings = parameters(generate)
    several = len(generate.models) > 1  # one model: the default candidate system, so its keys stay as they were
    found = []
    for values, _ in rows:
        text = render(template, values)
        known = {k: values[k] for k in KNOWN if values.get(k) is not None}
        for model, sample in draws(generate):
            fields = {**known, "model": model, **({"system": model} if several else {}),
                      **sample_field(generate, sample)}
            found.append(Call(Request(model, asked(generate, text), parameters=settings, sample=sample), fields))
    return found


def measured(response: Response) -> dict[str, Any]:
    """What the pipeline reported beside its answer, with the response's own latency, usage and cost where it
    reported none. Values pass as given: the kind's reader checks them."""
    extra: Mapping[str, Any] = response.extra
    found: dict[str, Any] = {k: extra[k] for k in RETRIEVED if extra.get(k) is not None}
    latency = extra.get("latency")
    if latency is not None:
        found["latency"] = latency
    elif response.latency_s > 0:
        found["latency"] = response.latency_s
    tokens = extra.get("tokens")
    usage = {"prompt_tokens": response.usage.prompt_tokens, "completion_tokens": response.usage.completion_tokens}
    for field, (name, short) in _TOKENS.items():
        value = extra.get(name)
        if value is None and isinstance(tokens, Mapping):
            value = tokens.get(name, tokens.get(short))
        if value is None:
            value = usage[field]
        if value is not None:
            found[field] = value
    if tokens is not None and not isinstance(tokens, Mapping):
        found["tokens"] = tokens  # a total the record keeps as given (the cost reads the two counts)
    cost = extra.get("cost")
    cost = cost if cost is not None else response.cost_usd
    if cost is not None:
        found["cost"] = cost
    return found


def records(suite: RagSuiteConfig, generate: GenerateConfig, answered: Sequence[Answered]) -> list[dict[str, Any]]:
    found = []
    for call, response in answered:
        if response is None:
            continue  # a failed call: the query has no answer, never an empty one
        found.append({**call.fields, "actual_answer": response.text, **measured(response), **version(response)})
    return found


GENERATION: Generation[RagSuiteConfig] = Generation(calls=calls, records=records, reads="records")
