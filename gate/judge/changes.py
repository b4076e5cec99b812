"""Change checks: `max_decrease` / `max_increase` of a metric against the suite's baseline snapshot.

The judged value is the change, current − baseline, of the group's (or suite's) metric. Where the items
allow it the change is also tested (`gate.stats.change_test`): items are paired by identity with the
snapshot's (whose values are means over its blessed runs), the metric is recomputed from them (`ItemStatistic`:
a mean, a percentile, corpus BLEU…), and the test's SE carries the noise of both runs plus, for a snapshot of
K ≥ 2 runs, the shared run-to-run noise. With `significant: true` the check joins the gate's family of tests:
its verdict waits for the gate-wide adjusted p (`gate.judge.family.decide`).

Could-not-tell is `inconclusive`, with the reason — never silently compared, never a silent pass: no snapshot
or one not comparable, no baseline value, fewer than 2 paired items or fewer than `baselines.min_paired` of the
group's items paired (the item set changed), a metric the items cannot give.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gate import stats
from gate.config import CheckConfig
from gate.judge.thresholds import check_targets, judge_value
from gate.judge.types import BaselineComparison, BaselineSnapshot, Change, CheckResult, CheckVerdict, Op
from gate.results import GroupIndex, Key, SuiteResult, identity, key_label

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
    out = []
    for bound, op, fail, warn in bounds:
        if not targets:
            out.append(CheckResult(metric, check.scope, (), op, fail, warn, None, CheckVerdict.UNMEASURED,
                                   f"the suite has no {check.scope} groups to check", Change(None, None, bound),
                                   suite=result.name))
        for key, value in targets:
            out.append(_judge_change(result, metric, check, key, value, (bound, op, fail, warn), comparison,
                                     statistic, min_paired, members))
    return out


class Members:
    """The items of each group, current and blessed (each indexed once: `gate.results.GroupIndex`)."""

    def __init__(self, result: SuiteResult, snapshot: BaselineSnapshot | None):
        self._now = GroupIndex(result.items)
        self._then = GroupIndex(snapshot.items if snapshot is not None else ())

    def of(self, key: Key) -> tuple[list[Any], dict[Key, Any]]:
        """(the group's current items, its blessed items by identity)."""
        return self._now.of(key), {identity(blessed.key): blessed for blessed in self._then.of(key)}


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
        return outcome(CheckVerdict.INCONCLUSIVE, Change(None, _finite(value), bound, tested=tested),
                       reason or "no baseline")
    snapshot = comparison.snapshot
    assert snapshot is not None  # comparable implies a snapshot
    baseline = snapshot.group_value(check.scope, key, metric)
    change = Change(baseline, _finite(value), bound, tested=tested, runs=snapshot.runs)
    if change.current is None:
        return outcome(CheckVerdict.UNMEASURED, change, result.unmeasured_reason(key, metric) or "no measured value")
    if baseline is None:
        return outcome(CheckVerdict.INCONCLUSIVE, change, f"the baseline snapshot has no {metric} for "
                       f"{key_label(key)}")
    delta = change.current - baseline
    change = _with_test(change, members, snapshot, check.scope, key, metric, statistic, op)
    if not tested:
        return outcome(judge_value(delta, op, fail, warn), change, None, delta)
    problem = _untestable(change, statistic, metric, min_paired)
    if problem:  # no p: it stays out of the gate's family of tests
        return outcome(CheckVerdict.INCONCLUSIVE, replace(change, p_value=None), problem, delta)
    return outcome(judge_value(delta, op, fail, warn), change, None, delta)  # provisional: `family.decide`


def _with_test(change: Change, members: Members, snapshot: BaselineSnapshot, scope: str, key: Key, metric: str,
               statistic: stats.ItemStatistic | None, op: Op) -> Change:
    if statistic is None:
        return change
    pairs = _pair(*members.of(key), statistic.columns)
    n = len(pairs.current)
    share = n / pairs.total if pairs.total else None
    test = stats.change_test(pairs.current, pairs.baseline, statistic, runs=snapshot.runs,
                             run_sd=snapshot.group_sd(scope, key, metric), item_variances=pairs.variances[:, 0],
                             item_runs=pairs.runs, current_variances=pairs.current_variances[:, 0],
                             current_draws=pairs.current_draws) if n >= 2 else None
    change = replace(change, unpaired=pairs.unpaired, unmeasured=pairs.unmeasured)
    if test is None:
        return replace(change, n=n, paired_share=share)
    side = "decrease" if op is Op.MIN else "increase"
    return replace(change, n=test.n, estimate=test.estimate, se=test.se, df=test.df, method=test.method,
                   shared_sd=test.shared_sd, paired_share=share, p_value=test.p_value(side))


def _untestable(change: Change, statistic: stats.ItemStatistic | None, metric: str, min_paired: float) -> str | None:
    if statistic is None:
        return f"{metric} cannot be recomputed from the items, so its change cannot be tested"
    if change.n < 2:
        return f"significance needs at least 2 items paired with the baseline, found {change.n}"
    if change.paired_share is not None and change.paired_share < min_paired:
        why = [f"{change.unpaired:,} are not in the snapshot (the item set changed: re-bless the baseline)"
               if change.unpaired else "",
               f"{change.unmeasured:,} have no {metric} on one side (unmeasured, or a grader that failed)"
               if change.unmeasured else ""]
        return (f"only {change.paired_share:.0%} of the items could be compared with the baseline snapshot "
                f"(baselines.min_paired: {min_paired:.0%}): " + "; ".join(w for w in why if w))
    return None


@dataclass(frozen=True)
class Pairs:
    """A group's items present in both runs, as rows of the statistic's columns (NaN where a value is missing)."""

    current: np.ndarray  # (n, c)
    baseline: np.ndarray  # (n, c): the means over the snapshot's runs
    variances: np.ndarray  # (n, c): the snapshot's run-to-run variances (NaN: unknown)
    runs: np.ndarray  # (n,): the runs (and repeated samples) each baseline item's mean is over
    current_variances: np.ndarray  # (n, c): the spread of the current item's repeated samples (NaN: one)
    current_draws: np.ndarray  # (n,): the samples each current item's value is the mean of
    total: int  # the group's items in this run, paired or not
    unpaired: int = 0  # of them, those the snapshot does not have
    unmeasured: int = 0  # of them, those in both without a value on one side


def paired_rows(result: SuiteResult, snapshot: BaselineSnapshot, key: Key, columns: tuple[str, ...]) -> Pairs:
    """The items of group `key` present in both runs; an item missing a column on either side has NaN there,
    and one missing all (its only one, for a one-column statistic) is left out."""
    return _pair(*Members(result, snapshot).of(key), columns)


def _pair(current_items: list[Any], blessed: dict[tuple[tuple[str, str], ...], Any], columns: tuple[str, ...]) -> Pairs:
    current, baseline, variances, runs, spreads, draws = [], [], [], [], [], []
    unpaired = unmeasured = 0
    for item in current_items:
        then = blessed.get(identity(item.key))
        if then is None:
            unpaired += 1
            continue
        now_row = [_nan(item.values.get(c)) for c in columns]
        then_row = [_nan(then.values.get(c)) for c in columns]
        usable = [not (math.isnan(a) or math.isnan(b)) for a, b in zip(now_row, then_row, strict=True)]
        if all(usable) if len(columns) == 1 else any(usable):
            current.append(now_row)
            baseline.append(then_row)
            variances.append([_nan(then.variances.get(c)) for c in columns])
            runs.append(float(then.runs))
            spreads.append([_nan(item.spread.get(c)) for c in columns])
            draws.append(float(item.draws))
        else:
            unmeasured += 1
    width = len(columns)

    def rows(values: list[list[float]]) -> np.ndarray:
        return np.asarray(values, dtype=float).reshape(-1, width)

    return Pairs(rows(current), rows(baseline), rows(variances), np.asarray(runs, dtype=float), rows(spreads),
                 np.asarray(draws, dtype=float), len(current_items), unpaired, unmeasured)


def paired_values(result: SuiteResult, snapshot: BaselineSnapshot, key: Key,
                  column: str) -> tuple[list[float], list[float]]:
    """(current, baseline) values of `column` for the items of group `key` present in both runs."""
    pairs = paired_rows(result, snapshot, key, (column,))
    return [float(x) for x in pairs.current[:, 0]], [float(x) for x in pairs.baseline[:, 0]]


def _nan(value: Any) -> float:
    number = _finite(value)
    return math.nan if number is None else number


def _finite(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)  # a rate is the mean of booleans
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None
