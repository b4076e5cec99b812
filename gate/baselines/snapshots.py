"""Metric baseline snapshots: what a blessed run of one suite measured, to compare later runs against.

A snapshot keeps the suite's metrics, its groups' metrics and every item's numeric values (for paired
significance tests), with the fingerprint they were computed with, the commit and the time. It is a
distribution, not one run (DESIGN.md §10): `bless --add` folds a further run of the same system into it, so
each item keeps the mean of its values over the runs, their run-to-run variance and third central moment (its
noise's skew, `gate.baselines.moments`), and each metric its value
in every run (the run-to-run sd the change test adds as shared noise). A one-run snapshot's noise is unknown,
and the report says so. Later runs
are compared with it only when they are comparable: same kind, same fingerprint (model, weights,
layer, idf, rescaling, library versions…) and the same baseline input files; otherwise the report says
"not comparable" and shows the difference. Pure: `gate.io` reads and writes the files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from gate.baselines.fingerprints import fingerprint_differences
from gate.baselines.moments import Moments, merge
from gate.errors import describe
from gate.results import Key, SuiteResult

SCHEMA = 2
READABLE = (1, 2)  # schema 1: a one-run snapshot, read as such


@dataclass(frozen=True)
class SnapshotGroup:
    level: str
    key: Key
    metrics: Mapping[str, float | None]  # the mean over the runs
    n: int
    runs: Mapping[str, tuple[float, ...]] = field(default_factory=dict)  # metric -> its value in each run (K ≥ 2)

    def sd(self, metric: str) -> float | None:
        return _sd(self.runs.get(metric, ()))


@dataclass(frozen=True)
class SnapshotItem:
    key: Key
    values: Mapping[str, float]  # numeric item values only: the mean over the runs the item was in
    variances: Mapping[str, float] = field(default_factory=dict)  # run-to-run sample variance (ddof 1)
    runs: int = 1  # runs the item was in
    counts: Mapping[str, int] = field(default_factory=dict)  # runs that measured a value, where fewer than `runs`
    thirds: Mapping[str, float] = field(default_factory=dict)  # run-to-run third central moment, Σ(x − mean)³ / n

    def count(self, column: str) -> int:
        return self.counts.get(column, self.runs)


def _sd(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof 1) of a metric's per-run values; None below two runs."""
    xs = [v for v in values if _number(v) is not None]
    if len(xs) < 2:
        return None
    centre = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - centre) ** 2 for x in xs) / (len(xs) - 1))


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
    runs: int = 1  # blessed runs folded in
    metric_runs: Mapping[str, tuple[float, ...]] = field(default_factory=dict)  # suite metric -> per-run values

    @classmethod
    def from_result(cls, result: SuiteResult, *, gate: str, created_at: str, commit: str | None,
                    inputs_digest: str | None, tool_version: str) -> Snapshot:
        items = tuple(SnapshotItem(key=item.key, values={k: float(v) for k, v in item.values.items()
                                                          if _item_number(v) and k not in dict(item.key)
                                                          and k != "draws"},
                                   variances={k: float(v) for k, v in item.spread.items()}, runs=item.draws)
                      for item in result.items)
        return cls(gate=gate, suite=result.name, kind=result.kind, created_at=created_at, commit=commit,
                   fingerprint=dict(result.fingerprint), inputs_digest=inputs_digest, metrics=dict(result.metrics),
                   groups=tuple(SnapshotGroup(g.level, g.key, dict(g.metrics), g.n) for g in result.groups),
                   items=items, tool_version=tool_version)

    def group_value(self, level: str, key: Key, metric: str) -> float | None:
        if level == "suite":
            return _number(self.metrics.get(metric))
        group = self._group(level, key)
        return _number(group.metrics.get(metric)) if group else None

    def group_sd(self, level: str, key: Key, metric: str) -> float | None:
        """The run-to-run sd of a metric (ddof 1); None for a one-run snapshot."""
        if level == "suite":
            return _sd(self.metric_runs.get(metric, ()))
        group = self._group(level, key)
        return group.sd(metric) if group else None

    def group_keys(self, level: str) -> tuple[Key, ...]:
        """The keys of the blessed groups at `level` (a change check finds the groups a run no longer has)."""
        return tuple(g.key for g in self.groups if g.level == level)

    def _group(self, level: str, key: Key) -> SnapshotGroup | None:
        return next((g for g in self.groups if g.level == level and g.key == key), None)

    def add_run(self, run: Snapshot) -> Snapshot:
        """This snapshot with one more run of the same system folded in (`bless --add`): item means and
        variances by Chan's pairwise update, per-run metric values appended. The caller checks comparability."""
        items = {i.key: i for i in self.items}
        merged = [_merge_item(items.pop(i.key), i) if i.key in items else i for i in run.items]
        merged += list(items.values())  # items this run lacks keep their earlier runs
        groups = {(g.level, g.key): g for g in self.groups}
        new_groups = []
        for g in run.groups:
            old = groups.pop((g.level, g.key), None)
            new_groups.append(_merge_group(old, g, self.runs) if old else g)
        metric_runs = _append_runs(self.metric_runs, self.metrics, run.metrics, self.runs)
        return replace(self, created_at=run.created_at, commit=run.commit, tool_version=run.tool_version,
                       metrics=_means(metric_runs, run.metrics), groups=(*new_groups, *groups.values()),
                       items=tuple(merged), runs=self.runs + 1, metric_runs=metric_runs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema, "gate": self.gate, "suite": self.suite, "kind": self.kind,
            "created_at": self.created_at, "commit": self.commit, "tool_version": self.tool_version,
            "fingerprint": dict(self.fingerprint), "inputs_digest": self.inputs_digest,
            "metrics": dict(self.metrics),
            "groups": [{"level": g.level, "key": dict(g.key), "n": g.n, "metrics": dict(g.metrics),
                        **({"runs": {k: list(v) for k, v in g.runs.items()}} if g.runs else {})}
                       for g in self.groups],
            "items": [{"key": dict(i.key), "values": dict(i.values),
                       **({"variances": dict(i.variances), "runs": i.runs} if i.runs > 1 else {}),
                       **({"thirds": dict(i.thirds)} if i.thirds else {}),
                       **({"counts": dict(i.counts)} if i.counts else {})}
                      for i in self.items],
            "runs": self.runs,
            **({"metric_runs": {k: list(v) for k, v in self.metric_runs.items()}} if self.metric_runs else {}),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Snapshot:
        """Validate a parsed snapshot file; ValueError says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a JSON object, found {type(data).__name__}")
        schema = data.get("schema")
        if schema not in READABLE:
            newer = isinstance(schema, int) and schema > SCHEMA
            raise ValueError(f"snapshot schema {SCHEMA}, found {describe(schema)}"
                             + (" (written by a newer llm-quality-gate)" if newer else ""))
        for name, kind in (("gate", str), ("suite", str), ("kind", str), ("created_at", str),
                           ("fingerprint", dict), ("metrics", dict), ("groups", list), ("items", list)):
            if not isinstance(data.get(name), kind):
                raise ValueError(f"'{name}' to be a {kind.__name__}, found {describe(data.get(name))}")
        try:
            groups = tuple(SnapshotGroup(str(g["level"]), _key(g["key"]), dict(g["metrics"]), int(g.get("n", 0)),
                                         _run_values(g.get("runs"))) for g in data["groups"])
            items = tuple(SnapshotItem(_key(i["key"]), _numbers(i["values"]), _numbers(i.get("variances") or {}),
                                       int(i.get("runs", 1)), _counts(i.get("counts")), _numbers(i.get("thirds") or {}))
                          for i in data["items"])
            runs, metric_runs = int(data.get("runs", 1)), _run_values(data.get("metric_runs"))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"groups and items of the form {{level, key, metrics}} / {{key, values}} ({exc})"
                             ) from None
        return cls(gate=data["gate"], suite=data["suite"], kind=data["kind"], created_at=data["created_at"],
                   commit=data.get("commit"), fingerprint=data["fingerprint"], inputs_digest=data.get("inputs_digest"),
                   metrics=data["metrics"], groups=groups, items=items, tool_version=str(data.get("tool_version", "")),
                   runs=max(1, runs), metric_runs=metric_runs)


def _counts(value: Any) -> dict[str, int]:
    return {str(k): int(v) for k, v in dict(value or {}).items()}


def _numbers(values: Any) -> dict[str, float]:
    return {str(k): float(v) for k, v in dict(values).items() if _number(v) is not None}


def _run_values(value: Any) -> dict[str, tuple[float, ...]]:
    if not value:
        return {}
    return {str(k): tuple(float(x) for x in v if _number(x) is not None) for k, v in dict(value).items()}


def _merge_item(old: SnapshotItem, new: SnapshotItem) -> SnapshotItem:
    """Mean, variance and third moment per column over the runs that measured it (`gate.baselines.moments`)."""
    runs = old.runs + new.runs
    values, variances, thirds = dict(old.values), dict(old.variances), dict(old.thirds)
    counts = {c: old.count(c) for c in old.values}
    for column, b in new.values.items():
        moments = Moments.of(new.count(column), b, new.variances.get(column, 0.0), new.thirds.get(column, 0.0))
        if column in old.values:
            before = Moments.of(old.count(column), old.values[column], old.variances.get(column, 0.0),
                                old.thirds.get(column, 0.0))
            moments = merge(before, moments)
        values[column], counts[column] = moments.mean, moments.n
        if moments.n > 1:
            variances[column], thirds[column] = moments.variance, moments.third
    return SnapshotItem(old.key, values, variances, runs, {c: k for c, k in counts.items() if k != runs}, thirds)


def _merge_group(old: SnapshotGroup, new: SnapshotGroup, runs: int) -> SnapshotGroup:
    merged = _append_runs(old.runs, old.metrics, new.metrics, runs)
    return SnapshotGroup(old.level, old.key, _means(merged, new.metrics), new.n, merged)


def _append_runs(runs: Mapping[str, tuple[float, ...]], before: Mapping[str, float | None],
                 now: Mapping[str, float | None], count: int) -> dict[str, tuple[float, ...]]:
    """Each metric's per-run values with this run's appended (a value without its per-run list — a one-run
    snapshot's, a group first seen in the latest run — is its one run)."""
    out: dict[str, tuple[float, ...]] = {}
    for metric in dict.fromkeys([*before, *now]):
        earlier = runs.get(metric) or ((v,) if (v := _number(before.get(metric))) is not None else ())
        value = _number(now.get(metric))
        out[metric] = (*earlier, value) if value is not None else tuple(earlier)
    return out


def _means(runs: Mapping[str, tuple[float, ...]], fallback: Mapping[str, float | None]) -> dict[str, float | None]:
    return {m: (math.fsum(v) / len(v) if v else _number(fallback.get(m))) for m, v in runs.items()}


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
