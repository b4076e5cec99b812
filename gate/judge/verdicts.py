"""Checks -> verdicts. Pure: measured results and configured checks in, verdicts out.

Each configured check becomes threshold checks (`gate.judge.thresholds`: `min` / `max` / `warn`) and,
with `max_decrease` / `max_increase`, change checks against the baseline snapshot (`gate.judge.changes`).
A check that was not measured counts toward the suite as the suite's `unmeasured` policy says (warn by
default) — never as a pass. Suite verdict = worst check; gate verdict = worst suite.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge.changes import change_checks
from gate.judge.thresholds import threshold_checks
from gate.judge.types import BaselineComparison, CheckResult, GateVerdict, Op, SuiteVerdict, Verdict, worst
from gate.results import SuiteResult


def judge_suite(result: SuiteResult, checks: Mapping[str, CheckConfig], policy: UnmeasuredPolicy,
                comparison: BaselineComparison | None = None,
                item_column: Callable[[str], str | None] = lambda metric: None) -> SuiteVerdict:
    """Verdicts of every check; change checks compare with `comparison`'s snapshot (`gate.judge.changes`),
    pairing items through `item_column` (the item value a group metric is the mean of)."""
    outcomes: list[CheckResult] = []
    for metric, check in checks.items():
        bounds = [(Op.MIN, check.min), (Op.MAX, check.max)]
        for op, fail in ((o, f) for o, f in bounds if f is not None):
            outcomes += threshold_checks(result, metric, check.scope, op, fail, check.warn)
        if check.relative:
            outcomes += change_checks(result, metric, check, comparison, item_column(metric))
    verdict = worst([c.counts_as(policy) for c in outcomes])
    return SuiteVerdict(result, tuple(outcomes), verdict, policy, comparison)


def judge_gate(name: str, suites: Sequence[SuiteVerdict], skipped_reason: str | None = None) -> GateVerdict:
    if not suites:
        return GateVerdict(name, Verdict.SKIPPED, (), skipped_reason or "no suites were run")
    return GateVerdict(name, worst([s.verdict for s in suites]), tuple(suites), None)
