"""Applying a rubric to one response (pure): features, indicators, clamped metrics, weighted score.

The features follow DESIGN.md §9 exactly: word_count = len(text.split()); sentence_count = the
non-empty pieces of re.split(r'[.!?]+', text); vocab_diversity = distinct lower-cased words / words
(0 when empty); quote_count = number of '"'; descriptive_names = distinct names matched by
\\b([A-Za-z_][A-Za-z0-9_]*)\\s*=(?!=) longer than 3 characters; the prompt number is the integer in
the prompt id (P08 -> 8). Beyond the seed: json_valid = 1 when the response as written (whatever the case
matched) is one JSON value by RFC 8259 (`Written.json`), else 0, and `json_schema` holds when that value conforms
(`gate.kinds.json_schema`). The expressions of `matches` / `no_match` are searched by `gate.kinds.expressions`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from gate.kinds.expressions import SlowSearch, found
from gate.kinds.heuristic.rubric import Case, Category, Choice, Feature, Indicator, Rubric
from gate.kinds.json_schema import violations

_ASSIGNMENT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")


NOT_JSON = object()  # `Written.json` of a response that is not one JSON value


@dataclass(frozen=True)
class Written:
    """The response as written, whatever case an indicator matches: what the JSON conditions read, parsed once."""

    text: str

    @cached_property
    def json(self) -> Any:
        """The one JSON value (RFC 8259) the response is, or `NOT_JSON`: whitespace around it allowed; NaN and
        Infinity refused (`json` would take them); an integer past `int`'s 4,300 digits read as a float; nesting
        deeper than the parser recurses refused."""
        try:
            return json.loads(self.text, parse_int=_integer, parse_constant=_refuse)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            return NOT_JSON


@dataclass(frozen=True)
class Text:
    """A response as one case of text (raw or lower-cased) with its features, computed on demand."""

    value: str
    written: Written

    def conforms(self, schema: dict[str, Any]) -> bool:
        """Whether the response as written is JSON that `schema` accepts (`gate.kinds.json_schema`)."""
        return self.nonconformity(schema) is None

    def nonconformity(self, schema: dict[str, Any]) -> str | None:
        """Why the response as written is not JSON that `schema` accepts (the first violation), or None."""
        value = self.written.json
        return "not one JSON value" if value is NOT_JSON else next(violations(value, schema), None)

    @cached_property
    def features(self) -> dict[Feature, float]:
        """The seed's features, computed together; json_valid on first use (it parses the response)."""
        words = self.value.split()
        names = {name for name in _ASSIGNMENT.findall(self.value) if len(name) > 3}
        return _Features(self.written, {
            Feature.WORD_COUNT: float(len(words)),
            Feature.SENTENCE_COUNT: float(sum(1 for piece in re.split(r"[.!?]+", self.value) if piece.strip())),
            Feature.VOCAB_DIVERSITY: len({w.lower() for w in words}) / len(words) if words else 0.0,
            Feature.QUOTE_COUNT: float(self.value.count('"')),
            Feature.CHAR_COUNT: float(len(self.value)),
            Feature.DESCRIPTIVE_NAMES: float(len(names)),
        })


class _Features(dict[Feature, float]):
    """A response's features; json_valid is computed when first asked for (`__missing__`)."""

    def __init__(self, written: Written, computed: dict[Feature, float]) -> None:
        super().__init__(computed)
        self.written = written

    def __missing__(self, feature: Feature) -> float:
        if feature is not Feature.JSON_VALID:
            raise KeyError(feature)
        self[feature] = value = float(self.written.json is not NOT_JSON)
        return value


@dataclass(frozen=True)
class Fired:
    metric: str
    label: str
    points: float


@dataclass(frozen=True)
class Unmet:
    """A rewarded `json_schema` indicator whose other conditions held but whose schema did not: why (the first
    violation, or "not one JSON value"), for the report's explanation of a low score."""

    metric: str
    label: str
    why: str


@dataclass(frozen=True)
class ResponseScore:
    metrics: dict[str, float]  # clamped, per rubric metric of the category
    final_score: float
    fired: tuple[Fired, ...] = field(default=())
    unmet: tuple[Unmet, ...] = field(default=())


def _refuse(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def _integer(digits: str) -> int | float:
    return int(digits) if len(digits) <= 4000 else float(digits)


def prompt_number(prompt_id: str) -> int | None:
    match = re.search(r"\d+", prompt_id)
    return int(match.group()) if match else None


def score_response(rubric: Rubric, category: str, response: str, prompt_id: str) -> ResponseScore:
    spec = rubric.categories[category]
    written = Written(response)
    texts = {Case.RAW: Text(response, written), Case.LOWER: Text(response.lower(), written)}
    number = prompt_number(prompt_id)
    low, high = rubric.bounds
    metrics: dict[str, float] = {}
    fired: list[Fired] = []
    unmet: list[Unmet] = []
    for name, metric in spec.metrics.items():
        score = metric.base
        for rule in metric.indicators:
            applied = _apply(rule, spec, texts, number)
            if applied is not None:
                score += applied.points
                fired.append(Fired(name, applied.label, applied.points))
            elif isinstance(rule, Choice) or rule.json_schema is not None:  # only these can miss on a shape
                unmet += [Unmet(name, i.label, why) for i, why in _shape_misses(rule, spec, texts, number)]
        metrics[name] = min(high, max(low, score))
    final = math.fsum(metrics[name] * metric.weight for name, metric in spec.metrics.items())
    return ResponseScore(metrics, final, tuple(fired), tuple(unmet))


def _shape_misses(rule: Indicator | Choice, category: Category, texts: dict[Case, Text],
                  number: int | None) -> list[tuple[Indicator, str]]:
    """For a rule that did not apply: each rewarded alternative that missed only on its `json_schema`, with why."""
    alternatives = rule.first_of if isinstance(rule, Choice) else [rule]
    misses = []
    for indicator in alternatives:
        if indicator.json_schema is None or indicator.points <= 0:
            continue
        why = texts[indicator.case or category.match_on].nonconformity(indicator.json_schema)
        others = indicator.model_copy(update={"json_schema": None})  # with no other condition, the schema decided
        if why is not None and _apply(others, category, texts, number) is not None:
            misses.append((indicator, why))
    return misses


def _apply(rule: Indicator | Choice, category: Category, texts: dict[Case, Text],
           number: int | None) -> Indicator | None:
    """The indicator that applies (for a choice, the first alternative that holds), or None."""
    alternatives = rule.first_of if isinstance(rule, Choice) else [rule]
    for indicator in alternatives:
        try:
            if holds(indicator, texts[indicator.case or category.match_on], number):
                return indicator
        except SlowSearch as slow:
            raise SlowSearch(slow.pattern, slow.seconds, indicator.label) from None
    return None


def holds(indicator: Indicator, text: Text, number: int | None) -> bool:
    value = text.value
    if indicator.prompts is not None and number not in indicator.prompts:
        return False
    if indicator.any is not None and not any(term in value for term in indicator.any):
        return False
    if indicator.all is not None and not all(term in value for term in indicator.all):
        return False
    if indicator.none is not None and any(term in value for term in indicator.none):
        return False
    if indicator.matches is not None and not all(found(p, value) for p in indicator.matches):
        return False
    if indicator.no_match is not None and any(found(p, value) for p in indicator.no_match):
        return False
    if indicator.json_schema is not None and not text.conforms(indicator.json_schema):
        return False
    return all(c.holds(text.features[c.feature]) for c in indicator.when or ())
