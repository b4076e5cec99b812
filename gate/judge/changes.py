"""Change checks: `max_decrease` / `max_increase` of a metric against the suite's baseline snapshot.

The judged value is the change, current − baseline, of the group's (or suite's) metric. With
`significant: true` a change past the bound only counts when it is significant on the bad side: the
paired bootstrap confidence interval of the mean per-item difference (items matched by identity with
the snapshot's items) lies entirely below 0 for a decrease, above 0 for an increase. A check whose
baseline is missing or not comparable is unmeasured, with the reason — never silently compared.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from gate import stats
from gate.config import CheckConfig
from gate.judge.thresholds import judge_value
from gate.judge.types import BaselineComparison, BaselineSnapshot, Change, CheckResult, CheckVerdict, Op
from gate.results import Key, SuiteResult, key_label


def change_checks(result: SuiteResult, metric: str, check: CheckConfig, comparison: BaselineComparison | None,
                  column: str | None) -> list[CheckResult]:
    bounds = []
    if check.max_decrease is not None:
        warn = -check.warn_decrease if check.warn_decrease is not None else None
        bounds.append(("max_decrease", Op.MIN, -check.max_decrease, warn))
    if check.max_increase is not None:
        bounds.append(("max_increase", Op.MAX, check.max_increase, check.warn_increase))
    if check.scope == "suite":
        targets: list[tuple[Key, float | None]] = [((), result.metrics.get(metric))]
    else:
        targets = [(g.key, g.metrics.get(metric)) for g in result.groups_at(check.scope)]
    out = []
    for bound, op, fail, warn in bounds:
        if not targets:
            out.append(CheckResult(metric, check.scope, (), op, fail, warn, None, CheckVerdict.UNMEASURED,
                                   f"the suite has no {check.scope} groups to check", Change(None, None, bound)))
        for key, value in targets:
            out.append(_judge_change(result, metric, check, key, value, bound, op, fail, warn, comparison, column))
    return out


def _judge_change(result: SuiteResult, metric: str, check: CheckConfig, key: Key, value: float | None,
                  bound: str, op: Op, fail: float, warn: float | None, comparison: BaselineComparison | None,
                  column: str | None) -> CheckResult:
    def unmeasured(reason: str, change: Change) -> CheckResult:
        return CheckResult(metric, check.scope, key, op, fail, warn, None, CheckVerdict.UNMEASURED, reason, change)

    confidence = check.confidence if check.significant else None
    if comparison is None or not comparison.comparable:
        reason = comparison.not_comparable_reason if comparison else "no baseline snapshot for this suite"
        return unmeasured(reason or "no baseline", Change(None, _finite(value), bound, confidence=confidence))
    snapshot = comparison.snapshot
    assert snapshot is not None  # comparable implies a snapshot
    baseline = snapshot.group_value(check.scope, key, metric)
    change = Change(baseline, _finite(value), bound, confidence=confidence)
    if change.current is None:
        return unmeasured(result.unmeasured_reason(key, metric) or "no measured value", change)
    if baseline is None:
        return unmeasured(f"the baseline snapshot has no {metric} for {key_label(key)}", change)
    delta = change.current - baseline
    verdict = judge_value(delta, op, fail, warn)
    if not check.significant:
        return CheckResult(metric, check.scope, key, op, fail, warn, delta, verdict, None, change)
    if column is None:
        return unmeasured(f"significance needs per-item values, and {metric} is not a mean over items", change)
    current, before = paired_values(result, snapshot, key, column)
    if len(current) < 2:
        change = replace(change, n=len(current))
        if verdict is CheckVerdict.PASS:
            return CheckResult(metric, check.scope, key, op, fail, warn, delta, verdict, None, change)
        return unmeasured(f"significance needs at least 2 items paired with the baseline, found {len(current)}",
                          change)
    test = stats.paired_difference(current, before, alpha=1 - check.confidence)
    bad = (test.high is not None and test.high < 0) if op is Op.MIN else (test.low is not None and test.low > 0)
    change = replace(change, n=test.n, low=test.low, high=test.high, significant=bad)
    if verdict is not CheckVerdict.PASS and not bad:
        verdict = CheckVerdict.PASS  # past the bound, but within noise: the check asked for significance
    return CheckResult(metric, check.scope, key, op, fail, warn, delta, verdict, None, change)


def paired_values(result: SuiteResult, snapshot: BaselineSnapshot, key: Key,
                  column: str) -> tuple[list[float], list[float]]:
    """(current, baseline) values of `column` for the items of group `key` present in both runs."""
    wanted = {(str(k), str(v)) for k, v in key}
    before = {_identity(i.key): i.values.get(column) for i in snapshot.items if wanted <= set(_identity(i.key))}
    current, baseline = [], []
    for item in result.items:
        identity = _identity(item.key)
        if not wanted <= set(identity):
            continue
        now, then = _finite(item.values.get(column)), _finite(before.get(identity))
        if now is not None and then is not None:
            current.append(now)
            baseline.append(then)
    return current, baseline


def _identity(key: Key) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in key)


def _finite(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)  # a rate is the mean of booleans
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None
