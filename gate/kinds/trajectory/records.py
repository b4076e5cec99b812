"""Trajectory suite inputs: agent runs from JSON/JSONL tool-call logs and OpenTelemetry GenAI spans, with the
baseline runs and the expectations, every problem located (file, line, field, expected, found, fix), all at once.

A record is a run `{task_id, model, steps: [{tool, arguments, result, tokens, latency}], final_answer, success,
tokens, latency, cost, sample}` unless it is a span record (it has `resourceSpans`, `traceId`, `spanId`, `context`
or `attributes`: `spans`); spans are grouped by trace id across every file into runs (`otel`). A run's `tokens` and
`latency` are its record's, else the sum over its steps (unknown when no step gives them).

One run per (model, task, sample): a task run more than once gives each run its `sample` (0, 1, 2, …). Traces
without a sample attribute are numbered per (model, task) in start order (a trace id already tells them apart).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, StrictBool

from gate import io
from gate.errors import InputError, Problem
from gate.kinds.records import Count, Id, InputModel, Magnitude, selected_models, short, validate_each
from gate.kinds.samples.field import Sample, SampleMixing
from gate.kinds.trajectory.config import Expectation, TrajectorySuiteConfig
from gate.kinds.trajectory.expectations import load_expectations
from gate.kinds.trajectory.otel import runs_of
from gate.kinds.trajectory.runs import Run, Step, arguments_of, total
from gate.kinds.trajectory.spans import Locate, Span, is_span_record, spans_of

NonEmpty = Annotated[str, Field(min_length=1)]


class StepRecord(InputModel):
    tool: NonEmpty
    arguments: Any = None
    result: Any = None
    tokens: Count | None = None
    latency: Magnitude | None = None


class RunRecord(InputModel):
    task_id: Id
    model: NonEmpty
    steps: list[StepRecord]
    final_answer: str | None = None
    success: StrictBool | None = None
    tokens: Count | None = None
    latency: Magnitude | None = None
    cost: Magnitude | None = None
    sample: Sample = None

    def run(self) -> Run:
        steps = tuple(Step(s.tool.strip(), arguments_of(s.arguments), s.result, s.tokens, s.latency)
                      for s in self.steps)
        latency = self.latency if self.latency is not None else (
            sum(s.latency for s in steps if s.latency is not None) if any(s.latency is not None for s in steps)
            else None)
        return Run(task_id=self.task_id, model=self.model.strip(), sample=self.sample, steps=steps,
                   final_answer=self.final_answer, success=self.success,
                   tokens=self.tokens if self.tokens is not None else total([s.tokens for s in steps]),
                   latency=latency, cost=self.cost, source=self.source_ref)


@dataclass(frozen=True)
class RunSet:
    runs: tuple[Run, ...]
    skipped_traces: int = 0  # traces without any GenAI span
    formats: tuple[str, ...] = ()  # "runs" (tool-call logs), "otel" (spans): what the files held


@dataclass(frozen=True)
class TrajectoryData:
    runs: tuple[Run, ...]
    models: tuple[str, ...]
    expectations: dict[str, Expectation]  # task id (or "*") -> what its runs must do
    baseline: tuple[Run, ...] | None  # None: no `baseline:` given
    skipped_traces: int
    formats: tuple[str, ...]


def read_runs(patterns: Sequence[str], base_dir: Path, field: str, suite: TrajectorySuiteConfig,
              problems: list[Problem]) -> RunSet:
    """Every run in the files `patterns` match: run records and traces, in input order."""
    paths, bad = io.expand_globs(patterns, base_dir, field, data=True)
    problems += bad
    records: list[Any] = []
    spans: list[Span] = []
    for path in paths:
        for raw, locate in _read(path, problems):
            if is_span_record(raw.data):
                spans += spans_of(raw, locate, problems)
            else:
                records.append(raw)
    runs = [r.run() for r in validate_each(RunRecord, records, problems)]
    traced, skipped = runs_of(spans, suite.otel, problems)
    formats = (*(("runs",) if runs else ()), *(("otel",) if traced else ()))
    return RunSet(tuple(runs + _numbered(traced, runs)), skipped, formats)


def _read(path: Path, problems: list[Problem]) -> list[tuple[io.RawRecord, Locate | None]]:
    """The file's records, each with where its parts are: a JSON document knows the line of each container."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        raw, bad = io.read_records([path])
        problems += bad
        return [(r, None) for r in raw]
    document, bad = io.read_json_document(path)
    problems += bad
    if document is None:
        return []
    raw, bad = _records_of(document)
    problems += bad
    listed = isinstance(document.value, list)

    def locator(index: int) -> Locate:
        return lambda path: document.line_of(*((index,) if listed else ()), *path)
    return [(r, locator(r.index)) for r in raw]


def _records_of(document: io.JsonDocument) -> tuple[list[io.RawRecord], list[Problem]]:
    value = document.value
    items = value if isinstance(value, list) else [value]
    records, problems = [], []
    for index, item in enumerate(items):
        line = document.line_of(index) if isinstance(value, list) else document.line_of()
        if not isinstance(item, dict):
            problems.append(Problem(file=document.source.file, line=line, record=f"record {index + 1}",
                                    expected="a JSON object (a run or a span export)",
                                    found=f"a JSON {type(item).__name__}",
                                    fix="write one run or span export per object"))
            continue
        records.append(io.RawRecord(item, io.SourceRef(document.source.file, line), index))
    if not items:
        problems.append(Problem(file=document.source.file, expected="at least one record", found="an empty array",
                                fix="add runs, or remove the file (or narrow the glob that matched it)"))
    return records, problems


def _numbered(traced: list[Run], logged: list[Run]) -> list[Run]:
    """Traces without a sample, numbered 0, 1, … per (model, task) in start order, where a (model, task) has several
    traces and no run of it (a trace or a record) gives a sample or is a record."""
    kept = {(r.model, r.task_id) for r in [*traced, *logged] if r.sample is not None or r.trace_id is None}
    counts: dict[tuple[str, str], int] = {}
    for run in traced:
        counts[(run.model, run.task_id)] = counts.get((run.model, run.task_id), 0) + 1
    order = sorted(range(len(traced)), key=lambda i: (traced[i].start if traced[i].start is not None else math.inf,
                                                      traced[i].trace_id or ""))
    seen: dict[tuple[str, str], int] = {}
    out = list(traced)
    for i in order:
        key = (traced[i].model, traced[i].task_id)
        if key not in kept and counts[key] > 1:
            seen[key] = seen.get(key, -1) + 1
            out[i] = replace(traced[i], sample=str(seen[key]))
    return out


def _identities(runs: Sequence[Run], problems: list[Problem]) -> None:
    """One run per (model, task, sample); a task's runs all with a sample or all without."""
    seen: dict[tuple[str, str, str | None], io.SourceRef | None] = {}
    mixing = SampleMixing()
    for run in runs:
        where = run.source
        key = (run.model, run.task_id, run.sample)
        if key in seen:
            sampled = run.sample is not None
            problems.append(Problem(
                file=where.file if where else None, line=where.line if where else None,
                field="sample" if sampled else "task_id",
                expected="one run per (model, task" + (", sample)" if sampled else ")"),
                found=f"{short(run.label())} again (first at {seen[key]})",
                fix="give each run of the task its own `sample` (0, 1, 2, …), or remove the repeated run"))
            continue
        seen[key] = where
        mixed = mixing.see(key[:2], run.sample, where, short(f"task {run.task_id!r} for model {run.model!r}", 120))
        if mixed:
            problems.append(mixed)


def load_trajectory(suite_name: str, config: TrajectorySuiteConfig, base_dir: Path) -> TrajectoryData:
    field = f"suites.{suite_name}"
    problems: list[Problem] = []
    found = read_runs(config.records, base_dir, f"{field}.records", config, problems)
    _identities(found.runs, problems)
    baseline = read_runs(config.baseline, base_dir, f"{field}.baseline", config, problems) if config.baseline \
        else None
    expectations = load_expectations(config, base_dir, field, problems)
    models = selected_models([r.model for r in found.runs], config.models, field, problems)
    if not found.runs and not problems:
        problems.append(Problem(field=f"{field}.records", expected="at least one agent run",
                                found=f"{found.skipped_traces} trace(s), none with a GenAI span "
                                      "(gen_ai.operation.name)" if found.skipped_traces else "no run",
                                fix="export the agent's runs as tool-call records or OpenTelemetry GenAI spans"))
    if problems:
        raise InputError(f"suite '{suite_name}' (trajectory): input files are invalid", problems)
    return TrajectoryData(runs=tuple(r for r in found.runs if r.model in models), models=models,
                          expectations=expectations, baseline=baseline.runs if baseline else None,
                          skipped_traces=found.skipped_traces + (baseline.skipped_traces if baseline else 0),
                          formats=found.formats)
