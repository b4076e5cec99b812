"""Checks -> verdicts. Pure: measured results and thresholds in, verdicts out.

A check `{min: 0.8, warn: 0.85}` fails below 0.8, warns from 0.8 up to (not including) 0.85 and
passes from 0.85; `{max: 3.0, warn: 2.5}` mirrors it. A value that was not measured gives the
check verdict `unmeasured`, which counts toward the suite as the suite's `unmeasured` policy says
(warn by default) — never as a pass. Suite verdict = worst check; gate verdict = worst suite.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from gate.config import CheckConfig, UnmeasuredPolicy
from gate.results import Key, SuiteResult

if TYPE_CHECKING:
    from gate.snapshots import Comparison


class Verdict(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIPPED = "skipped"  # nothing was judged (no suites selected)


class CheckVerdict(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    UNMEASURED = "unmeasured"


class Op(str, Enum):
    MIN = "min"
    MAX = "max"


@dataclass(frozen=True)
class Change:
    """A check of a value's change against the blessed baseline snapshot, with its evidence."""

    baseline: float | None
    current: float | None
    bound: str  # "max_decrease" | "max_increase", as configured
    n: int = 0  # items paired with the baseline for the interval
    low: float | None = None  # confidence interval of the mean per-item difference (current − baseline)
    high: float | None = None
    confidence: float | None = None  # None: significance not asked for
    significant: bool | None = None  # is the change significant on the bad side? None: not tested


_SEVERITY = {Verdict.SKIPPED: -1, Verdict.PASS: 0, Verdict.WARN: 1, Verdict.FAIL: 2}


def worst(verdicts: Sequence[Verdict], empty: Verdict = Verdict.PASS) -> Verdict:
    return max(verdicts, key=_SEVERITY.__getitem__) if verdicts else empty


@dataclass(frozen=True)
class CheckResult:
    metric: str
    scope: str  # "group" | another level | "suite"
    key: Key
    op: Op
    fail: float
    warn: float | None
    value: float | None  # for a change check: current − baseline
    verdict: CheckVerdict
    reason: str | None = None  # why unmeasured
    change: Change | None = None  # set for checks against the baseline snapshot (max_decrease/max_increase)

    def counts_as(self, policy: UnmeasuredPolicy) -> Verdict:
        if self.verdict is CheckVerdict.UNMEASURED:
            return Verdict.FAIL if policy is UnmeasuredPolicy.FAIL else Verdict.WARN
        return Verdict(self.verdict.value)


@dataclass(frozen=True)
class SuiteVerdict:
    result: SuiteResult
    checks: tuple[CheckResult, ...]
    verdict: Verdict
    policy: UnmeasuredPolicy
    comparison: Comparison | None = None  # the suite against its baseline snapshot, when one was looked up

    def group_verdict(self, scope: str, key: Key) -> Verdict | None:
        """Worst verdict of the checks on one group; None where no check looks at it."""
        verdicts = [c.counts_as(self.policy) for c in self.checks if c.scope == scope and c.key == key]
        return worst(verdicts) if verdicts else None

    def count(self, verdict: CheckVerdict) -> int:
        return sum(1 for c in self.checks if c.verdict is verdict)


@dataclass(frozen=True)
class GateVerdict:
    name: str
    verdict: Verdict
    suites: tuple[SuiteVerdict, ...]
    skipped_reason: str | None = None


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


def judge_suite(result: SuiteResult, checks: Mapping[str, CheckConfig], policy: UnmeasuredPolicy,
                comparison: Comparison | None = None,
                item_column: Callable[[str], str | None] = lambda metric: None) -> SuiteVerdict:
    """Verdicts of every check; change checks compare with `comparison`'s snapshot (`gate.judge_changes`),
    pairing items through `item_column` (the item value a group metric is the mean of)."""
    from gate.judge_changes import change_checks

    outcomes: list[CheckResult] = []
    for metric, check in checks.items():
        bounds = [(Op.MIN, check.min), (Op.MAX, check.max)]
        for op, fail in ((o, f) for o, f in bounds if f is not None):
            outcomes += _apply(result, metric, check.scope, op, fail, check.warn)
        if check.relative:
            outcomes += change_checks(result, metric, check, comparison, item_column(metric))
    verdict = worst([c.counts_as(policy) for c in outcomes])
    return SuiteVerdict(result, tuple(outcomes), verdict, policy, comparison)


def _apply(result: SuiteResult, metric: str, scope: str, op: Op, fail: float, warn: float | None) -> list[CheckResult]:
    if scope == "suite":
        targets: list[tuple[Key, float | None]] = [((), result.metrics.get(metric))]
    else:
        targets = [(g.key, g.metrics.get(metric)) for g in result.groups_at(scope)]
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


def judge_gate(name: str, suites: Sequence[SuiteVerdict], skipped_reason: str | None = None) -> GateVerdict:
    if not suites:
        return GateVerdict(name, Verdict.SKIPPED, (), skipped_reason or "no suites were run")
    return GateVerdict(name, worst([s.verdict for s in suites]), tuple(suites), None)
