"""Stability suite inputs: one response per (model, task, question, prompt variant) — JSON, JSONL, CSV, XLSX."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, field_validator

from gate import io
from gate.errors import InputError, Problem
from gate.kinds.records import (
    MAX_MAGNITUDE,
    FiniteFloat,
    Id,
    InputModel,
    Text,
    invalid,
    selected_models,
    short,
    validate_each,
)
from gate.kinds.stability.config import StabilitySuiteConfig

NonEmpty = Annotated[str, Field(min_length=1)]


def _json_list(value: Any) -> Any:
    """A CSV/XLSX cell holds the list as JSON text: "[-0.01, -0.2]"."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            raise invalid("a JSON list of numbers, e.g. [-0.01, -0.2]",
                          fix="write the token log-probabilities as a JSON list, or leave the cell empty") from None
    return value


class StabilityRecord(InputModel):
    model: NonEmpty
    task: NonEmpty
    question_id: Id
    response: Text
    variant_id: Id | None = None
    variation: str | None = None  # the prompt change this variant applies ("paraphrase", "typo", ...)
    prompt: str | None = None
    token_logprobs: Annotated[list[float] | None, BeforeValidator(_json_list)] = None
    answer_probability: Annotated[FiniteFloat, Field(ge=0.0, le=1.0)] | None = None

    @field_validator("token_logprobs")
    @classmethod
    def _log_probabilities(cls, values: list[float] | None) -> list[float] | None:
        if values is None:
            return None
        # The usual list passes at C speed; the loop below names a culprit (and decides the rare list the shortcut
        # cannot). A sum is finite only when every value is; with every value ≤ 1e-6, each one is ≥ the sum minus
        # n·1e-6, so a sum ≥ -1e6 + n·1e-6 bounds them all without a min() pass (~10 µs of 270 values).
        total = sum(values)
        if not values or (math.isfinite(total) and total >= len(values) * 1e-6 - MAX_MAGNITUDE
                          and max(values) <= 1e-6):
            return values or None
        for value in values:
            # below -1e6 is no probability a model reports (float32 stops near -104), and sums of such overflow
            if not math.isfinite(value) or value > 1e-6 or value < -MAX_MAGNITUDE:
                raise invalid("natural-log token probabilities, each finite, ≤ 0 and ≥ -1000000",
                              found=f"{value!r} among them",
                              fix="give log-probabilities (ln p ≤ 0), not probabilities or scores")
        return values or None

    @property
    def question(self) -> tuple[str, str, str]:
        return (self.model, self.task, self.question_id)


@dataclass(frozen=True)
class StabilityData:
    records: tuple[StabilityRecord, ...]
    variants: tuple[str, ...]  # the variant id of each record (given, or its position in its question)
    models: tuple[str, ...]


def load_stability(suite_name: str, config: StabilitySuiteConfig, base_dir: Path) -> StabilityData:
    field = f"suites.{suite_name}"
    problems: list[Problem] = []
    paths, bad = io.expand_globs(config.records, base_dir, f"{field}.records", data=True)
    problems += bad
    raw, bad = io.read_records(paths, tables=True)
    problems += bad
    records = validate_each(StabilityRecord, raw, problems)
    variants, bad = _variants(records)
    problems += bad
    models = selected_models([r.model for r in records], config.models, field, problems)
    keep = [i for i, r in enumerate(records) if r.model in models]
    records, variants = [records[i] for i in keep], [variants[i] for i in keep]
    if problems:
        raise InputError(f"suite '{suite_name}' (stability): input files are invalid", problems)
    return StabilityData(tuple(records), tuple(variants), models)


def _variants(records: Sequence[StabilityRecord]) -> tuple[list[str], list[Problem]]:
    """Each record's variant id; a (model, task, question, variant) given twice is an input error."""
    variants, problems = [], []
    seen: dict[tuple, io.SourceRef | None] = {}
    counts: dict[tuple, int] = {}
    for record in records:
        counts[record.question] = counts.get(record.question, 0) + 1
        variant = record.variant_id if record.variant_id is not None else f"#{counts[record.question]}"
        key = (*record.question, variant)
        where = record.source_ref
        if key in seen:
            problems.append(Problem(
                file=where.file if where else None, line=where.line if where else None,
                record=f"model {short(record.model)}, task {short(record.task)}, "
                       f"question {short(record.question_id)}",
                field="variant_id", expected="one response per (model, task, question, variant)",
                found=f"variant {short(variant)!r} again (first at {seen[key]})",
                fix="remove the repeated row, or give the variants distinct variant_id values"))
        seen.setdefault(key, where)
        variants.append(variant)
    return variants, problems
