"""What the kinds' generation recipes share (`Kind.generation`, each kind's `recipe.py`): the suite's dataset read
with located errors, a prompt template filled with a row's fields, and the parts of each request.

A template names a row's field as `{field}`; `{{` and `}}` are literal braces, and any other brace is text (a JSON
example in a prompt needs no escaping). A template naming a field a row lacks is a located error, said once per
field at the first row that lacks it. A value that is not text enters the prompt as compact JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from gate import io
from gate.config.generation import GenerateConfig
from gate.errors import InputError, Problem
from gate.generate.providers.types import Message, Parameters, Response
from gate.io import SourceRef
from gate.kinds.records import InputModel, short, validate_each

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", bound=InputModel)
_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")

Row = tuple[Mapping[str, Any], SourceRef | None]  # a row's template fields, and where it was read


def template_fields(template: str) -> tuple[str, ...]:
    """The fields a template names, in order of first mention."""
    return tuple(dict.fromkeys(m.group(1) for m in _FIELD.finditer(template) if m.group(1)))


def text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def render(template: str, values: Mapping[str, Any]) -> str:
    """The template with each `{field}` replaced by the row's value (`missing_fields` first: a lacking one raises)."""
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return match.group(0)[0]
        return text_of(values[name])
    return _FIELD.sub(replace, template)


def has(values: Mapping[str, Any], name: str) -> bool:
    """Whether a row gives the field: null and blank text do not."""
    value = values.get(name)
    return value is not None and not (isinstance(value, str) and not value.strip())


def missing_fields(template: str, rows: Sequence[Row], where: str, what: str = "row") -> list[Problem]:
    """One located problem per field the template names that some row lacks (or gives as null or blank): at the first
    such row, with how many lack it."""
    problems = []
    for name in template_fields(template):
        lacking = [source for values, source in rows if not has(values, name)]
        if not lacking:
            continue
        first = lacking[0]
        problems.append(Problem(
            file=first.file if first else None, line=first.line if first else None, field=name,
            expected=f"the field `{name}` that the prompt template ({where}) names",
            found=f"nothing ({len(lacking)} of {len(rows)} {what}s lack it)",
            fix=f"add `{name}` to every {what}, or change the template ({where}) to the fields the {what}s have"))
    return problems


def check_template(template: str, rows: Sequence[Row], where: str, what: str = "row") -> None:
    """`missing_fields` raised as one InputError."""
    problems = missing_fields(template, rows, where, what)
    if problems:
        raise InputError(f"{where}: the prompt template names fields the {what}s lack", problems)


def read_dataset(name: str, kind: str, generate: GenerateConfig, base_dir: Path, model: type[M], what: str, *,
                 tables: bool = False) -> list[M]:
    """The rows of `generate.dataset` (relative to gate.yml, inside the workspace; under the pull request's tree when
    gate.yml comes from a base checkout: prompts are data), validated into `model`;
    InputError naming each bad row's file, line and field. `what` names the rows in words ("questions")."""
    field = f"suites.{name}.generate.dataset"
    formats = "JSON or JSONL" + (", CSV or XLSX" if tables else "")
    if generate.dataset is None:
        raise InputError(f"suite '{name}' ({kind}): generation needs its dataset", [Problem(
            field=field, expected=f"the {what} to ask ({formats} files)", found="nothing",
            fix=f"set `dataset:` under `generate:` to the {what}' files (globs, relative to gate.yml)")])
    problems: list[Problem] = []
    paths, bad = io.expand_globs(generate.dataset, base_dir, field, data=True)  # the pull request's data
    problems += bad
    raw, bad = io.read_records(paths, tables=tables)
    problems += bad
    rows = validate_each(model, raw, problems)
    if not rows and not problems:
        problems.append(Problem(field=field, expected=f"at least one of the {what}", found="empty files",
                                fix=f"add the {what} to the dataset"))
    if problems:
        raise InputError(f"suite '{name}' ({kind}): the generation dataset is invalid", problems)
    return rows


def rows_of(records: Sequence[InputModel]) -> list[Row]:
    """Validated dataset rows as template rows: every field, the extra ones too."""
    return [(record.model_dump(), record.source_ref) for record in records]


def duplicates(records: Sequence[R], key: Callable[[R], Hashable], field: str,
               what: Callable[[R], str]) -> list[Problem]:
    """A row whose `key` an earlier row has: it would make records the kind refuses as repeated."""
    problems: list[Problem] = []
    seen: dict[Hashable, SourceRef | None] = {}
    for record in records:
        identity = key(record)
        where = record.source_ref
        if identity in seen:
            problems.append(Problem(file=where.file if where else None, line=where.line if where else None,
                                    field=field, expected=f"each `{field}` once in the dataset",
                                    found=f"{short(what(record))} again (first at {seen[identity]})",
                                    fix="remove the repeated row, or give it its own id"))
            continue
        seen[identity] = where
    return problems


def parameters(generate: GenerateConfig, *, logprobs: bool = False) -> Parameters:
    given = generate.parameters
    return Parameters(temperature=given.temperature, max_tokens=given.max_tokens, top_p=given.top_p,
                      seed=given.seed, stop=tuple(given.stop), logprobs=logprobs,
                      response_format=given.response_format)


def conversation(generate: GenerateConfig, *turns: Message) -> tuple[Message, ...]:
    """The turns after `generate.system`, when it is set."""
    return ((Message("system", generate.system),) if generate.system else ()) + turns


def asked(generate: GenerateConfig, text: str) -> tuple[Message, ...]:
    """One user turn after the system message."""
    return conversation(generate, Message("user", text))


def draws(generate: GenerateConfig) -> Iterator[tuple[str, int]]:
    """(model, sample) of every generation of one prompt: each model, k samples each."""
    for model in generate.models:
        for sample in range(generate.samples):
            yield model, sample


def sample_field(generate: GenerateConfig, sample: int) -> dict[str, Any]:
    """The records' `sample` field: only when k > 1, so one generation per prompt keeps the keys as before."""
    return {"sample": sample} if generate.samples > 1 else {}


def version(response: Response) -> dict[str, Any]:
    """The model version the server reported, where it did (kept on the record as an extra field)."""
    return {"model_version": response.model_version} if response.model_version else {}
