"""k-of-n per item (issue 35, item 1): each item's draws against the suite's `items:` criterion. Pure; the
pipeline applies it to each measured suite before snapshots and checks read it (`gate.steps.suites.score`).

After `gate.kinds.samples.collapse` (one item per prompt, each value's draws in `Item.draw_values`), every item
gains, from its n draws of the criterion's value of which c meet it (`gate.judge.judge_value`, the threshold checks'
own rule and tolerance):

- `passed` c, `pass_rate` c/n, `pass_rate_low` its Wilson lower bound (95 %), `pass_at_k` and `pass_hat_k`
  (`gate.stats.passrate`, at the criterion's `k`, default n), `pass_rate_met` 1 when `pass_rate_low` ≥
  `pass_rate_min` (else 0; absent without `pass_rate_min`);
- `pass_rate`'s draws (1 pass, 0 not) and their variance (ddof 1: c(n−c)/(n(n−1))) as the item's own noise, so a
  change test of `pass_rate_mean` against a blessed snapshot reads it as it reads any sampled value;

and every group and the suite gain the means of those values over their items (`gate.config.items.KOFN_METRICS`).
An item whose value was not measured (in any draw) has no k-of-n values; a group with none measured gets None
with the reason. `problems` names what makes the criterion impossible for these records (its value not an item
value of the suite, `k` above an item's draws), for a located error before anything is judged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from gate.config.criterion import CriterionProblem, kinds_own, unknown_value
from gate.config.items import KOFN_COLUMNS, KOFN_METRICS, ItemsConfig
from gate.errors import describe
from gate.judge.thresholds import judge_value
from gate.judge.types import CheckVerdict, Op
from gate.results import GroupIndex, Item, SuiteResult, Unmeasured, key_label
from gate.stats import passrate


def draws_of(item: Item, column: str) -> tuple[float, ...] | None:
    """The item's measured draws of `column`: its kept draws (a draw that measured nothing is not one), or its one
    value; None where not measured."""
    if column in item.draw_values:
        return item.draw_values[column]
    value = item.values.get(column)
    if isinstance(value, bool) or (isinstance(value, (int, float)) and math.isfinite(value)):
        return (float(value),)
    return None


def meets(value: float, items: ItemsConfig) -> bool:
    c = items.criterion
    op, bound = (Op.MIN, c.min) if c.min is not None else (Op.MAX, c.max)
    return judge_value(value, op, float(bound), None) is CheckVerdict.PASS  # type: ignore[arg-type]


def problems(result: SuiteResult, items: ItemsConfig) -> list[CriterionProblem]:
    """Why `items:` cannot be read on these records (every reason at once); [] when it can."""
    column = items.criterion.metric
    numeric = [c for c in result.value_names() if any(draws_of(i, c) is not None for i in result.items)]
    found: list[CriterionProblem] = []
    if column not in result.value_names():
        found.append(unknown_value(result.kind, column, numeric))
    elif column not in numeric:
        found.append(CriterionProblem("criterion.metric", "a numeric item value measured on at least one item",
                                      f"{column!r}, which no item measured as a number",
                                      "name a numeric item value (a score, a similarity, a rate)"))
    taken = [c for c in KOFN_COLUMNS if c in result.value_names()]
    if taken:
        found.append(kinds_own(result.kind, taken))
    if items.k is not None and result.items:
        fewest = min(result.items, key=lambda i: i.draws)
        if items.k > fewest.draws:
            short = sum(1 for i in result.items if i.draws < items.k)
            found.append(CriterionProblem(
                "k", f"k at most the draws of every item (the fewest: {fewest.draws}, "
                f"{describe(key_label(fewest.key))})",
                f"k: {items.k}, more than the draws of {short:,} of {len(result.items):,} items",
                f"set `k: {fewest.draws}` or less, or generate at least {items.k} samples per item "
                "(records with a `sample` index)"))
    return found


def with_pass_rates(result: SuiteResult, items: ItemsConfig) -> SuiteResult:
    """`result` with each item's k-of-n values and each group's and the suite's means of them."""
    merged = tuple(_item(item, items) for item in result.items)
    columns = tuple(c for c in KOFN_COLUMNS if c != "pass_rate_met" or items.pass_rate_min is not None)
    metrics = tuple(m for m, c in KOFN_METRICS.items() if c in columns)
    members = GroupIndex(merged)
    unmeasured: list[Unmeasured] = []
    groups = []
    for g in result.groups:
        values = _means(members.of(g.key), metrics)
        unmeasured += [Unmeasured(g.key, m, _why(items)) for m in metrics if values[m] is None]
        groups.append(replace(g, metrics={**g.metrics, **values}))
    suite = _means(merged, metrics)
    unmeasured += [Unmeasured((), m, _why(items)) for m in metrics if suite[m] is None]
    note = (f"k-of-n per item: each draw passes when {items.label}; pass@k and pass^k at "
            f"{'k = ' + str(items.k) if items.k else 'k = each item’s draws'}")
    return replace(result, items=merged, groups=tuple(groups), metrics={**result.metrics, **suite},
                   item_columns=(*result.item_columns, *(c for c in columns if c not in result.item_columns)),
                   unmeasured=(*result.unmeasured, *unmeasured), notes=(*result.notes, note), criterion=items.label)


def _why(items: ItemsConfig) -> str:
    return f"no item of the group measured {items.criterion.metric}, the value the k-of-n criterion reads"


def _item(item: Item, items: ItemsConfig) -> Item:
    draws = draws_of(item, items.criterion.metric)
    if not draws:
        return item
    hits = [meets(v, items) for v in draws]
    rate = passrate.pass_rate(hits, items.k)
    values: dict[str, Any] = {**item.values, "passed": rate.passed, "pass_rate": rate.rate,
                              "pass_rate_low": rate.wilson_low, "pass_at_k": rate.pass_at_k,
                              "pass_hat_k": rate.pass_hat_k}
    if items.pass_rate_min is not None:
        values["pass_rate_met"] = 1.0 if rate.wilson_low >= items.pass_rate_min else 0.0
    if rate.draws < 2:
        return replace(item, values=values)
    c, n = rate.passed, rate.draws
    return replace(item, values=values, spread={**item.spread, "pass_rate": c * (n - c) / (n * (n - 1))},
                   draw_values={**item.draw_values, "pass_rate": tuple(1.0 if h else 0.0 for h in hits)})


def _means(members: Sequence[Item], metrics: Sequence[str]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for metric in metrics:
        found = [float(i.values[KOFN_METRICS[metric]]) for i in members if KOFN_METRICS[metric] in i.values]
        found = [v for v in found if math.isfinite(v)]
        out[metric] = math.fsum(found) / len(found) if found else None
    return out
