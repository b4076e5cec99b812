"""Trends of key metrics over the default branch's history, and this run's delta to the last run there.

Only history entries computed with the same fingerprint as this run are compared (a run with another
model, layer, idf, rescaling or library version is "not comparable" and is counted, not plotted).
Pure: the history entries come in (`gate.baselines.history`), view data goes out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.baselines.fingerprints import fingerprint_differences
from gate.baselines.history import Entry
from gate.judge import GateVerdict
from gate.results import SuiteResult

THIS_RUN = "this run"


@dataclass(frozen=True)
class MetricTrend:
    metric: str
    now: float | None
    last: float | None  # the latest comparable default-branch run
    last_commit: str | None
    points: tuple[tuple[str, float], ...]  # comparable history (oldest first), then this run

    @property
    def delta(self) -> float | None:
        return self.now - self.last if self.now is not None and self.last is not None else None


@dataclass(frozen=True)
class SuiteTrend:
    suite: str
    metrics: tuple[MetricTrend, ...]
    runs: int  # comparable history entries
    not_comparable: int  # entries skipped because their fingerprint differs
    differences: tuple[str, ...] = ()  # what differs in the latest skipped entry


def key_metrics(checked: Mapping[str, Sequence[str]], results: Sequence[SuiteResult],
                chosen: Sequence[str] | None) -> dict[str, list[str]]:
    """Per suite: the configured metrics, else the metrics its checks name — those with a headline value."""
    out = {}
    for result in results:
        wanted = list(chosen) if chosen is not None else list(dict.fromkeys(checked.get(result.name, ())))
        record = current_record(result)
        out[result.name] = [m for m in wanted if headline(record, m) is not None]
    return out


def suite_trends(entries: Sequence[Entry], verdict: GateVerdict, metrics: Mapping[str, Sequence[str]],
                 points: int) -> dict[str, SuiteTrend]:
    out = {}
    for suite in verdict.suites:
        name = suite.result.name
        wanted = metrics.get(name) or []
        if not wanted:
            continue
        comparable, skipped = [], 0
        differences: tuple[str, ...] = ()
        for entry in entries:
            recorded = entry.suites.get(name)
            if not isinstance(recorded, dict):
                continue
            found = fingerprint_differences(recorded.get("fingerprint") or {}, suite.result.fingerprint)
            if recorded.get("kind") != suite.result.kind:
                found.insert(0, f"kind: {recorded.get('kind')} → {suite.result.kind}")
            if found:
                skipped, differences = skipped + 1, tuple(found)
            else:
                comparable.append((entry, recorded))
        recent = comparable[-(points - 1):] if points > 1 else []
        trends = []
        for metric in wanted:
            history = [(label_of(e), v) for e, rec in recent if (v := headline(rec, metric)) is not None]
            last_entry = next(((e, v) for e, rec in reversed(comparable) if (v := headline(rec, metric)) is not None),
                              None)
            now = headline(current_record(suite.result), metric)
            shown = tuple(history) + (((THIS_RUN, now),) if now is not None else ())
            trends.append(MetricTrend(metric, now, last_entry[1] if last_entry else None,
                                      last_entry[0].commit if last_entry else None, shown))
        out[name] = SuiteTrend(name, tuple(trends), len(comparable), skipped, differences)
    return out


def headline(record: Mapping, metric: str) -> float | None:
    """A suite's headline value of `metric`: its suite-level value, else the value of its only primary group
    (a suite whose one candidate is compared with a baseline inside the run)."""
    value = _number((record.get("metrics") or {}).get(metric))
    if value is not None:
        return value
    primary = [g for g in record.get("groups") or [] if isinstance(g, Mapping) and g.get("level", "group") == "group"]
    return _number((primary[0].get("metrics") or {}).get(metric)) if len(primary) == 1 else None


def current_record(result: SuiteResult) -> dict:
    """A result in the shape of a history entry's suite."""
    return {"metrics": dict(result.metrics),
            "groups": [{"level": g.level, "metrics": dict(g.metrics)} for g in result.groups]}


def label_of(entry: Entry) -> str:
    return (entry.commit or "")[:7] or entry.time[:10]


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)
