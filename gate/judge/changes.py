"""Change checks: `max_decrease` / `max_increase` of a metric against the suite's baseline snapshot.

The judged value is the change, current − baseline, of the group's (or suite's) metric. Where the items
allow it the change is also tested (`gate.stats.change_test`): items are paired by identity with the
snapshot's (whose values are means over its blessed runs), the metric is recomputed from them (`ItemStatistic`:
a mean, a percentile, corpus BLEU…), and the test's SE carries the noise of both runs plus, for a snapshot of
K ≥ 2 runs, the shared run-to-run noise. With `significant: true` the check joins the gate's family of tests:
its verdict waits for the gate-wide adjusted p (`gate.judge.family.decide`).

Coverage first: when fewer than `baselines.min_paired` of the snapshot's items of the group could be compared —
blessed items with no current item (renamed or dropped: the candidate set no longer covers the baseline), or
present without a value (a grader that failed on them) — the check FAILS with the items named. That is the pull
request's own input, so it is never "could not tell" (which `inconclusive: neutral` would let pass a required
check); a blessed group the run no longer has at all fails the same way. New items the snapshot lacks do not
count: they are simply not compared.

Could-not-tell is `inconclusive`, with the reason — never silently compared, never a silent pass — only for what
the pull request's inputs cannot cause: no snapshot or one not comparable (the base branch's scorer or model
changed after blessing), no baseline value for a new group, fewer than 2 blessed items to pair, a metric the
items cannot give, an underpowered test (`gate.judge.family`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from gate import stats
from gate.config import CheckConfig
from gate.judge.pairs import Members, finite, pair
from gate.judge.thresholds import check_targets, judge_value
from gate.judge.types import BaselineComparison, BaselineSnapshot, Change, CheckResult, CheckVerdict, Op
from gate.results import Key, SuiteResult, identity, key_label

StatisticOf = Callable[[str], "stats.ItemStatistic | None"]  # metric -> itself as a function of item values


def change_checks(result: SuiteResult, metric: str, check: CheckConfig, comparison: BaselineComparison | None,
                  statistic: stats.ItemStatistic | None, min_paired: float = 0.8) -> list[CheckResult]:
    bounds = []
    if check.max_decrease is not None:
        warn = -check.warn_decrease if check.warn_decrease is not None else None
        bounds.append(("max_decrease", Op.MIN, -check.max_decrease, warn))
    if check.max_increase is not None:
        bounds.append(("max_increase", Op.MAX, check.max_increase, check.warn_increase))
    targets = check_targets(result, metric, check.scope)
    members = Members(result, comparison.snapshot if comparison is not None else None)
    gone = _vanished_groups(result, metric, check.scope, comparison, members)
    out = []
    for bound, op, fail, warn in bounds:
        if not targets:
            out.append(CheckResult(metric, check.scope, (), op, fail, warn, None, CheckVerdict.UNMEASURED,
                                   f"the suite has no {check.scope} groups to check", Change(None, None, bound),
                                   suite=result.name))
        for key, value in targets:
            out.append(_judge_change(result, metric, check, key, value, (bound, op, fail, warn), comparison,
                                     statistic, min_paired, members))
        for key, baseline in gone:
            blessed = len(members.of(key)[1])
            out.append(CheckResult(metric, check.scope, key, op, fail, warn, None, CheckVerdict.FAIL,
                                   _vanished_reason(key, blessed),
                                   Change(baseline, None, bound, tested=check.significant, missing=blessed,
                                          paired_share=0.0 if blessed else None), suite=result.name))
    return out


def _vanished_groups(result: SuiteResult, metric: str, scope: str, comparison: BaselineComparison | None,
                     members: Members) -> list[tuple[Key, float]]:
    """The snapshot's groups at `scope` (of the run's models) with a value of `metric` that this run has no group
    for at all."""
    if scope == "suite" or comparison is None or not comparison.comparable or comparison.snapshot is None:
        return []
    snapshot = comparison.snapshot
    present = {identity(g.key) for g in result.groups_at(scope)}
    return [(key, value) for key in snapshot.group_keys(scope) if identity(key) not in present
            and members.in_run(key) and (value := snapshot.group_value(scope, key, metric)) is not None]


def _vanished_reason(key: Key, blessed: int) -> str:
    items = f" ({blessed:,} blessed item{'s' if blessed != 1 else ''})" if blessed else ""
    return (f"the baseline's {_short(key_label(key))}{items} has no candidate items: the candidate set no longer "
            f"covers the baseline — restore the items, or re-bless the snapshot on the base branch")


def _judge_change(result: SuiteResult, metric: str, check: CheckConfig, key: Key, value: float | None,
                  limits: tuple[str, Op, float, float | None], comparison: BaselineComparison | None,
                  statistic: stats.ItemStatistic | None, min_paired: float, members: Members) -> CheckResult:
    bound, op, fail, warn = limits

    def outcome(verdict: CheckVerdict, change: Change, reason: str | None = None,
                delta: float | None = None) -> CheckResult:
        return CheckResult(metric, check.scope, key, op, fail, warn, delta, verdict, reason, change, suite=result.name)

    tested = check.significant
    if comparison is None or not comparison.comparable:
        reason = comparison.not_comparable_reason if comparison else "no baseline snapshot for this suite"
        return outcome(CheckVerdict.INCONCLUSIVE, Change(None, finite(value), bound, tested=tested),
                       reason or "no baseline")
    snapshot = comparison.snapshot
    assert snapshot is not None  # comparable implies a snapshot
    baseline = snapshot.group_value(check.scope, key, metric)
    change = Change(baseline, finite(value), bound, tested=tested, runs=snapshot.runs)
    if change.current is None:
        return outcome(CheckVerdict.UNMEASURED, change, result.unmeasured_reason(key, metric) or "no measured value")
    delta = change.current - baseline if baseline is not None else None
    change, gaps = _with_test(change, members, snapshot, check.scope, key, metric, statistic, op)
    gap = _coverage_gap(change, gaps, metric, min_paired, key)
    if gap:  # the pull request's own inputs: a failure, never "could not tell"
        return outcome(CheckVerdict.FAIL, replace(change, p_value=None), gap, delta)
    if baseline is None or delta is None:
        return outcome(CheckVerdict.INCONCLUSIVE, change, f"the baseline snapshot has no {metric} for "
                       f"{key_label(key)}")
    if not tested:
        return outcome(judge_value(delta, op, fail, warn), change, None, delta)
    problem = _untestable(change, statistic, metric)
    if problem:  # no p: it stays out of the gate's family of tests
        return outcome(CheckVerdict.INCONCLUSIVE, replace(change, p_value=None), problem, delta)
    return outcome(judge_value(delta, op, fail, warn), change, None, delta)  # provisional: `family.decide`


def _with_test(change: Change, members: Members, snapshot: BaselineSnapshot, scope: str, key: Key, metric: str,
               statistic: stats.ItemStatistic | None, op: Op) -> tuple[Change, Gaps]:
    """The change with its coverage of the snapshot's items and, where the items allow it, its test; and the
    keys of the blessed items not compared (to name a few in a coverage failure)."""
    now, blessed = members.of(key)
    if statistic is None:  # nothing to recompute: coverage by identity alone
        present = {identity(item.key) for item in now}
        missing = tuple(then.key for ident, then in blessed.items() if ident not in present)
        unpaired = sum(1 for ident in present if ident not in blessed)
        share = (len(blessed) - len(missing)) / len(blessed) if blessed else None
        return (replace(change, unpaired=unpaired, missing=len(missing), paired_share=share),
                Gaps(missing, (), len(blessed)))
    pairs = pair(now, blessed, statistic.columns)
    n = len(pairs.current)
    covered = n + pairs.unmeasured + len(pairs.missing)  # the snapshot's items of the group that have a value
    share = n / covered if covered else None
    test = stats.change_test(pairs.current, pairs.baseline, statistic, runs=snapshot.runs,
                             run_sd=snapshot.group_sd(scope, key, metric), item_variances=pairs.variances[:, 0],
                             item_runs=pairs.runs, current_variances=pairs.current_variances[:, 0],
                             current_draws=pairs.current_draws,
                             item_thirds=pairs.thirds[:, 0] if pairs.thirds is not None else None) if n >= 2 else None
    change = replace(change, unpaired=pairs.unpaired, unmeasured=pairs.unmeasured, missing=len(pairs.missing),
                     paired_share=share)
    gaps = Gaps(pairs.missing, pairs.valueless, covered)
    if test is None:
        return replace(change, n=n), gaps
    side = "decrease" if op is Op.MIN else "increase"
    return replace(change, n=test.n, estimate=test.estimate, se=test.se, df=test.df, method=test.method,
                   shared_sd=test.shared_sd, p_value=test.p_value(side)), gaps


@dataclass(frozen=True)
class Gaps:
    """The keys of a group's blessed items that could not be compared: no current item, or one without a value."""

    missing: tuple[Key, ...]
    valueless: tuple[Key, ...]
    blessed: int  # the snapshot's items of the group that have a value


EXAMPLES = 3  # blessed items a coverage failure names


def _coverage_gap(change: Change, gaps: Gaps, metric: str, min_paired: float, group: Key) -> str | None:
    """Why the candidate set does not cover the snapshot's items of the group (fewer than `min_paired` of them
    compared), naming a few; None when it does. New items of the run do not count either way."""
    if change.paired_share is None or change.paired_share >= min_paired:
        return None
    total = gaps.blessed
    why = []
    if change.missing:
        why.append(f"{change.missing:,} of {total:,} blessed items have no candidate: e.g. "
                   f"{_examples(gaps.missing, group)}; the candidate set no longer covers the baseline — restore the "
                   "items, or re-bless the snapshot on the base branch")
    if change.unmeasured:
        why.append(f"{change.unmeasured:,} of {total:,} blessed items have no {metric} in this run (unmeasured, or "
                   f"a grader that failed on them): e.g. {_examples(gaps.valueless, group)}")
    return (f"only {change.paired_share:.0%} of the baseline snapshot's items could be compared "
            f"(baselines.min_paired: {min_paired:.0%}): " + "; ".join(why))


def _examples(keys: tuple[Key, ...], group: Key) -> str:
    """A few of the items, by the fields of their key the group's key does not already say."""
    said = {str(field) for field, _ in group}
    shown = sorted(_short(key_label(tuple((f, v) for f, v in k if str(f) not in said)) or key_label(k)) for k in keys)
    more = len(shown) - EXAMPLES
    return ", ".join(shown[:EXAMPLES]) + (f" and {more:,} more" if more > 0 else "")


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _untestable(change: Change, statistic: stats.ItemStatistic | None, metric: str) -> str | None:
    if statistic is None:
        return f"{metric} cannot be recomputed from the items, so its change cannot be tested"
    if change.n < 2:
        return f"significance needs at least 2 items paired with the baseline, found {change.n}"
    return None
