"""Stability's generation recipe (seed stability-coefficient, `Kind.generation`): each question asked in its n = 10
prompt variants, each answer with its token log-probabilities.

Dataset: questions `{task, question_id, question}` (JSON, JSONL, CSV or XLSX), optionally `variants` (the texts to
ask, as a JSON list; default: the mechanical variants of `variants.stability_variants`, the question itself
first). The prompt template (default `{question}`) receives each variant as `{question}`; its other fields are the
row's. One call per (question, variant, model), with `logprobs`; one record per answered call:
`{model, task, question_id, variant_id, variation, prompt, response, token_logprobs, model_version}`. The scorer
takes each answer's probability P from `token_logprobs` as the suite's `answer_probability` says (the geometric
mean exp(mean ln p) by default) and multiplies the mean off-diagonal similarity by P's mean. A failed call leaves
its variant out (the question is measured over the variants that answered). `samples` must stay 1: a stability
item is a question over its variants, already repeated.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from gate.config.generation import GenerateConfig
from gate.errors import InputError, Problem
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
    template_fields,
    version,
)
from gate.kinds.records import MAX_MAGNITUDE, Id, InputModel, invalid, short
from gate.kinds.stability.config import StabilitySuiteConfig
from gate.kinds.stability.variants import Variant, stability_variants

DEFAULT_PROMPT = "{question}"
NonEmpty = Annotated[str, Field(min_length=1)]


def _json_list(value: Any) -> Any:
    """A CSV/XLSX cell holds the variants as JSON text; an empty cell gives none."""
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            raise invalid("a JSON list of texts", fix="write the variants as a JSON list, e.g. [\"Q?\", \"q?\"], "
                          "or leave the cell empty for the mechanical ones") from None
    return value


class Question(InputModel):
    task: NonEmpty
    question_id: Id
    question: NonEmpty
    variants: Annotated[list[NonEmpty] | None, BeforeValidator(_json_list), Field(min_length=2)] = None


def variants_of(question: Question) -> tuple[Variant, ...]:
    if question.variants is None:
        return stability_variants(question.question)
    return tuple(Variant(f"v{i:02d}", "given", text) for i, text in enumerate(dict.fromkeys(question.variants)))


def calls(name: str, suite: StabilitySuiteConfig, generate: GenerateConfig, base_dir: Path) -> list[Call]:
    where = f"suites.{name}.generate"
    problems: list[Problem] = []
    if generate.samples > 1:
        problems.append(Problem(field=f"{where}.samples", expected="1: a stability item is a question over its "
                                "prompt variants, already repeated", found=str(generate.samples),
                                fix="leave `samples` out; the variants are the repetitions"))
    template = generate.prompt or DEFAULT_PROMPT
    if "question" not in template_fields(template):
        problems.append(Problem(field=f"{where}.prompt", expected="a template naming {question}, where each "
                                "prompt variant goes", found=repr(short(template)),
                                fix="put {question} where the question belongs"))
    if problems:
        raise InputError(f"suite '{name}' (stability): generate: cannot vary the questions", problems)
    questions = read_dataset(name, "stability", generate, base_dir, Question, "questions", tables=True)
    rows = rows_of(questions)
    problems += duplicates(questions, lambda q: (q.task, q.question_id), "question_id",
                           lambda q: f"task {q.task!r} question {q.question_id!r}")
    problems += missing_fields(template, rows, f"{where}.prompt", "question")
    if problems:
        raise InputError(f"suite '{name}' (stability): the generation dataset is invalid", problems)
    settings = parameters(generate, logprobs=True)
    found = []
    for question, (values, _) in zip(questions, rows, strict=True):
        for variant in variants_of(question):
            text = render(template, {**values, "question": variant.text})
            for model, sample in draws(generate):
                found.append(Call(Request(model, asked(generate, text), parameters=settings, sample=sample), {
                    "model": model, "task": question.task, "question_id": question.question_id,
                    "variant_id": variant.id, "variation": variant.kind, "prompt": text}))
    return found


def token_logprobs(response: Response) -> list[float] | None:
    """The answer's natural-log token probabilities as the records take them (each ≤ 0 and ≥ −1e6: a server's
    rounding above 0 is 0, its −inf the floor); None when there are none, or one is not a number."""
    given = response.token_logprobs
    if not given or any(math.isnan(lp) for _, lp in given):
        return None
    return [min(0.0, max(float(lp), -MAX_MAGNITUDE)) for _, lp in given]


def records(suite: StabilitySuiteConfig, generate: GenerateConfig, answered: Sequence[Answered]) -> list[
        dict[str, Any]]:
    found = []
    for call, response in answered:
        if response is None:
            continue  # a failed call: this variant has no answer, never a made-up one
        record = {**call.fields, "response": response.text, **version(response)}
        logprobs = token_logprobs(response)
        if logprobs is not None:
            record["token_logprobs"] = logprobs
        found.append(record)
    return found


GENERATION: Generation[StabilitySuiteConfig] = Generation(calls=calls, records=records, reads="records",
                                                          logprobs=True)
