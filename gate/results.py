"""What scorers return: measured values only, no verdicts (the judge decides).

A value that could not be measured is `None` plus an `Unmeasured` entry saying why; it is never
stored as 0 and never becomes a pass. What a kind's report view and seed exports need beyond the
values (how it was measured, facts about the inputs, the texts behind an item) travels in typed
per-kind dataclasses — subclasses of `SuiteDetails`, `SuiteSettings` and `ItemDetails` defined beside
the kind's scorer — so a checker sees every field the view reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Generic, Protocol, TypeVar

from gate.io import SourceRef

Key = tuple[tuple[str, str], ...]
DetailsT = TypeVar("DetailsT")  # e.g. (("exercise", "14676"), ("model", "gpt-4o"))


def key_dict(key: Key) -> dict[str, str]:
    return dict(key)


class Keyed(Protocol):
    @property
    def key(self) -> Key: ...


KeyedT = TypeVar("KeyedT", bound=Keyed)


class GroupIndex(Generic[KeyedT]):
    """A group's members: the items (or snapshot items) whose key has the group key's values. Indexed once per
    set of key fields, so looking up every group's items is linear, not quadratic, at 10,000 items. Keys compare
    as text (a value read back from JSON or a spreadsheet may be a number)."""

    def __init__(self, items: Iterable[KeyedT]):
        self._items = tuple(items)
        self._index: dict[tuple[str, ...], dict[Key, list[KeyedT]]] = {}

    def of(self, key: Key) -> list[KeyedT]:
        wanted = identity(key)
        fields = tuple(k for k, _ in wanted)
        if fields not in self._index:
            index: dict[Key, list[KeyedT]] = {}
            for item in self._items:
                values = dict(identity(item.key))
                if all(f in values for f in fields):
                    index.setdefault(tuple((f, values[f]) for f in fields), []).append(item)
            self._index[fields] = index
        return self._index[fields].get(wanted, [])


def identity(key: Key) -> Key:
    """A key as text pairs: how items of two runs are matched."""
    return tuple((str(k), str(v)) for k, v in key)


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
    low: float | None = None  # the smallest value it can take, where known (a share: 0; a 0–10 score: 0)
    high: float | None = None  # the largest (a share: 1): `llm-gate calibrate` never proposes a bound past them


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
class SuiteSettings:
    """How a suite was measured (model names, thresholds, counts): report.json's `settings` object, field by
    field in declaration order (`dataclasses.asdict`). Each kind subclasses it beside its scorer."""


@dataclass(frozen=True)
class SuiteDetails:
    """What a kind's report view and seed exports need beyond the metrics: its `settings` and facts about
    the inputs (never written to report.json except `settings`). Each kind subclasses it beside its scorer,
    narrowing `settings` to its own `SuiteSettings`."""

    settings: SuiteSettings


@dataclass(frozen=True)
class ItemDetails:
    """The texts behind one item that a report view shows (answers side by side, feedback, fired rules); not
    written to items.csv. Each kind subclasses it beside its scorer."""


def details_as(details: object, kind: type[DetailsT]) -> DetailsT:
    """`details` as the kind's own type. A kind's view is only handed its kind's results, so another type
    is a programming error, not a user's."""
    if not isinstance(details, kind):
        raise TypeError(f"expected {kind.__name__}, found {type(details).__name__}")
    return details


@dataclass(frozen=True)
class Item:
    """One scored item (e.g. a submission for one model): its identity, values and display details."""

    key: Key
    values: Mapping[str, Any]
    source: SourceRef | None = None
    details: ItemDetails | None = None
    draws: int = 1  # generations the values are the mean of (records with a `sample` index)
    spread: Mapping[str, float] = field(default_factory=dict)  # their variance (ddof 1), where draws >= 2
    # each numeric value's draws, in order, where draws >= 2: what per-draw criteria (flaky items, k-of-n) read
    draw_values: Mapping[str, tuple[float, ...]] = field(default_factory=dict)


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
    details: SuiteDetails | None = None  # how it was measured and input facts, for the kind's view and exports
    notes: tuple[str, ...] = ()  # facts a reader must know (e.g. texts scored in windows)
    criterion: str | None = None  # the per-item k-of-n criterion (gate.yml's `items:`), e.g. "final_score ≥ 6"

    def settings_json(self) -> dict[str, Any]:
        """How the suite was measured, as report.json writes it ({} for a result without details)."""
        return _plain(asdict(self.details.settings)) if self.details is not None else {}

    def value_names(self) -> tuple[str, ...]:
        """Every value name the items carry, in first-seen order: what an item statistic may be computed from
        (beyond `item_columns`, e.g. a corpus BLEU's sufficient statistics)."""
        return tuple(dict.fromkeys(name for item in self.items for name in item.values))

    def groups_at(self, level: str) -> tuple[GroupResult, ...]:
        return tuple(g for g in self.groups if g.level == level)

    def unmeasured_reason(self, key: Key, metric: str) -> str | None:
        for entry in self.unmeasured:
            if entry.key == key and entry.metric == metric:
                return entry.reason
        return None


def _plain(value: Any) -> Any:
    """JSON's own types: tuples (frozen dataclasses hold them) as lists, mappings as dicts."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
