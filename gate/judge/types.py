"""The verdict types every part of the judge shares: what a check, a suite and the gate were judged to be.

A leaf of the judge: thresholds, change checks and the suite/gate verdicts all build these values, so they
live here and import nothing else of the judge (this is what keeps `changes` and `verdicts` free of a cycle).
A check that was not measured is `CheckVerdict.UNMEASURED`; how it counts toward its suite is the suite's
`unmeasured` policy (`CheckResult.counts_as`). A change check that could not tell (no comparable snapshot,
too few paired items, underpowered) is `INCONCLUSIVE`; a check a waiver in gate.yml accepts is `WAIVED` —
shown as waived, never as passed (DESIGN.md §10).

The baseline snapshot and its comparison with a run belong to `gate.baselines`, above the judge: the judge
declares what it reads of them as Protocols (`BaselineComparison`), which `gate.baselines.snapshots`'
`SnapshotComparison` and `Snapshot` satisfy, so no import goes upward.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Protocol

from gate.config import InconclusivePolicy, UnmeasuredPolicy
from gate.config.changes import GateChanges
from gate.results import Key, SuiteResult


class Verdict(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"  # could not tell; gate.yml's `inconclusive:` says how it counts
    SKIPPED = "skipped"  # nothing was judged (no suites selected)


class CheckVerdict(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    UNMEASURED = "unmeasured"
    INCONCLUSIVE = "inconclusive"
    WAIVED = "waived"  # not passed: a waiver in gate.yml accepts its result until it expires


class Op(str, Enum):
    MIN = "min"
    MAX = "max"


@dataclass(frozen=True)
class Change:
    """A check of a value's change against the blessed baseline snapshot, with its evidence.

    With significance (`significant: true`) the change is tested (`gate.stats.change`): `p_value` is the raw
    one-sided p on the bad side, `p_adjusted` the gate-wide Holm / BH adjusted one, `mde` the smallest change
    the test detects with 80 % power at the gate's strictest corrected level; `underpowered` when that exceeds
    the check's own bound. Without significance `mde` is still reported where the items allow a test."""

    baseline: float | None
    current: float | None
    bound: str  # "max_decrease" | "max_increase", as configured
    n: int = 0  # items paired with the baseline
    tested: bool = False  # `significant: true`: in the gate's family of significance tests
    estimate: float | None = None  # the change over the paired items, f(current) − f(baseline)
    se: float | None = None  # its standard error (item noise plus shared run noise)
    df: float | None = None
    method: str | None = None  # "paired t-test" | "paired bootstrap (2,000 resamples)"
    runs: int = 1  # blessed runs the baseline is the mean of (1: its noise is unknown)
    shared_sd: float | None = None  # run-level noise beyond item noise (None: a one-run snapshot)
    # of the snapshot's items of the group (that have a value), the share compared with a current item: the
    # candidate set's coverage of the baseline (new items in the current run neither raise nor lower it)
    paired_share: float | None = None
    unpaired: int = 0  # the group's current items the snapshot does not have (new, renamed): not compared
    unmeasured: int = 0  # the snapshot's items of the group present now without a value (a grader that failed)
    missing: int = 0  # the snapshot's items of the group (with a value) that have no current item at all
    p_value: float | None = None
    p_adjusted: float | None = None
    alpha: float | None = None  # the gate's false-alarm budget the adjusted p is compared with
    mde: float | None = None
    significant: bool | None = None  # adjusted p <= alpha on the bad side; None: not tested
    underpowered: bool = False


@dataclass(frozen=True)
class WaiverInfo:
    """The waiver that accepts (or, expired, no longer accepts) a check's result."""

    reason: str
    owner: str
    expires: str  # ISO date
    expired: bool = False
    replaced: str | None = None  # the verdict the waiver replaced ("fail", "inconclusive"…); None: nothing


class BaselineItem(Protocol):
    """One item of the baseline snapshot: its identity and its numeric values (for paired tests)."""

    @property
    def key(self) -> Key: ...
    @property
    def values(self) -> Mapping[str, float]: ...
    @property
    def variances(self) -> Mapping[str, float]: ...
    @property
    def thirds(self) -> Mapping[str, float]: ...  # run-to-run third central moments (the noise's skew)
    @property
    def runs(self) -> int: ...


class BaselineSnapshot(Protocol):
    """What change checks read of a blessed snapshot, and the report of where it came from."""

    @property
    def items(self) -> Sequence[BaselineItem]: ...
    @property
    def created_at(self) -> str: ...
    @property
    def commit(self) -> str | None: ...
    @property
    def runs(self) -> int: ...
    def group_value(self, level: str, key: Key, metric: str) -> float | None: ...
    def group_sd(self, level: str, key: Key, metric: str) -> float | None: ...
    def group_keys(self, level: str) -> Sequence[Key]: ...  # the blessed groups at a level


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


@dataclass(frozen=True)
class FlakyItem:
    """An item whose draws straddle a check's bound: `met` of `draws` meet `op` `bound` on `column`."""

    key: Key
    metric: str  # the checked metric (the mean of `column` over a group's items)
    column: str  # the item value each draw is read on
    op: Op
    bound: float
    met: int
    draws: int
    low: float  # the draws' smallest and largest value
    high: float
    sd: float  # their standard deviation (ddof 1): the item's own noise

    @property
    def share(self) -> float:
        return self.met / self.draws

    @property
    def criterion(self) -> str:
        return f"{self.column} {'≥' if self.op is Op.MIN else '≤'} {self.bound:g}"


_SEVERITY = {Verdict.SKIPPED: -1, Verdict.PASS: 0, Verdict.WARN: 1, Verdict.INCONCLUSIVE: 2, Verdict.FAIL: 3}


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
    reason: str | None = None  # why unmeasured / inconclusive
    change: Change | None = None  # set for checks against the baseline snapshot (max_decrease/max_increase)
    waiver: WaiverInfo | None = None  # the waiver that matched it (an expired one leaves the verdict as is)
    suite: str = ""  # the suite it belongs to (what a waiver names)
    advisory: bool = False  # gate.yml's `advisory: true`: judged and shown, never blocks (no suite/gate verdict)

    def counts_as(self, policy: UnmeasuredPolicy) -> Verdict:
        if self.verdict is CheckVerdict.UNMEASURED:
            return Verdict.FAIL if policy is UnmeasuredPolicy.FAIL else Verdict.WARN
        if self.verdict is CheckVerdict.WAIVED:
            return Verdict.PASS
        return Verdict(self.verdict.value)


@dataclass(frozen=True)
class SuiteVerdict:
    result: SuiteResult
    checks: tuple[CheckResult, ...]
    verdict: Verdict
    policy: UnmeasuredPolicy
    comparison: BaselineComparison | None = None  # the suite against its baseline snapshot, when one was looked up
    flaky: tuple[FlakyItem, ...] = ()  # items whose draws straddle a check's bound, worst first (gate.judge.items)

    @cached_property
    def _on_group(self) -> dict[tuple[str, Key], list[CheckResult]]:
        """The checks on each (scope, key), indexed once: a report asks about every one of thousands of groups,
        and a scan of all checks per group made a 9,000-item report take minutes (issue 21, item 4)."""
        index: dict[tuple[str, Key], list[CheckResult]] = {}
        for check in self.checks:
            index.setdefault((check.scope, check.key), []).append(check)
        return index

    def checks_on(self, scope: str, key: Key) -> Sequence[CheckResult]:
        """The checks on one group (scope "group", a further level such as "model", or "suite")."""
        return self._on_group.get((scope, key), ())

    def group_verdict(self, scope: str, key: Key) -> Verdict | None:
        """Worst verdict of the checks on one group; None where no check looks at it."""
        verdicts = [c.counts_as(self.policy) for c in self.checks_on(scope, key) if not c.advisory]
        return worst(verdicts) if verdicts else None

    def group_shown(self, scope: str, key: Key) -> Verdict | CheckVerdict | None:
        """What a group's icon shows: its verdict, but `waived` where waivers are all that keep it from failing or
        warning (a waived group is never shown as passed)."""
        verdict = self.group_verdict(scope, key)
        waived = any(c.verdict is CheckVerdict.WAIVED and not c.advisory for c in self.checks_on(scope, key))
        return CheckVerdict.WAIVED if verdict is Verdict.PASS and waived else verdict

    def count(self, verdict: CheckVerdict, advisory: bool = False) -> int:
        """The required checks with this verdict (`advisory`: the advisory ones, which the headline counts apart)."""
        return sum(1 for c in self.checks if c.verdict is verdict and c.advisory is advisory)

    @property
    def required(self) -> tuple[CheckResult, ...]:
        """The checks the suite's verdict follows (every check but the advisory ones)."""
        return tuple(c for c in self.checks if not c.advisory)


@dataclass(frozen=True)
class GateVerdict:
    name: str
    verdict: Verdict
    suites: tuple[SuiteVerdict, ...]
    skipped_reason: str | None = None
    alpha: float | None = None  # the false-alarm budget shared by the significance-tested checks
    correction: str | None = None  # "holm" | "bh" | "none"
    tested: int = 0  # checks in that family
    notes: tuple[str, ...] = ()  # waivers that matched nothing or expired, what the correction did
    inconclusive: InconclusivePolicy = InconclusivePolicy.NEUTRAL  # what "could not tell" counts as
    gate_changes: GateChanges | None = None  # what the pull request changes in its own gate (None: not a PR)
    advisory_tested: int = 0  # advisory significance-tested checks: each tested alone at alpha, outside the family

    def advisory_count(self, verdict: CheckVerdict) -> int:
        """The advisory checks with this verdict over every suite (never part of `verdict`)."""
        return sum(s.count(verdict, advisory=True) for s in self.suites)

    @property
    def counts_as(self) -> Verdict:
        """The verdict the exit code and the check run's conclusion follow: an inconclusive gate counts as
        gate.yml's `inconclusive:` says (neutral: stays inconclusive, a neutral check run and exit code 0)."""
        if self.verdict is not Verdict.INCONCLUSIVE or self.inconclusive is InconclusivePolicy.NEUTRAL:
            return self.verdict
        return Verdict(self.inconclusive.value)
