"""Threshold checks: a measured value against `min` / `max` and an optional `warn` level. Pure.

A check `{min: 0.8, warn: 0.85}` fails below 0.8, warns from 0.8 up to (not including) 0.85 and
passes from 0.85; `{max: 3.0, warn: 2.5}` mirrors it. A value that was not measured gives the
check verdict `unmeasured`, with the reason the scorer recorded — never a pass.
"""

from __future__ import annotations

from gate.judge.types import CheckResult, CheckVerdict, Op
from gate.results import Key, SuiteResult

# A mean of 0.9, 0.7 and 0.8 is 0.7999999999999999 in floating point; it meets `min: 0.8`. Values
# within this distance of a threshold count as on it (far below any difference a metric can show).
TOLERANCE = 1e-9


def judge_value(value: float | None, op: Op, fail: float, warn: float | None) -> CheckVerdict:
    if value is None:
        return CheckVerdict.UNMEASURED
    if op is Op.MIN:
        if value < fail - TOLERANCE:
            return CheckVerdict.FAIL
        return CheckVerdict.WARN if warn is not None and value < warn - TOLERANCE else CheckVerdict.PASS
    if value > fail + TOLERANCE:
        return CheckVerdict.FAIL
    return CheckVerdict.WARN if warn is not None and value > warn + TOLERANCE else CheckVerdict.PASS


def check_targets(result: SuiteResult, metric: str, scope: str) -> list[tuple[Key, float | None]]:
    """(key, value) of every group at `scope` a check of `metric` applies to: the groups that have the metric
    (measured or not) — a rubric's category metric exists only in its category's groups — or, where none has
    it, every group (each then unmeasured, with the reason)."""
    if scope == "suite":
        return [((), result.metrics.get(metric))]
    groups = result.groups_at(scope)
    having = [g for g in groups if metric in g.metrics]
    return [(g.key, g.metrics.get(metric)) for g in (having or groups)]


def threshold_checks(result: SuiteResult, metric: str, scope: str, op: Op, fail: float,
                     warn: float | None) -> list[CheckResult]:
    """One check per group at `scope` (or the suite's own value); no group at all is one unmeasured check."""
    targets = check_targets(result, metric, scope)
    if not targets:
        return [CheckResult(metric, scope, (), op, fail, warn, None, CheckVerdict.UNMEASURED,
                            f"the suite has no {scope} groups to check")]
    checks = []
    for key, value in targets:
        verdict = judge_value(value, op, fail, warn)
        reason = None
        if verdict is CheckVerdict.UNMEASURED:
            reason = result.unmeasured_reason(key, metric) or "no measured value"
        checks.append(CheckResult(metric, scope, key, op, fail, warn, value, verdict, reason))
    return checks
