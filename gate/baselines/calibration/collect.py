"""From k report.json documents to proposals: which suites are comparable across runs, which levels and
metrics they have, the series x[g][r] of each, and the checks its noise supports. Pure: dicts in."""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from gate.baselines.calibration.noise import constant, noise_of, phi
from gate.baselines.calibration.proposals import CONSTANT, Entry, changes_of, floor, primary
from gate.baselines.calibration.types import DIRECTIONS, Calibration, Proposal, Scale, Skipped
from gate.stats.distributions import normal_quantile

GroupKey = tuple[tuple[str, str], ...]
WARN_BUDGET = 0.1  # the warn levels' shared false-warning rate on an unchanged system


def propose(reports: Sequence[Mapping[str, Any]], directions: Mapping[str, Mapping[str, str]], z: float = 2.0,
            warn_z: float | None = 1.0) -> list[Proposal]:
    """Thresholds for every calibratable metric; see `calibrate` for what was skipped and why."""
    return list(calibrate(reports, directions, z, warn_z, warn_budget=None).proposals)


def calibrate(reports: Sequence[Mapping[str, Any]], directions: Mapping[str, Mapping[str, str]],
              z: float | None = 2.0, warn_z: float | None = None, *,
              metrics: Mapping[str, Collection[str]] | None = None, alpha: float = 0.05, scope: str = "suite",
              floor_budget: float = 0.01, min_effect: bool = False, warn_budget: float | None = WARN_BUDGET,
              scales: Mapping[str, Mapping[str, Scale]] | None = None) -> Calibration:
    """Thresholds at every level and one change check per (suite, metric) at `scope` (else at the first level
    that has the metric). `metrics`: by kind, the metrics to calibrate (None: every one with a direction).
    `z` None: the thresholds share `floor_budget` — each of the M group floors in the snippet's checks is
    crossed by a fresh run with probability floor_budget / M (Bonferroni), so together they add at most
    `floor_budget` to the gate's false alarms. Warn levels alike: `warn_z` a per-group rate Φ(−warn_z), else
    each of the M floors warns with probability `warn_budget` / M (None or 0: no warn levels). `min_effect`:
    the change checks' bound is the MDE (a change must be significant and at least that large), else 0 (any
    significant change fails; the MDE is in the note). `scales`: by kind and metric, the range its values take
    and whether it may be gated on (`calibration.scales`): p-values and counts get no check, a floor that
    could never fail is dropped, each with its reason in `skipped`."""
    if z is None and not 0 < floor_budget < 0.5:
        raise ValueError(f"the floor budget must be between 0 and 0.5, got {floor_budget}")
    if warn_z is None and warn_budget is not None and not 0 <= warn_budget < 1:
        raise ValueError(f"the warn budget must be at least 0 and below 1, got {warn_budget}")
    _validate(reports, directions, z if z is not None else 10.0, warn_z, alpha)  # the reports' shape first
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    levels_seen = {"group", "suite"}
    for name in dict.fromkeys(s["name"] for r in reports for s in r["suites"]):
        per_run: list[Mapping[str, Any] | None] = [
            next((s for s in r["suites"] if s["name"] == name), None) for r in reports]
        reason = _suite_problem(per_run)
        if reason:
            skipped.append(Skipped(name, None, None, reason))
            continue
        runs = [s for s in per_run if s is not None]  # every one, as `_suite_problem` found none missing
        kind: Any = runs[0].get("kind")  # as report.json has it; no direction is known for a missing kind
        chosen = None if metrics is None else set(metrics.get(kind, ()))
        for level, tables in _levels(runs):
            levels_seen.add(level)
            for metric in dict.fromkeys(m for table in tables for values in table.values() for m in values):
                if chosen is not None and metric not in chosen:
                    continue
                direction = directions.get(kind, {}).get(metric)
                scale = (scales or {}).get(kind, {}).get(metric, Scale())
                if direction is None:
                    skipped.append(Skipped(name, metric, level, f"no direction is known for it in kind {kind!r}"))
                elif scale.why_not is not None:
                    skipped.append(Skipped(name, metric, level, scale.why_not))
                elif isinstance(outcome := _series(name, metric, level, tables), Skipped):
                    skipped.append(outcome)
                else:
                    entries.append((name, metric, level, direction, noise_of(outcome) or constant(outcome), scale))
    if scope not in levels_seen:
        raise ValueError(f"a scope among the reports' levels ({', '.join(sorted(levels_seen))}), not {scope!r}")
    floors = [e for e in entries if e[4].sigma > 0]
    groups = sum(len(e[4].means) for e in primary(floors)) or 1
    if z is None:
        z = -normal_quantile(floor_budget / groups)
    _validate(reports, directions, z, warn_z, alpha)
    warn_rate = phi(-warn_z) if warn_z is not None else warn_budget / groups if warn_budget else None
    proposals = []
    for entry in floors:
        proposal = floor(entry, phi(-z), warn_rate)
        if isinstance(proposal, Skipped):
            skipped.append(proposal)
        else:
            proposals.append(proposal)
    skipped += [Skipped(e[0], e[1], e[2], CONSTANT) for e in primary(entries) if e[4].sigma == 0]
    changes, dropped = changes_of(entries, alpha, scope, min_effect)
    return Calibration(tuple(proposals), tuple(skipped + dropped), changes, alpha if changes else None,
                       warn_budget if warn_z is None and warn_budget else None)


def _validate(reports: Sequence[Mapping[str, Any]], directions: Mapping[str, Mapping[str, str]], z: float,
              warn_z: float | None, alpha: float) -> None:
    if len(reports) < 2:
        raise ValueError(f"calibration needs at least 2 runs of the same system, got {len(reports)}: pass the "
                         "report.json of each repeated candidate run (more runs give a better noise estimate)")
    for i, report in enumerate(reports, 1):
        if not isinstance(report, Mapping) or not isinstance(report.get("suites"), list):
            raise ValueError(f"run {i}: not a report.json (expected an object with a `suites` list)")
        if report.get("schema", 1) != 1:
            raise ValueError(f"run {i}: report.json schema {report.get('schema')!r} is not supported (expected 1)")
        if any(not isinstance(s, Mapping) or not isinstance(s.get("name"), str) for s in report["suites"]):
            raise ValueError(f"run {i}: every suite needs a `name`")
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z must be a positive number, got {z}")
    if warn_z is not None and not (math.isfinite(warn_z) and 0 <= warn_z < z):
        raise ValueError(f"warn_z must be at least 0 and below z ({z}), got {warn_z}: warn sits inside the fail level")
    if not (math.isfinite(alpha) and 0 < alpha < 0.5):
        raise ValueError(f"alpha must be above 0 and below 0.5 (as gate.yml's `alpha`), got {alpha}")
    for kind, metrics in directions.items():
        for metric, direction in metrics.items():
            if direction not in DIRECTIONS:
                raise ValueError(f"direction of {kind}.{metric} must be 'higher' or 'lower', got {direction!r}")


def _suite_problem(per_run: list[Mapping[str, Any] | None]) -> str | None:
    missing = [str(i) for i, s in enumerate(per_run, 1) if s is None]
    if missing:
        return f"missing from run {', '.join(missing)}"
    runs = [s for s in per_run if s is not None]
    if len({s.get("kind") for s in runs}) > 1:
        return "its kind differs between runs"
    prints = {json.dumps(_comparable(s.get("fingerprint") or {}), sort_keys=True, default=str) for s in runs}
    if len(prints) > 1:
        return "its fingerprint (model, weights, settings or library versions) differs between runs: not comparable"
    return None


def _comparable(value: Any) -> Any:
    """A fingerprint without `source` (where a model was loaded from is informational, not identity)."""
    if isinstance(value, Mapping):
        return {k: _comparable(v) for k, v in value.items() if k != "source"}
    if isinstance(value, (list, tuple)):
        return [_comparable(v) for v in value]
    return value


def _levels(per_run: list[Mapping[str, Any]]) -> list[tuple[str, list[dict[GroupKey, Mapping[str, Any]]]]]:
    """(level, one {group key: metrics} table per run): every group level, then the suite's own metrics."""
    groups = [list(s.get("groups") or []) for s in per_run]
    levels = dict.fromkeys(g.get("level", "group") for run in groups for g in run)
    out = [(level, [{_key(g.get("key")): g.get("metrics") or {} for g in run if g.get("level", "group") == level}
                    for run in groups]) for level in levels]
    if any(s.get("metrics") for s in per_run) or not out:
        out.append(("suite", [{(): s.get("metrics") or {}} for s in per_run]))
    return out


def _key(key: Any) -> GroupKey:
    return tuple((str(k), str(v)) for k, v in (key or {}).items())


def _label(key: GroupKey) -> str:
    return ", ".join(f"{k} {v}" for k, v in key) or "suite"


def _series(suite: str, metric: str, level: str, tables: list[dict[GroupKey, Mapping[str, Any]]]
            ) -> list[list[float]] | Skipped:
    """x[g][r] over the groups that produce `metric`: a group none of whose runs has it (a rubric category's
    metric in another category's group) is not one of its groups; one that has it in some runs only is."""
    keys = list(dict.fromkeys(k for table in tables for k in table))
    keys = [key for key in keys if any(metric in table.get(key, {}) for table in tables)]
    series: list[list[float]] = []
    problems = []
    for key in keys:
        values = []
        for run, table in enumerate(tables, 1):
            value = table[key].get(metric) if key in table else None
            if key not in table:
                problems.append(f"{_label(key)} is missing from run {run}")
            elif value is None:
                problems.append(f"unmeasured in run {run} ({_label(key)})")
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                problems.append(f"not a finite number in run {run} ({_label(key)}: {value!r})")
            else:
                values.append(float(value))
        series.append(values)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Skipped(suite, metric, level, problems[0] + more)
    return series
