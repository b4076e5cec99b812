"""Heuristic suite inputs: one response per (model, category, prompt) — JSON, JSONL, CSV, XLSX.

A JSON record that gives no `response` at all is a missing output, as a prompt without a record is: it is not
scored, and its prompt counts as missing for its model (unless another sample of it answered). `response: null`
and a table's empty cell are an empty response, scored and reported as empty; a table without a `response`
column, and a `response` that is no text, stay located errors.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

from pydantic import Field

from gate import io
from gate.config.items import KOFN_METRICS
from gate.errors import InputError, Problem, describe
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.rubric import Rubric, load_rubric, suite_metric_names
from gate.kinds.records import Id, InputModel, Text, selected_models, short, validate_each
from gate.kinds.samples.field import Sample, SampleMixing

NonEmpty = Annotated[str, Field(min_length=1)]


class HeuristicRecord(InputModel):
    model: NonEmpty
    category: NonEmpty
    prompt_id: NonEmpty
    response: Text  # an empty response is scored like any other, and counted in the missing-data analysis
    prompt: str | None = None
    id: Id | None = None  # optional; carried first in items.csv when the records have one (DESIGN.md §5)
    sample: Sample = None  # one of several generations for this prompt and model (gate.kinds.samples.field)


@dataclass(frozen=True)
class HeuristicData:
    records: tuple[HeuristicRecord, ...]  # those with a response: what is scored
    rubric: Rubric
    models: tuple[str, ...]
    unanswered: tuple[HeuristicRecord, ...] = ()  # JSON records without `response`: missing outputs (`response` "")


def load_heuristic(suite_name: str, config: HeuristicSuiteConfig, base_dir: Path) -> HeuristicData:
    field = f"suites.{suite_name}"
    rubric = load_rubric(config.rubric, base_dir, f"{field}.rubric")
    problems: list[Problem] = []
    paths, bad = io.expand_globs(config.records, base_dir, f"{field}.records", data=True)
    problems += bad
    raw, bad = io.read_records(paths, tables=True)
    problems += bad
    given = len(raw)
    absent = _without_response(raw)
    records = validate_each(HeuristicRecord, raw, problems)
    categories = list(rubric.categories)
    seen: dict[tuple[str, str, str, str | None], io.SourceRef | None] = {}
    mixing = SampleMixing()
    for record in records:
        where = record.source_ref
        file, line = (where.file, where.line) if where else (None, None)
        if record.category not in rubric.categories:
            close = difflib.get_close_matches(record.category[:200], categories, n=1, cutoff=0.6)
            problems.append(Problem(file=file, line=line, field="category",
                                    expected=f"a category of rubric {rubric.name}: {', '.join(categories)}",
                                    found=describe(record.category),
                                    fix=f"did you mean {close[0]!r}?" if close else "add the category to the rubric"))
        key = (record.model, record.category, record.prompt_id, record.sample)
        if key in seen:
            sampled = record.sample is not None
            problems.append(Problem(file=file, line=line, field="sample" if sampled else "prompt_id",
                                    expected="one response per (model, category, prompt" + (", sample)" if sampled
                                                                                            else ")"),
                                    found=f"{short(record.prompt_id)!r}"
                                          + (f" sample {short(record.sample or '')!r}" if sampled else "")
                                          + f" again for {short(record.model)} (first at {seen[key]})",
                                    fix="give each generation its own `sample`, or remove the repeated response"
                                    if sampled else "remove the repeated response"))
            continue
        seen[key] = where
        mixed = mixing.see(key[:3], record.sample, where, f"prompt {short(record.prompt_id)!r} of category "
                           f"{short(record.category)!r} for model {short(record.model)!r}")
        if mixed:
            problems.append(mixed)
    models = selected_models([r.model for r in records], config.models, field, problems)
    unanswered: list[HeuristicRecord] = []
    if absent and len(records) == given:  # each record validated (else the load fails below): records[i] is raw[i]
        unanswered = [r for i, r in enumerate(records) if i in absent and r.model in models]
        records = [r for i, r in enumerate(records) if i not in absent]
    records = [r for r in records if r.model in models]
    for category in config.expected.prompts or {}:
        if category not in rubric.categories:
            problems.append(Problem(field=f"{field}.expected.prompts.{category}",
                                    expected=f"a category of rubric {rubric.name}: {', '.join(categories)}",
                                    found=describe(category), fix=_closest(category, categories)))
    problems += _unknown_metrics(suite_name, config, rubric)
    if problems:
        raise InputError(f"suite '{suite_name}' (heuristic): input files are invalid", problems)
    return HeuristicData(tuple(records), rubric, models, tuple(unanswered))


def _without_response(raw: list[io.RawRecord]) -> set[int]:
    """The positions of the JSON records with no `response` field, each given an empty one so that the rest of
    it is still validated (its model, category and prompt say which output is missing). A table row always has
    the column's cell (an empty cell is an empty response); a table without the column is its own error."""
    absent = set()
    for i, row in enumerate(raw):
        if not row.from_table and isinstance(row.data, dict) and "response" not in row.data:
            raw[i] = replace(row, data={**row.data, "response": ""})
            absent.add(i)
    return absent


def _closest(value: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(value[:200], choices, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(choices)}"


def _unknown_metrics(suite_name: str, config: HeuristicSuiteConfig, rubric: Rubric) -> list[Problem]:
    """Checks on metrics the rubric does not have. gate.yml's loader accepts any `<metric>_<stat>` (a
    rubric names its own metrics); only here, with the rubric read, can a typo be told from a metric."""
    known = suite_metric_names(rubric.metric_names())
    return [Problem(field=f"suites.{suite_name}.checks.{metric}",
                    expected=f"a metric of rubric {rubric.name}", found=f"unknown metric {describe(metric)}",
                    fix=_closest(metric, known) if difflib.get_close_matches(metric[:200], known, n=1, cutoff=0.6)
                    else "metrics are <rubric metric>_<mean|median|std|min|max>, final_score_…, missing_ratio")
            for metric in config.checks or {}
            if metric not in known and not (config.items is not None and metric in KOFN_METRICS)]  # k-of-n: core's
