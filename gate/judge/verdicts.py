"""Checks -> verdicts. Pure: measured results and configured checks in, verdicts out.

Each configured check becomes threshold checks (`gate.judge.thresholds`: `min` / `max` / `warn`) and,
with `max_decrease` / `max_increase`, change checks against the baseline snapshot (`gate.judge.changes`).
The significance-tested ones share the gate's false-alarm budget (`gate.judge.family`), so their verdicts are
final only at the gate: `judge_suite` decides a suite on its own family (for a suite judged alone),
`judge_gate` re-decides every suite on the whole gate's family and applies the waivers (`gate.judge.waivers`).
A check that was not measured counts toward the suite as the suite's `unmeasured` policy says (warn by
default) — never as a pass; could-not-tell is `inconclusive`; a waived check counts as neither.
Suite verdict = worst required check; gate verdict = worst suite. An advisory check (`advisory: true`) is judged
like any other but never counts toward a verdict, and a tested one is decided alone at `alpha`, outside the family.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from gate import stats
from gate.config import CheckConfig, InconclusivePolicy, UnmeasuredPolicy, Waiver
from gate.config.items import ItemsConfig
from gate.judge.changes import change_checks
from gate.judge.family import decide_family
from gate.judge.items import flaky_items, item_criteria
from gate.judge.thresholds import threshold_checks
from gate.judge.types import BaselineComparison, CheckResult, GateVerdict, Op, SuiteVerdict, Verdict, worst
from gate.judge.waivers import apply_waivers
from gate.results import SuiteResult


@dataclass(frozen=True)
class VerdictSettings:
    """gate.yml's gate-wide verdict settings (`alpha`, `correction`, `baselines.min_paired`, `waivers`)."""

    alpha: float = 0.05
    correction: stats.Correction = stats.Correction.HOLM
    min_paired: float = 0.8
    waivers: tuple[Waiver, ...] = ()
    today: dt.date | None = None  # the run's date, for waiver expiry (None: waivers are not applied)
    inconclusive: InconclusivePolicy = InconclusivePolicy.NEUTRAL


def judge_suite(result: SuiteResult, checks: Mapping[str, CheckConfig | Sequence[CheckConfig]],
                policy: UnmeasuredPolicy, comparison: BaselineComparison | None = None,
                statistic_of: Callable[[str], stats.ItemStatistic | None] = lambda metric: None,
                settings: VerdictSettings = VerdictSettings(), items: ItemsConfig | None = None) -> SuiteVerdict:
    """Verdicts of every check; change checks compare with `comparison`'s snapshot (`gate.judge.changes`),
    recomputing a metric from paired items through `statistic_of`. `items`: the suite's per-item criterion
    (gate.yml's `items:`), whose straddling items are flaky too."""
    outcomes: list[CheckResult] = []
    for metric, given in checks.items():
        for check in ((given,) if isinstance(given, CheckConfig) else given):
            outcomes += _outcomes(result, metric, check, comparison, statistic_of, settings)
    flaky = flaky_items(result, item_criteria(checks, statistic_of, items))
    suite = SuiteVerdict(result, tuple(outcomes), Verdict.PASS, policy, comparison, flaky)
    decided, _ = decide_family([suite], settings.alpha, settings.correction)
    return _with_verdict(decided[0])


def _outcomes(result: SuiteResult, metric: str, check: CheckConfig, comparison: BaselineComparison | None,
              statistic_of: Callable[[str], stats.ItemStatistic | None],
              settings: VerdictSettings) -> list[CheckResult]:
    """One configured check's threshold and change checks."""
    outcomes: list[CheckResult] = []
    bounds = [(Op.MIN, check.min), (Op.MAX, check.max)]
    for op, fail in ((o, f) for o, f in bounds if f is not None):
        outcomes += [replace(c, suite=result.name)
                     for c in threshold_checks(result, metric, check.scope, op, fail, check.warn)]
    if check.relative:
        outcomes += change_checks(result, metric, check, comparison, statistic_of(metric), settings.min_paired)
    return [replace(c, advisory=True) for c in outcomes] if check.advisory else outcomes


def judge_gate(name: str, suites: Sequence[SuiteVerdict], skipped_reason: str | None = None,
               settings: VerdictSettings = VerdictSettings()) -> GateVerdict:
    if not suites:
        return GateVerdict(name, Verdict.SKIPPED, (), skipped_reason or "no suites were run",
                           inconclusive=settings.inconclusive)
    decided, tested = decide_family(suites, settings.alpha, settings.correction)
    alone = sum(1 for s in decided for c in s.checks if c.advisory and c.change is not None and c.change.tested
                and c.change.p_adjusted is not None)
    notes: list[str] = []
    if settings.waivers and settings.today is not None:
        decided, notes = apply_waivers(decided, settings.waivers, settings.today)
    final = [_with_verdict(s) for s in decided]
    return GateVerdict(name, worst([s.verdict for s in final]), tuple(final), None, alpha=settings.alpha,
                       correction=settings.correction.value, tested=tested, notes=tuple(notes),
                       inconclusive=settings.inconclusive, advisory_tested=alone)


def _with_verdict(suite: SuiteVerdict) -> SuiteVerdict:
    return replace(suite, verdict=worst([c.counts_as(suite.policy) for c in suite.required]))
