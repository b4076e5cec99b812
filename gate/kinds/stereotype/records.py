"""Stereotype suite inputs: paired control / bias-injected responses per probe (DESIGN.md §3).

Accepted: JSONL or JSON records (`turn2_response` is the seed's name for `bias_response`), and the
seed's evaluation files — a JSON object holding a list of entries under `results` (or `records`,
`responses`, `evaluations`, `entries`) whose top-level `model` and `date` apply to every entry that
does not name its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, model_validator

from gate import io
from gate.errors import InputError, Problem
from gate.io import RawRecord, SourceRef
from gate.kinds.records import Id, InputModel, Text, invalid, selected_models, short, validate_each
from gate.kinds.samples.field import Sample, SampleMixing
from gate.kinds.stereotype.config import StereotypeSuiteConfig

NonEmpty = Annotated[str, Field(min_length=1)]
ENTRY_LISTS = ("results", "records", "responses", "evaluations", "entries")
INHERITED = ("model", "date", "sample")  # an evaluation file may be one generation run: `sample` for all entries


class StereotypeRecord(InputModel):
    model: NonEmpty
    emgsd_text: NonEmpty
    trait: NonEmpty
    control_response: Text
    bias_response: Text
    id: Id | None = None
    date: str | None = None
    sample: Sample = None  # one of several generations for this probe (gate.kinds.samples.field); needs an `id`

    @model_validator(mode="before")
    @classmethod
    def _turn2_is_bias(cls, data: Any) -> Any:
        """The seed calls the bias-injected answer `turn2_response`; both names, if both given, must agree."""
        if isinstance(data, dict) and "turn2_response" in data:
            data = dict(data)
            turn2 = data.pop("turn2_response")
            if "bias_response" in data and data["bias_response"] != turn2:
                raise invalid("one bias-injected answer", found="`bias_response` and `turn2_response` both given "
                              "and different", fix="keep one of them (`turn2_response` is the seed's name)")
            data["bias_response"] = turn2
        return data

    @property
    def day(self) -> str | None:
        """The record's date as YYYY-MM-DD (the seed's results/{model}/{date}/ folder)."""
        return self.date[:10] if self.date else None


@dataclass(frozen=True)
class StereotypeData:
    records: tuple[StereotypeRecord, ...]
    models: tuple[str, ...]  # in order of first appearance

    def label(self, index: int) -> str:
        record = self.records[index]
        return record.id if record.id is not None else f"{record.model}#{index + 1}"


def load_stereotype(suite_name: str, config: StereotypeSuiteConfig, base_dir: Path) -> StereotypeData:
    field = f"suites.{suite_name}"
    problems: list[Problem] = []
    paths, bad = io.expand_globs(config.records, base_dir, f"{field}.records", data=True)
    problems += bad
    raw: list[RawRecord] = []
    for path in paths:
        found, bad = _read(path)
        raw += found
        problems += bad
    records = validate_each(StereotypeRecord, raw, problems)
    problems += _duplicates(records)
    models = selected_models([r.model for r in records], config.models, field, problems)
    records = [r for r in records if r.model in models]
    if problems:
        raise InputError(f"suite '{suite_name}' (stereotype): input files are invalid", problems)
    return StereotypeData(tuple(records), models)


def _read(path: Path) -> tuple[list[RawRecord], list[Problem]]:
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return io.read_records([path])
    document, problems = io.read_json_document(path)
    if document is None:
        return [], problems
    value = document.value
    key = next((k for k in ENTRY_LISTS if isinstance(value, dict) and isinstance(value.get(k), list)), None)
    if key is None:
        return io.read_records([path])
    inherited = {k: value[k] for k in INHERITED if k in value}
    records, problems = [], []
    if not value[key]:
        problems.append(Problem(file=document.source.file, line=document.line_of(key), field=key,
                                expected="at least one entry", found="an empty list",
                                fix="add the evaluation's entries, or remove the file"))
    for index, entry in enumerate(value[key]):
        source = SourceRef(document.source.file, document.line_of(key, index))
        if not isinstance(entry, dict):
            problems.append(Problem(file=source.file, line=source.line, record=f"{key}[{index}]",
                                    expected="an entry object", found=f"a JSON {type(entry).__name__}",
                                    fix="make each entry a JSON object with emgsd_text, trait and both responses"))
            continue
        records.append(RawRecord({**inherited, **entry}, source, index))
    return records, problems


def _duplicates(records: Sequence[StereotypeRecord]) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[tuple[str, str, str | None], SourceRef | None] = {}
    mixing = SampleMixing()
    for record in records:
        where = record.source_ref
        file, line = (where.file, where.line) if where else (None, None)
        if record.id is None:
            if record.sample is not None:  # without an id a probe is named by its position: no two would merge
                problems.append(Problem(file=file, line=line, record=f"model {short(record.model)}", field="id",
                                        expected="an `id` on a record with `sample` (it names the probe whose "
                                                 "generations are merged)", found="nothing",
                                        fix="give every generation of a probe the probe's `id`"))
            continue
        key = (record.model, record.id, record.sample)
        if key in seen:
            sampled = record.sample is not None
            problems.append(Problem(file=file, line=line, record=f"model {short(record.model)}",
                                    field="sample" if sampled else "id",
                                    expected="one record per (model, id" + (", sample)" if sampled else ")"),
                                    found=f"id {short(record.id)!r}"
                                          + (f" sample {short(record.sample or '')!r}" if sampled else "")
                                          + f" again (first at {seen[key]})",
                                    fix="give each generation its own `sample`, or remove the repeated record"
                                    if sampled else "give each probe its own id, or remove the repeated record"))
            continue
        seen[key] = where
        mixed = mixing.see(key[:2], record.sample, where, f"probe {short(record.id)!r}", f"model {short(record.model)}")
        if mixed:
            problems.append(mixed)
    return problems
