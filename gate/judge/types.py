"""The verdict types every part of the judge shares: what a check, a suite and the gate were judged to be.

A leaf of the judge: thresholds, change checks and the suite/gate verdicts all build these values, so they
live here and import nothing else of the judge (this is what keeps `changes` and `verdicts` free of a cycle).
A check that was not measured is `CheckVerdict.UNMEASURED`; how it counts toward its suite is the suite's
`unmeasured` policy (`CheckResult.counts_as`).

The baseline snapshot and its comparison with a run belong to `gate.baselines`, above the judge: the judge
declares what it reads of them as Protocols (`BaselineComparison`), which `gate.baselines.snapshots`'
`SnapshotComparison` and `Snapshot` satisfy, so no import goes upward.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from gate.config import UnmeasuredPolicy
from gate.results import Key, SuiteResult


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


class BaselineItem(Protocol):
    """One item of the baseline snapshot: its identity and its numeric values (for paired tests)."""

    @property
    def key(self) -> Key: ...
    @property
    def values(self) -> Mapping[str, float]: ...


class BaselineSnapshot(Protocol):
    """What change checks read of a blessed snapshot, and the report of where it came from."""

    @property
    def items(self) -> Sequence[BaselineItem]: ...
    @property
    def created_at(self) -> str: ...
    @property
    def commit(self) -> str | None: ...
    def group_value(self, level: str, key: Key, metric: str) -> float | None: ...


class BaselineComparison(Protocol):
    """A suite's run against its baseline snapshot (`gate.baselines.snapshots.SnapshotComparison`): what the
    change checks read, and what the verdict carries on to the report."""

    @property
    def snapshot(self) -> BaselineSnapshot | None: ...
    @property
    def path(self) -> str: ...
    @property
    def differences(self) -> tuple[str, ...]: ...
    @property
    def age_days(self) -> float | None: ...
    @property
    def stale(self) -> bool: ...
    @property
    def changed_in_pr(self) -> tuple[str, ...]: ...
    @property
    def comparable(self) -> bool: ...
    @property
    def not_comparable_reason(self) -> str | None: ...


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
    comparison: BaselineComparison | None = None  # the suite against its baseline snapshot, when one was looked up

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
