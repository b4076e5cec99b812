"""Noise calibration: thresholds proposed from k repeated candidate runs of the same system.

Input: k report.json documents (DESIGN.md §5) of the same system scored k times; what differs between
them is the noise (sampling temperature, non-deterministic kernels, an LLM judge). Per suite, group
level (`group`, `model`, ...) and metric with a known direction:

- x[g, r] is the metric of group g in run r. Each group's mean m_g = mean_r x[g, r] and sample
  variance s²_g (ddof 1). σ = sqrt(mean_g s²_g), the pooled within-group standard deviation: the
  run-to-run noise, assumed shared by the groups (a per-group σ from a handful of runs is itself too
  noisy to set a threshold with). `Proposal.sigma` reports it.
- A fresh run's value of group g is taken as Normal(μ_g, σ²). μ_g is only estimated by m_g, so the
  fresh value minus m_g has standard deviation σ·sqrt(1 + 1/k) (a prediction interval, not a
  confidence interval): `spread`.
- Higher is better: min = min_g (m_g − z·spread), warn = min_g (m_g − warn_z·spread). Lower is
  better: max = max_g (m_g + z·spread), warn likewise. One threshold serves every group, so it is set
  by the worst group; a fresh run of that group fails with probability Φ(−z) (2.3% at z = 2), better
  groups much less. `Proposal.fail_rate` estimates the chance that a fresh run fails the check on at
  least one group, 1 − Π_g Φ(margin_g / spread); with many groups near the worst, raise z.
- Thresholds are rounded to 4 significant digits outward (min down, max up): rounding never makes a
  check stricter than computed. `Proposal.mean` is the mean of the group means.

Skipped (listed in `Calibration.skipped`, never an error): a suite missing from a run or whose kind
or fingerprint (model, weights, params, libraries; not `source`) differs between runs; a metric with
no known direction; a metric unmeasured (None, missing group) in any run; a metric constant across
runs (σ = 0: nothing to calibrate against). The `suite` level is calibrated only for a suite without
groups. Pure: dicts in, dataclasses and YAML text out.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

import yaml

DIRECTIONS = ("higher", "lower")
SIGNIFICANT_DIGITS = 4


@dataclass(frozen=True)
class Proposal:
    suite: str
    metric: str
    level: str  # the check's `scope`
    n_runs: int
    n_groups: int
    mean: float  # mean of the group means
    sigma: float  # pooled within-group run-to-run standard deviation
    op: str  # "min" | "max"
    value: float
    warn: float | None
    fail_rate: float | None = None  # estimated chance that a fresh run fails this check on some group


@dataclass(frozen=True)
class Skipped:
    suite: str
    metric: str | None  # None: the whole suite
    level: str | None
    reason: str


@dataclass(frozen=True)
class Calibration:
    proposals: tuple[Proposal, ...]
    skipped: tuple[Skipped, ...]


def propose(reports: Sequence[Mapping[str, Any]], directions: Mapping[str, Mapping[str, str]], z: float = 2.0,
            warn_z: float | None = 1.0) -> list[Proposal]:
    """Thresholds for every calibratable metric; see `calibrate` for what was skipped and why."""
    return list(calibrate(reports, directions, z, warn_z).proposals)


def calibrate(reports: Sequence[Mapping[str, Any]], directions: Mapping[str, Mapping[str, str]], z: float = 2.0,
              warn_z: float | None = 1.0) -> Calibration:
    _validate(reports, directions, z, warn_z)
    proposals: list[Proposal] = []
    skipped: list[Skipped] = []
    names = list(dict.fromkeys(s["name"] for r in reports for s in r["suites"]))
    for name in names:
        per_run: list[Mapping[str, Any] | None] = [
            next((s for s in r["suites"] if s["name"] == name), None) for r in reports]
        reason = _suite_problem(per_run)
        if reason:
            skipped.append(Skipped(name, None, None, reason))
            continue
        runs = [s for s in per_run if s is not None]  # every one, as `_suite_problem` found none missing
        kind: Any = runs[0].get("kind")  # as report.json has it; no direction is known for a missing kind
        for level, tables in _levels(runs):
            for metric in dict.fromkeys(m for table in tables for metrics in table.values() for m in metrics):
                direction = directions.get(kind, {}).get(metric)
                if direction is None:
                    skipped.append(Skipped(name, metric, level, f"no direction is known for it in kind {kind!r}"))
                    continue
                outcome = _propose_one(name, metric, level, direction, tables, z, warn_z)
                if isinstance(outcome, Proposal):
                    proposals.append(outcome)
                else:
                    skipped.append(outcome)
    return Calibration(tuple(proposals), tuple(skipped))


def _validate(reports: Sequence[Mapping[str, Any]], directions: Mapping[str, Mapping[str, str]], z: float,
              warn_z: float | None) -> None:
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


GroupKey = tuple[tuple[str, str], ...]


def _levels(per_run: list[Mapping[str, Any]]) -> list[tuple[str, list[dict[GroupKey, Mapping[str, Any]]]]]:
    """(level, one {group key: metrics} table per run); the suite level only for a suite without groups."""
    groups = [list(s.get("groups") or []) for s in per_run]
    if not any(groups):
        return [("suite", [{(): s.get("metrics") or {}} for s in per_run])]
    levels = dict.fromkeys(g.get("level", "group") for run in groups for g in run)
    return [(level, [{_key(g.get("key")): g.get("metrics") or {} for g in run if g.get("level", "group") == level}
                     for run in groups]) for level in levels]


def _key(key: Any) -> GroupKey:
    return tuple((str(k), str(v)) for k, v in (key or {}).items())


def _label(key: GroupKey) -> str:
    return ", ".join(f"{k} {v}" for k, v in key) or "suite"


def _propose_one(suite: str, metric: str, level: str, direction: str,
                 tables: list[dict[GroupKey, Mapping[str, Any]]], z: float, warn_z: float | None) -> Proposal | Skipped:
    keys = list(dict.fromkeys(k for table in tables for k in table))
    series: dict[GroupKey, list[float]] = {}
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
        series[key] = values
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Skipped(suite, metric, level, problems[0] + more)
    k = len(tables)
    means = {key: math.fsum(v) / k for key, v in series.items()}
    variances = [math.fsum((x - means[key]) ** 2 for x in v) / (k - 1) for key, v in series.items()]
    sigma = math.sqrt(math.fsum(variances) / len(variances))
    mean = math.fsum(means.values()) / len(means)
    if sigma <= 1e-12 * max(1.0, abs(mean)):
        return Skipped(suite, metric, level, "constant across runs (σ = 0): no noise to calibrate a threshold against")
    spread = sigma * math.sqrt(1 + 1 / k)
    if direction == "higher":
        op, rounding, sign, edge = "min", ROUND_FLOOR, -1.0, min
    else:
        op, rounding, sign, edge = "max", ROUND_CEILING, 1.0, max
    value = _round(edge(m + sign * z * spread for m in means.values()), rounding)
    warn = None if warn_z is None else _round(edge(m + sign * warn_z * spread for m in means.values()), rounding)
    passing = [_phi(sign * (value - m) / spread) for m in means.values()]
    fail_rate = 1.0 - math.prod(passing)
    return Proposal(suite, metric, level, k, len(means), mean, sigma, op, value, warn, fail_rate)


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _round(value: float, rounding: str) -> float:
    """`value` to SIGNIFICANT_DIGITS significant digits, in the given direction."""
    if value == 0:
        return 0.0
    exact = Decimal(repr(value))
    quantum = Decimal(1).scaleb(exact.adjusted() - SIGNIFICANT_DIGITS + 1)
    return float(exact.quantize(quantum, rounding=rounding))


# ---------------------------------------------------------------- the gate.yml snippet

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def snippet(proposals: Sequence[Proposal]) -> str:
    """A gate.yml fragment `suites: <name>: checks: <metric>: {min|max, warn, scope}` with the noise as comments.

    Per metric the `group` level is proposed (else the first level calibrated); other levels follow as
    comments. Merge it under the suites of gate.yml (it replaces a suite's checks). No proposals: only a
    comment (loads as null).
    """
    lines = ["# Proposed by `llm-gate calibrate`: each threshold sits z·σ·sqrt(1+1/k) beyond the worst group's",
             "# mean, σ being the pooled run-to-run standard deviation of k repeated runs of the same system."]
    if not proposals:
        return "\n".join([*lines, "# No metric could be calibrated."]) + "\n"
    lines.append("suites:")
    by_suite: dict[str, dict[str, list[Proposal]]] = {}
    for p in proposals:
        by_suite.setdefault(p.suite, {}).setdefault(p.metric, []).append(p)
    for suite, metrics in by_suite.items():
        lines += [f"  {_yaml_key(suite)}:", "    checks:"]
        for metric, options in metrics.items():
            chosen = next((p for p in options if p.level == "group"), options[0])
            lines.append(f"      {_yaml_key(metric)}: {_flow(chosen)}  # {_note(chosen)}")
            lines += [f"      # at scope {p.level}: {_flow(p)}  # {_note(p)}" for p in options if p is not chosen]
    return "\n".join(lines) + "\n"


def _flow(p: Proposal) -> str:
    warn = "" if p.warn is None else f", warn: {_yaml_number(p.warn)}"
    return f"{{{p.op}: {_yaml_number(p.value)}{warn}, scope: {_yaml_key(p.level)}}}"


def _note(p: Proposal) -> str:
    rate = "" if p.fail_rate is None else f"; a fresh run fails it with p ≈ {p.fail_rate:.1%}"
    return f"σ = {p.sigma:.4g} over {p.n_runs} runs x {p.n_groups} group(s), mean {p.mean:.4g}{rate}"


def _yaml_number(value: float) -> str:
    """Positional notation, always read by YAML as a number (`1e-05` would be read as a string)."""
    return format(Decimal(repr(value)), "f")


def _yaml_key(text: str) -> str:
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    return yaml.safe_dump(text, default_style='"', allow_unicode=True, width=math.inf).strip()
