"""Metric baseline snapshots: what a blessed run of one suite measured, to compare later runs against.

A snapshot keeps the suite's metrics, its groups' metrics and every item's numeric values (for paired
significance tests), with the fingerprint they were computed with, the commit and the time. Later runs
are compared with it only when they are comparable: same kind, same fingerprint (model, weights,
layer, idf, rescaling, library versions…) and the same baseline input files; otherwise the report says
"not comparable" and shows the difference. Pure: `gate.io` reads and writes the files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gate.errors import describe
from gate.results import Key, SuiteResult

SCHEMA = 1
# Where a model was loaded from (a cache path, a package) does not change what it computes.
_INFORMATIONAL = frozenset({"source"})


@dataclass(frozen=True)
class SnapshotGroup:
    level: str
    key: Key
    metrics: Mapping[str, float | None]
    n: int


@dataclass(frozen=True)
class SnapshotItem:
    key: Key
    values: Mapping[str, float]  # numeric item values only


@dataclass(frozen=True)
class Snapshot:
    gate: str
    suite: str
    kind: str
    created_at: str  # ISO 8601, UTC
    commit: str | None
    fingerprint: Mapping[str, Any]
    inputs_digest: str | None  # sha256 over the suite's baseline input files (None: the kind has none)
    metrics: Mapping[str, float | None]
    groups: tuple[SnapshotGroup, ...] = ()
    items: tuple[SnapshotItem, ...] = ()
    tool_version: str = ""
    schema: int = SCHEMA

    @classmethod
    def from_result(cls, result: SuiteResult, *, gate: str, created_at: str, commit: str | None,
                    inputs_digest: str | None, tool_version: str) -> Snapshot:
        items = tuple(SnapshotItem(key=item.key, values={k: float(v) for k, v in item.values.items()
                                                          if _item_number(v) and k not in dict(item.key)})
                      for item in result.items)
        return cls(gate=gate, suite=result.name, kind=result.kind, created_at=created_at, commit=commit,
                   fingerprint=dict(result.fingerprint), inputs_digest=inputs_digest, metrics=dict(result.metrics),
                   groups=tuple(SnapshotGroup(g.level, g.key, dict(g.metrics), g.n) for g in result.groups),
                   items=items, tool_version=tool_version)

    def group_value(self, level: str, key: Key, metric: str) -> float | None:
        if level == "suite":
            return _number(self.metrics.get(metric))
        for group in self.groups:
            if group.level == level and group.key == key:
                return _number(group.metrics.get(metric))
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema, "gate": self.gate, "suite": self.suite, "kind": self.kind,
            "created_at": self.created_at, "commit": self.commit, "tool_version": self.tool_version,
            "fingerprint": dict(self.fingerprint), "inputs_digest": self.inputs_digest,
            "metrics": dict(self.metrics),
            "groups": [{"level": g.level, "key": dict(g.key), "n": g.n, "metrics": dict(g.metrics)}
                       for g in self.groups],
            "items": [{"key": dict(i.key), "values": dict(i.values)} for i in self.items],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Snapshot:
        """Validate a parsed snapshot file; ValueError says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a JSON object, found {type(data).__name__}")
        schema = data.get("schema")
        if schema != SCHEMA:
            newer = isinstance(schema, int) and schema > SCHEMA
            raise ValueError(f"snapshot schema {SCHEMA}, found {describe(schema)}"
                             + (" (written by a newer llm-quality-gate)" if newer else ""))
        for name, kind in (("gate", str), ("suite", str), ("kind", str), ("created_at", str),
                           ("fingerprint", dict), ("metrics", dict), ("groups", list), ("items", list)):
            if not isinstance(data.get(name), kind):
                raise ValueError(f"'{name}' to be a {kind.__name__}, found {describe(data.get(name))}")
        try:
            groups = tuple(SnapshotGroup(str(g["level"]), _key(g["key"]), dict(g["metrics"]), int(g.get("n", 0)))
                           for g in data["groups"])
            items = tuple(SnapshotItem(_key(i["key"]), {str(k): float(v) for k, v in i["values"].items()
                                                        if _number(v) is not None}) for i in data["items"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"groups and items of the form {{level, key, metrics}} / {{key, values}} ({exc})"
                             ) from None
        return cls(gate=data["gate"], suite=data["suite"], kind=data["kind"], created_at=data["created_at"],
                   commit=data.get("commit"), fingerprint=data["fingerprint"], inputs_digest=data.get("inputs_digest"),
                   metrics=data["metrics"], groups=groups, items=items, tool_version=str(data.get("tool_version", "")))


def _key(value: Any) -> Key:
    return tuple((str(k), str(v)) for k, v in dict(value).items())


def _item_number(value: Any) -> bool:
    """Numbers and booleans (a rate is the mean of a boolean column) are kept for paired tests."""
    return isinstance(value, bool) or _number(value) is not None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


# ---------------------------------------------------------------- comparability


def fingerprint_differences(then: Mapping[str, Any], now: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`path: then → now` for every setting that differs (where a model was loaded from is ignored)."""
    differences = []
    for name in sorted(set(then) | set(now), key=str):
        if name in _INFORMATIONAL:
            continue
        a, b = then.get(name, "absent"), now.get(name, "absent")
        path = f"{prefix}{name}"
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            differences += fingerprint_differences(a, b, f"{path}.")
        elif _normal(a) != _normal(b):
            differences.append(f"{path}: {_short(a)} → {_short(b)}")
    return differences


def _normal(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value  # JSON turns tuples into lists


def _short(value: Any) -> str:
    text = str(value)
    return text[:12] + "…" if len(text) == 64 and all(c in "0123456789abcdef" for c in text) else text


@dataclass(frozen=True)
class SnapshotComparison:
    """How a run stands against its suite's snapshot."""

    snapshot: Snapshot | None
    path: str  # where the snapshot is (or would be), for the report
    differences: tuple[str, ...] = ()  # why it is not comparable; empty: comparable
    age_days: float | None = None
    stale: bool = False
    changed_in_pr: tuple[str, ...] = field(default=())  # baseline files this pull request changes

    @property
    def comparable(self) -> bool:
        return self.snapshot is not None and not self.differences

    @property
    def not_comparable_reason(self) -> str | None:
        if self.snapshot is None:
            return f"no baseline snapshot at {self.path} (bless one: `llm-gate baseline bless`)"
        if self.differences:
            return "baseline not comparable: " + "; ".join(self.differences)
        return None


def compare(snapshot: Snapshot | None, result: SuiteResult, *, path: str, inputs_digest: str | None,
            now: datetime, max_age_days: int | None, changed_in_pr: Sequence[str] = ()) -> SnapshotComparison:
    if snapshot is None:
        return SnapshotComparison(None, path, changed_in_pr=tuple(changed_in_pr))
    differences = []
    if snapshot.kind != result.kind:
        differences.append(f"kind: {snapshot.kind} → {result.kind}")
    differences += fingerprint_differences(snapshot.fingerprint, result.fingerprint)
    if snapshot.inputs_digest != inputs_digest:
        differences.append("baseline input files changed since the snapshot was blessed")
    age = age_in_days(snapshot.created_at, now)
    stale = age is not None and max_age_days is not None and age > max_age_days
    return SnapshotComparison(snapshot, path, tuple(differences), age, stale, tuple(changed_in_pr))


def age_in_days(created_at: str, now: datetime) -> float | None:
    try:
        then = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if then.tzinfo is None or now.tzinfo is None:
        then, now = then.replace(tzinfo=None), now.replace(tzinfo=None)
    return max(0.0, (now - then).total_seconds() / 86400)
