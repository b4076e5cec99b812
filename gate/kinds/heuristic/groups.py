"""The numbers of a group of scored responses, and what the group is missing against what was expected.

Statistics per metric (mean, median, sample std like pandas, min, max) and the missing-data analysis:
who should have answered which prompt (`Expected`, from gate.yml's `expected:` or the records), which
answers are absent (`Slot`, `Shortfall`) and the coverage ratios. The report and the seed exports read
`Slot` and `Shortfall` from the suite's details.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.records import HeuristicData, HeuristicRecord
from gate.kinds.heuristic.rules import ResponseScore
from gate.stats import maximum, mean


@dataclass(frozen=True)
class Slot:
    """One expected response: who should have answered which prompt."""

    model: str
    category: str
    prompt_id: str


@dataclass(frozen=True)
class Shortfall:
    """A (model, category) short of its expected count; `prompt_ids` None where `expected` gave only a count."""

    model: str
    category: str
    expected: int
    found: int
    missing: int
    prompt_ids: tuple[str, ...] | None


@dataclass(frozen=True)
class Scored:
    """A record with its rubric score."""

    record: HeuristicRecord
    score: ResponseScore


@dataclass(frozen=True)
class Expected:
    """Who should have answered what: the prompt ids per category, or only how many (by default the ids of the
    records, a record without `response` included: its prompt was asked, and its answer is missing)."""

    models: tuple[str, ...]
    prompts: dict[str, tuple[str, ...] | int]

    def count(self, category: str) -> int:
        prompts = self.prompts.get(category, ())
        return prompts if isinstance(prompts, int) else len(prompts)


def expected_matrix(suite: HeuristicSuiteConfig, data: HeuristicData) -> Expected:
    models = tuple(suite.expected.models or data.models)
    given = suite.expected.prompts or {}
    prompts: dict[str, tuple[str, ...] | int] = {}
    for category in data.rubric.categories:
        if category in given:
            value = given[category]
            prompts[category] = value if isinstance(value, int) else tuple(value)
        else:
            found = sorted({r.prompt_id for r in (*data.records, *data.unanswered) if r.category == category})
            if found:
                prompts[category] = tuple(found)
    return Expected(models, prompts)


def stats(metrics, scored: Sequence[Scored]) -> dict[str, float | None]:
    values: dict[str, list[float]] = {m: [s.score.metrics[m] for s in scored] for m in metrics}
    values["final_score"] = [s.score.final_score for s in scored]
    out: dict[str, float | None] = {}
    for metric, xs in values.items():
        out[f"{metric}_mean"] = mean(xs)
        out[f"{metric}_median"] = statistics.median(xs) if xs else None
        out[f"{metric}_std"] = statistics.stdev(xs) if len(xs) > 1 else None  # sample std, as pandas
        out[f"{metric}_min"] = min(xs) if xs else None
        out[f"{metric}_max"] = maximum(xs)
    return out


def coverage(expected: int, absent: int, scored: Sequence[Scored]) -> dict[str, float | None]:
    """Counted per prompt: several samples of one prompt answer it once, and it is as empty as the share of its
    samples that are (without samples: 0 or 1)."""
    draws: dict[tuple[str, str], list[bool]] = {}
    for s in scored:
        draws.setdefault((s.record.category, s.record.prompt_id), []).append(not s.record.response.strip())
    empty = sum(sum(e) / len(e) for e in draws.values())
    return {"responses": float(len(draws)),
            "missing_ratio": absent / expected if expected else None,
            "empty_ratio": empty / expected if expected else None}


def absent_prompts(expected: Expected, category: str, scored: Sequence[Scored]) -> tuple[int, list[str]]:
    prompts = expected.prompts.get(category, ())
    if isinstance(prompts, int):  # only a count: how many, not which (several samples answer one prompt)
        return max(0, prompts - len({s.record.prompt_id for s in scored})), []
    have = {s.record.prompt_id for s in scored}
    absent = [p for p in prompts if p not in have]
    return len(absent), absent


def sources(scored: Sequence[Scored]):
    return tuple(s.record.source_ref for s in scored if s.record.source_ref)
