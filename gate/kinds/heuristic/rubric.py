"""Heuristic rubrics as data: categories of weighted metrics, each a base score plus indicators.

An indicator adds `points` when all its conditions hold: `any` of some terms occurs, `all` of some
terms occur, `none` of some terms occurs, every regular expression of `matches` is found and none of
`no_match`, the response is JSON a schema accepts (`json_schema`), numeric features compare (`when`), and the
prompt's number is listed (`prompts`).
`first_of` holds alternatives of which only the first that holds applies (the seed's if/elif chains).
Terms and expressions match `response.lower()` or the raw response (`case`). Every metric is clamped
to `bounds` after all its indicators; the final score is the weighted sum of the metrics.
`gate/kinds/heuristic/rubrics/seed-v1.yml` is the seed's rubric, read as DESIGN.md §9 says.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from gate import io
from gate.config.located import duplicate_keys, parse_yaml, validate
from gate.errors import ConfigError, Problem
from gate.io import paths
from gate.kinds.records import invalid

RUBRICS = Path(__file__).parent / "rubrics"
DEFAULT_RUBRIC = "seed-v1"
STATS = ("mean", "median", "std", "min", "max")  # what a heuristic suite reports of each metric per group
COVERAGE = ("responses", "missing_ratio", "empty_ratio")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Case(str, Enum):
    LOWER = "lower"  # match `response.lower()`
    RAW = "raw"  # match the response as written


class Feature(str, Enum):
    WORD_COUNT = "word_count"  # len(response.split())
    SENTENCE_COUNT = "sentence_count"  # non-empty pieces of re.split(r"[.!?]+", response)
    VOCAB_DIVERSITY = "vocab_diversity"  # distinct lower-cased words / words (0 when empty)
    QUOTE_COUNT = "quote_count"  # number of '"' characters
    CHAR_COUNT = "char_count"  # len(response)
    DESCRIPTIVE_NAMES = "descriptive_names"  # distinct assigned names longer than 3 characters
    JSON_VALID = "json_valid"  # 1 when the response as written is one JSON value (RFC 8259), else 0


class Comparison(_Strict):
    feature: Feature
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None

    @model_validator(mode="after")
    def _has_a_bound(self) -> Comparison:
        if all(v is None for v in (self.gt, self.ge, self.lt, self.le)):
            raise invalid("a bound: one of `gt`, `ge`, `lt`, `le`", found=f"`feature: {self.feature.value}` alone",
                          fix=f"e.g. `{{feature: {self.feature.value}, le: 50}}`")
        return self

    def holds(self, value: float) -> bool:
        return ((self.gt is None or value > self.gt) and (self.ge is None or value >= self.ge)
                and (self.lt is None or value < self.lt) and (self.le is None or value <= self.le))


def _expression(pattern: str) -> str:
    """A regular expression of `matches` / `no_match`, compiled as the rubric is read (`gate.kinds.expressions`
    keeps it compiled for the searches)."""
    from gate.kinds.expressions import invalid_because

    why = invalid_because(pattern)
    if why is not None:
        raise invalid("a regular expression (Python's `re` syntax)", found=f"{pattern!r}: {why}",
                      fix="correct the expression: a literal `(`, `[`, `+` or `?` is `\\(`, `\\[`, … inside "
                      "YAML's single quotes (`\\\\(` inside double quotes)")
    return pattern


Pattern = Annotated[str, Field(min_length=1), AfterValidator(_expression)]


def _schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A `json_schema` condition, checked as the rubric is read: only what `gate.kinds.json_schema` can check."""
    from gate.kinds.json_schema import KEYWORDS, problems

    found = problems(schema)
    if found:
        raise invalid("a JSON Schema the gate can check (a subset of draft 2020-12)", found="; ".join(found[:5]),
                      fix=f"use the supported keywords ({', '.join(sorted(KEYWORDS))}); docs/suites/heuristic.md")
    return schema


Schema = Annotated[dict[str, Any], AfterValidator(_schema)]


_LATER = ("matches", "no_match", "json_schema")  # Indicator fields newer than the first blessed snapshots


class Indicator(_Strict):
    label: str = Field(min_length=1)
    points: float
    any: list[str] | None = Field(None, min_length=1)
    all: list[str] | None = Field(None, min_length=1)
    none: list[str] | None = Field(None, min_length=1)
    matches: list[Pattern] | None = Field(None, min_length=1)  # regular expressions that must all be found
    no_match: list[Pattern] | None = Field(None, min_length=1)  # regular expressions none of which may be found
    json_schema: Schema | None = None  # the response as written is JSON this schema accepts
    when: list[Comparison] | None = Field(None, min_length=1)
    prompts: list[int] | None = Field(None, min_length=1)
    case: Case | None = None  # default: the category's `match_on`

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        """Fields added after snapshots were first blessed appear only when set: a rubric's repr is its
        `rubric_hash` (the heuristic scorer's fingerprint), which must not change for a rubric that does not use
        them, or every blessed snapshot would stop being comparable."""
        return ((name, value) for name, value in super().__repr_args__() if value is not None or name not in _LATER)

    @model_validator(mode="before")
    @classmethod
    def _one_comparison(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("when"), dict):
            return {**data, "when": [data["when"]]}
        return data

    @model_validator(mode="after")
    def _has_a_condition(self) -> Indicator:
        if not any((self.any, self.all, self.none, self.matches, self.no_match, self.json_schema is not None,
                    self.when, self.prompts)):
            raise invalid("a condition: any, all, none, matches, no_match, json_schema, when or prompts",
                          found=f"indicator {self.label!r} with `points` only",
                          fix="add what must hold, e.g. `any: [\"try:\"]`; points that always apply belong in `base`")
        return self


class Choice(_Strict):
    label: str = Field(min_length=1)
    first_of: list[Indicator] = Field(min_length=2)


def _rule_kind(value: Any) -> str:
    return "choice" if isinstance(value, dict) and "first_of" in value else "indicator"


Rule = Annotated[Union[Annotated[Indicator, Tag("indicator")], Annotated[Choice, Tag("choice")]],  # noqa: UP007
                 Discriminator(_rule_kind)]


class Metric(_Strict):
    weight: float = Field(gt=0, le=1)
    base: float
    indicators: list[Rule] = Field(default_factory=list)


class Category(_Strict):
    match_on: Case = Case.LOWER
    metrics: dict[str, Metric] = Field(min_length=1)

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> Category:
        total = math.fsum(m.weight for m in self.metrics.values())
        if abs(total - 1.0) > 1e-9:
            shares = ", ".join(f"{name}: {m.weight:g}" for name, m in self.metrics.items())
            raise invalid("metric weights that sum to 1", found=f"{shares} (sum {total:g})",
                          fix="scale the weights so that they sum to 1")
        return self


class Rubric(_Strict):
    version: Literal[1]
    name: str = Field(min_length=1)
    description: str | None = None
    bounds: tuple[float, float] = (0.0, 10.0)
    categories: dict[str, Category] = Field(min_length=1)

    @model_validator(mode="after")
    def _sane(self) -> Rubric:
        low, high = self.bounds
        if low >= high:
            raise invalid("bounds [low, high] with low < high", found=str(list(self.bounds)),
                          fix="e.g. `bounds: [0, 10]`")
        names = [m for c in self.categories.values() for m in c.metrics]
        if "final_score" in names:
            raise invalid("metric names other than `final_score` (the weighted sum of the metrics)",
                          found="a metric called `final_score`", fix="rename the metric")
        return self

    def metric_names(self) -> list[str]:
        return list(dict.fromkeys(m for c in self.categories.values() for m in c.metrics))


def suite_metric_names(metric_names: Sequence[str]) -> list[str]:
    """The metrics a heuristic suite on these rubric metrics reports, so the ones gate.yml may check: each
    `<metric>_<stat>` and `final_score_<stat>`, then the coverage figures. Here, below records and scorers,
    because both need the list: the scorer describes each (`gate.kinds.heuristic`), the loader checks
    gate.yml's checks against it with the rubric read (`gate.kinds.heuristic.records`)."""
    return [f"{metric}_{stat}" for metric in [*metric_names, "final_score"] for stat in STATS] + list(COVERAGE)


def load_rubric(reference: str | None, base_dir: Path, field: str) -> Rubric:
    """A packaged rubric by name (`seed-v1`) or a YAML file (relative to gate.yml)."""
    name = reference or DEFAULT_RUBRIC
    packaged = RUBRICS / f"{name}.yml"
    path = packaged if "/" not in name and not name.endswith((".yml", ".yaml")) and packaged.is_file() \
        else base_dir / name
    if not path.is_file():
        known = ", ".join(p.stem for p in sorted(RUBRICS.glob("*.yml")))
        raise ConfigError("rubric not found", [Problem(
            field=field, expected=f"a packaged rubric ({known}) or a rubric YAML file", found=repr(name),
            fix="give a path relative to gate.yml, or leave `rubric:` out for the seed's rubric")])
    if path != packaged:
        paths.confine(path, base_dir, field, name)
    shown = io.display_path(path)
    data, root = parse_yaml(io.read_text(path, "rubric"), shown, "rubric")
    problems = duplicate_keys(root, shown)
    if problems:
        raise ConfigError(f"{shown} is invalid", problems)
    return validate(Rubric, data, root, shown)
