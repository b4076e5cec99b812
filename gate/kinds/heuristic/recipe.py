"""Heuristic's generation recipe (seed heuristic-rubric, `Kind.generation`): each prompt answered by each model.

Dataset: prompts `{category, prompt_id, prompt}` (JSON, JSONL, CSV or XLSX; an `id` is carried along), each
category one of the suite's rubric (the seed's `coding` and `paraphrasing`). The prompt template (default
`{prompt}`: the seed asked its prompts as they stand) takes the row's fields. One call per (prompt, model,
sample); one record per call: `{model, category, prompt_id, prompt, response, sample, model_version}`, `prompt`
being the text asked. A failed call's record has no `response`: the kind's missing output, counted in its
missing-data analysis and never scored.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from gate.config.generation import GenerateConfig
from gate.errors import InputError, Problem, describe
from gate.generate.providers.types import Request
from gate.kinds.generation import Answered, Call, Generation
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.rubric import load_rubric
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
from gate.kinds.records import Id, InputModel

DEFAULT_PROMPT = "{prompt}"
NonEmpty = Annotated[str, Field(min_length=1)]


class PromptRow(InputModel):
    category: NonEmpty
    prompt_id: Id
    prompt: NonEmpty
    id: Id | None = None


def calls(name: str, suite: HeuristicSuiteConfig, generate: GenerateConfig, base_dir: Path) -> list[Call]:
    rubric = load_rubric(suite.rubric, base_dir, f"suites.{name}.rubric")
    prompts = read_dataset(name, "heuristic", generate, base_dir, PromptRow, "prompts", tables=True)
    template = generate.prompt or DEFAULT_PROMPT
    rows = rows_of(prompts)
    categories = list(rubric.categories)
    problems: list[Problem] = []
    for row in prompts:
        if row.category not in rubric.categories:
            where = row.source_ref
            close = difflib.get_close_matches(row.category[:200], categories, n=1, cutoff=0.6)
            problems.append(Problem(file=where.file if where else None, line=where.line if where else None,
                                    field="category", expected=f"a category of rubric {rubric.name}: "
                                    f"{', '.join(categories)}", found=describe(row.category),
                                    fix=f"did you mean {close[0]!r}?" if close else "add the category to the rubric"))
    problems += duplicates(prompts, lambda p: (p.category, p.prompt_id), "prompt_id",
                           lambda p: f"prompt {p.prompt_id!r} of category {p.category!r}")
    problems += missing_fields(template, rows, f"suites.{name}.generate.prompt", "prompt")
    if problems:
        raise InputError(f"suite '{name}' (heuristic): the generation dataset is invalid", problems)
    settings = parameters(generate)
    found = []
    for row, (values, _) in zip(prompts, rows, strict=True):
        text = render(template, values)
        for model, sample in draws(generate):
            fields = {"model": model, "category": row.category, "prompt_id": row.prompt_id, "prompt": text,
                      **({"id": row.id} if row.id is not None else {}), **sample_field(generate, sample)}
            found.append(Call(Request(model, asked(generate, text), parameters=settings, sample=sample), fields))
    return found


def records(suite: HeuristicSuiteConfig, generate: GenerateConfig, answered: Sequence[Answered]) -> list[
        dict[str, Any]]:
    """A record per call; a failed one without `response` (the kind's missing output, not an empty answer)."""
    return [{**call.fields, **({"response": response.text, **version(response)} if response is not None else {})}
            for call, response in answered]


GENERATION: Generation[HeuristicSuiteConfig] = Generation(calls=calls, records=records, reads="records")
