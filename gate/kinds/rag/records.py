"""RAG suite inputs: the seed's test samples, for the candidate run and (optionally) the baseline run."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from gate import io
from gate.errors import InputError, Problem
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.records import (
    MAX_MAGNITUDE,
    Count,
    FiniteFloat,
    Id,
    InputModel,
    Magnitude,
    Text,
    invalid,
    short,
    validate_each,
)
from gate.kinds.samples.field import Sample, SampleMixing

NonEmpty = Annotated[str, Field(min_length=1)]
PairKey = tuple[str | None, str]  # (id, whitespace-normalised query text): what pairs a query across two runs
Score = Annotated[FiniteFloat, Field(ge=-MAX_MAGNITUDE, le=MAX_MAGNITUDE)]


class RagRecord(InputModel):
    query: NonEmpty
    actual_answer: Text
    expected_answer: str | None = None
    retrieved_contexts: list[str] | None = None
    ground_truth_contexts: list[str] | None = None
    retrieved_ids: list[Id] | None = None
    ground_truth_ids: list[Id] | None = None
    relevance_scores: list[Score] | None = None  # the retriever's own scores (informational)
    ground_truth_relevance: list[Magnitude] | None = None  # graded judgments, aligned with the ground truth
    latency: Magnitude | None = None  # seconds, at most 1e6
    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None
    cost: Magnitude | None = None
    id: Id | None = None
    system: str | None = None
    sample: Sample = None  # one of several generations for this query (gate.kinds.samples.field)

    @model_validator(mode="after")
    def _aligned(self) -> RagRecord:
        pairs = [("retrieved_ids", "retrieved_contexts"), ("ground_truth_ids", "ground_truth_contexts")]
        for ids, texts in pairs:
            a, b = getattr(self, ids), getattr(self, texts)
            if a is not None and b is not None and len(a) != len(b):
                raise invalid(f"`{ids}` and `{texts}` aligned, item for item", found=f"{len(a)} ids and {len(b)} texts",
                              fix=f"give one id per text, in the same order (or drop `{ids}`)")
        truth = self.ground_truth_ids if self.ground_truth_ids is not None else self.ground_truth_contexts
        grades = self.ground_truth_relevance
        if grades is not None and (truth is None or len(truth) != len(grades)):
            raise invalid("`ground_truth_relevance` with one grade per ground-truth id (or context)",
                          found=f"{len(grades)} grades for {'no' if truth is None else len(truth)} ground-truth items",
                          fix="give `ground_truth_ids` (or contexts) and one grade for each")
        if self.relevance_scores is not None and any(not math.isfinite(s) for s in self.relevance_scores):
            raise invalid("finite `relevance_scores`", fix="write finite numbers, or leave the field out")
        return self

    @property
    def key(self) -> str:
        """Pairs the candidate's and the baseline's answer to one query: the id, else the query text."""
        return self.id if self.id is not None else self.query

    @property
    def pair(self) -> PairKey:
        """Pairs the candidate's and the baseline's answer to one query: the same id (or none) and the same query
        text, whitespace-normalised — an id that asks another question in the other run is another query."""
        return self.id, " ".join(self.query.split())


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
    candidates = _load(config.records, base_dir, f"{field}.records", "candidate", problems, data=True)
    baseline = _load(config.baseline, base_dir, f"{field}.baseline", "baseline", problems) if config.baseline else []
    if candidates and baseline and not {r.pair for r in candidates} & {r.pair for r in baseline}:
        problems.append(_nothing_shared(candidates, baseline, f"{field}.baseline"))
    if problems:
        raise InputError(f"suite '{suite_name}' (rag): input files are invalid", problems)
    return RagData(tuple(candidates), tuple(baseline))


def _nothing_shared(candidates: Sequence[RagRecord], baseline: Sequence[RagRecord], field: str) -> Problem:
    """The comparison pairs queries by id and query text (`RagRecord.pair`): with none in common it would compare
    nothing. Located at the first baseline record whose id the candidate run asks another question under, else at
    the first baseline record."""
    asked = {r.id: r for r in reversed(candidates) if r.id is not None}
    clash = next(((b, asked[b.id]) for b in baseline if b.id is not None and b.id in asked), None)
    where = (clash[0] if clash else baseline[0]).source_ref
    if clash:
        base, cand = clash
        found = (f"no query in common: the ids both runs use ask different questions (e.g. id "
                 f"{short(base.id or '')!r}: {short(base.query)!r} here, {short(cand.query)!r} at {cand.source_ref})")
    else:
        found = (f"no sample in common (e.g. baseline {short(baseline[0].key)!r}, candidate "
                 f"{short(candidates[0].key)!r})")
    return Problem(file=where.file if where else None, line=where.line if clash and where else None, field=field,
                   expected="baseline samples of the candidate's queries (the same `id` and `query`, or the same "
                            "`query` without ids)",
                   found=found, fix="run the baseline system on the same test set, with the same ids")


def _load(patterns: Sequence[str], base_dir: Path, field: str, default_system: str,
          problems: list[Problem], *, data: bool = False) -> list[RagRecord]:
    """`data`: the candidate system's samples (read from the run's candidate data); else the baseline system's,
    which the trusted tree holds."""
    paths, bad = io.expand_globs(patterns, base_dir, field, data=data)
    problems += bad
    raw, bad = io.read_records(paths)
    problems += bad
    records = validate_each(RagRecord, raw, problems)
    seen: dict[tuple[str, str, str | None], io.SourceRef | None] = {}
    mixing = SampleMixing()
    for record in records:
        key = (system_of(record, default_system), record.key, record.sample)
        where = record.source_ref
        what = f"id {short(record.id)!r}" if record.id is not None else f"query {short(record.query)!r}"
        if key in seen:
            again = "" if record.sample is None else f" with sample {short(record.sample)!r}"
            problems.append(Problem(file=where.file if where else None, line=where.line if where else None,
                                    field="id" if record.sample is None else "sample",
                                    expected="each query once per system" + ("" if record.sample is None else
                                                                             " and sample"),
                                    found=f"{what}{again} again (first at {seen[key]})",
                                    fix="give each sample its own `id`, or remove the repeated one"
                                    if record.sample is None else "give each generation its own `sample`, or "
                                    "remove the repeated one"))
            continue
        seen[key] = where
        mixed = mixing.see(key[:2], record.sample, where, f"{what} of system {short(key[0])!r}")
        if mixed:
            problems.append(mixed)
    return records
