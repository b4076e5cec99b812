"""Metrics a kind renamed since the gate kept them (`SuiteBase.renamed`, old -> new): a blessed snapshot and the
history's entries read under the new names, so a renamed measure stays comparable and its trend goes on. The
method behind a renamed value is unchanged (a changed method changes the suite's fingerprint instead); where the
new name is already there, it wins."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypeVar

from gate.baselines.snapshots import Snapshot

V = TypeVar("V")


def rename_keys(values: Mapping[str, V], names: Mapping[str, str]) -> dict[str, V]:
    return {(names[k] if k in names and names[k] not in values else k): v for k, v in values.items()}


def renamed_snapshot(snapshot: Snapshot, names: Mapping[str, str]) -> tuple[Snapshot, tuple[str, ...]]:
    """The snapshot under the new names, and the old names it held."""
    held = {k for k in names if k in snapshot.metrics or any(k in g.metrics for g in snapshot.groups)
            or any(k in i.values for i in snapshot.items)}
    if not held:
        return snapshot, ()
    groups = tuple(replace(g, metrics=rename_keys(g.metrics, names), runs=rename_keys(g.runs, names))
                   for g in snapshot.groups)
    items = tuple(replace(i, values=rename_keys(i.values, names), variances=rename_keys(i.variances, names),
                          counts=rename_keys(i.counts, names), thirds=rename_keys(i.thirds, names))
                  for i in snapshot.items)
    return replace(snapshot, metrics=rename_keys(snapshot.metrics, names), groups=groups, items=items,
                   metric_runs=rename_keys(snapshot.metric_runs, names)), tuple(sorted(held))


def renamed_record(suite: Any, names: Mapping[str, str]) -> Any:
    """A history entry's suite record (`{"metrics", "groups": [{"metrics"}]}`) under the new names."""
    def rename(metrics: Any) -> Any:
        return rename_keys(metrics, names) if isinstance(metrics, dict) and names.keys() & metrics.keys() else metrics

    if not names or not isinstance(suite, dict):
        return suite
    groups = suite.get("groups")
    return {**suite, "metrics": rename(suite.get("metrics")),
            **({"groups": [{**g, "metrics": rename(g.get("metrics"))} if isinstance(g, dict) else g for g in groups]}
               if isinstance(groups, list) else {})}
