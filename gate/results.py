"""What scorers return: measured values only, no verdicts (the judge decides).

A value that could not be measured is `None` plus an `Unmeasured` entry saying why; it is never
stored as 0 and never becomes a pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gate.io import SourceRef

Key = tuple[tuple[str, str], ...]  # e.g. (("exercise", "14676"), ("model", "gpt-4o"))


def key_dict(key: Key) -> dict[str, str]:
    return dict(key)


def key_label(key: Key) -> str:
    return ", ".join(f"{k} {v}" for k, v in key) or "suite"


class Direction(str, Enum):
    HIGHER_IS_BETTER = "higher"
    LOWER_IS_BETTER = "lower"


@dataclass(frozen=True)
class MetricSpec:
    name: str
    direction: Direction
    description: str
    fmt: str = ".3f"


@dataclass(frozen=True)
class Unmeasured:
    key: Key
    metric: str
    reason: str


@dataclass(frozen=True)
class GroupResult:
    """Aggregated metrics of one group, e.g. one (exercise, model) pair, at a named level."""

    level: str  # "group" for the kind's primary groups, else e.g. "model"
    key: Key
    metrics: Mapping[str, float | None]
    n: int  # items aggregated
    sources: tuple[SourceRef, ...] = ()  # where the group's records are, for annotations


@dataclass(frozen=True)
class Item:
    """One scored item (e.g. a submission for one model): its identity, values and display details."""

    key: Key
    values: Mapping[str, Any]
    source: SourceRef | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SuiteResult:
    name: str
    kind: str
    metrics: Mapping[str, float | None]  # suite-level aggregates
    groups: tuple[GroupResult, ...]
    items: tuple[Item, ...]
    item_columns: tuple[str, ...]  # identifying fields first, then metric columns (items.csv)
    unmeasured: tuple[Unmeasured, ...] = ()
    fingerprint: Mapping[str, Any] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)  # how it was measured, shown in the report
    inputs: Mapping[str, Any] = field(default_factory=dict)  # facts about the input files, for exports
    notes: tuple[str, ...] = ()  # facts a reader must know (e.g. texts scored in windows)

    def groups_at(self, level: str) -> tuple[GroupResult, ...]:
        return tuple(g for g in self.groups if g.level == level)

    def unmeasured_reason(self, key: Key, metric: str) -> str | None:
        for entry in self.unmeasured:
            if entry.key == key and entry.metric == metric:
                return entry.reason
        return None
