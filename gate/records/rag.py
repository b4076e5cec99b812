"""RAG suite inputs: the seed's test samples, for the candidate run and (optionally) the baseline run."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from gate import io
from gate.config import RagSuiteConfig
from gate.errors import InputError, Problem
from gate.records import FiniteFloat, Id, InputModel, Text, validate_raw

NonEmpty = Annotated[str, Field(min_length=1)]
NonNegative = Annotated[FiniteFloat, Field(ge=0)]


class RagRecord(InputModel):
    query: NonEmpty
    actual_answer: Text
    expected_answer: str | None = None
    retrieved_contexts: list[str] | None = None
    ground_truth_contexts: list[str] | None = None
    retrieved_ids: list[Id] | None = None
    ground_truth_ids: list[Id] | None = None
    relevance_scores: list[FiniteFloat] | None = None  # the retriever's own scores (informational)
    ground_truth_relevance: list[NonNegative] | None = None  # graded judgments, aligned with the ground truth
    latency: NonNegative | None = None  # seconds
    prompt_tokens: Annotated[int, Field(ge=0)] | None = None
    completion_tokens: Annotated[int, Field(ge=0)] | None = None
    cost: NonNegative | None = None
    id: Id | None = None
    system: str | None = None

    @model_validator(mode="after")
    def _aligned(self) -> RagRecord:
        pairs = [("retrieved_ids", "retrieved_contexts"), ("ground_truth_ids", "ground_truth_contexts")]
        for ids, texts in pairs:
            a, b = getattr(self, ids), getattr(self, texts)
            if a is not None and b is not None and len(a) != len(b):
                raise ValueError(f"`{ids}` ({len(a)}) and `{texts}` ({len(b)}) must be aligned, item for item")
        truth = self.ground_truth_ids if self.ground_truth_ids is not None else self.ground_truth_contexts
        grades = self.ground_truth_relevance
        if grades is not None and (truth is None or len(truth) != len(grades)):
            raise ValueError("`ground_truth_relevance` needs one grade per ground-truth id (or context)")
        if self.relevance_scores is not None and any(not math.isfinite(s) for s in self.relevance_scores):
            raise ValueError("`relevance_scores` must be finite numbers")
        return self

    @property
    def key(self) -> str:
        """Pairs the candidate's and the baseline's answer to one query: the id, else the query text."""
        return self.id if self.id is not None else self.query


@dataclass(frozen=True)
class RagData:
    candidates: tuple[RagRecord, ...]
    baseline: tuple[RagRecord, ...]

    def systems(self, which: str) -> tuple[str, ...]:
        records = self.candidates if which == "candidate" else self.baseline
        return tuple(dict.fromkeys(system_of(r, which) for r in records))


def system_of(record: RagRecord, default: str) -> str:
    return record.system or default


def load_rag(suite_name: str, config: RagSuiteConfig, base_dir: Path) -> RagData:
    field = f"suites.{suite_name}"
    problems: list[Problem] = []
    candidates = _load(config.records, base_dir, f"{field}.records", "candidate", problems)
    baseline = _load(config.baseline, base_dir, f"{field}.baseline", "baseline", problems) if config.baseline else []
    if problems:
        raise InputError(f"suite '{suite_name}' (rag): input files are invalid", problems)
    return RagData(tuple(candidates), tuple(baseline))


def _load(patterns: Sequence[str], base_dir: Path, field: str, default_system: str,
          problems: list[Problem]) -> list[RagRecord]:
    paths, bad = io.expand_globs(patterns, base_dir, field)
    problems += bad
    raw, bad = io.read_records(paths)
    problems += bad
    records = [r for item in raw if (r := validate_raw(RagRecord, item, problems)) is not None]
    seen: dict[tuple[str, str], io.SourceRef | None] = {}
    for record in records:
        key = (system_of(record, default_system), record.key)
        where = record.source_ref
        if key in seen:
            what = f"id {record.id!r}" if record.id is not None else f"query {record.query[:60]!r}"
            problems.append(Problem(file=where.file if where else None, line=where.line if where else None,
                                    field="id", expected="each query once per system",
                                    found=f"{what} again (first at {seen[key]})",
                                    fix="give each sample its own `id`, or remove the repeated one"))
        seen.setdefault(key, where)
    return records
