"""Repeated samples per item: several generations per prompt, so one run can measure its own noise.

Records may carry a `sample` index (the record field of `field`); a kind's scorer then returns one item per
generation, its key ending in ("sample", s). `collapse` turns them into one item per prompt, after the scorer
and before anything reads the result:

- each numeric value is the mean over the item's generations (a boolean's mean is its rate); `draws` counts them
  and `spread` keeps their sample variance (ddof 1) — the item's own run-to-run noise, which the change test uses
  (`gate.stats.change`: var(current mean − baseline mean) = s²·(1/draws + 1/runs)); `draw_values` keeps the
  draws' own values, in order, for per-draw criteria (`gate.judge.items`: flaky items; `gate.judge.passrates`: k-of-n);
- every group metric (and suite metric) the items determine is recomputed from the merged items through the kind's
  item statistics, so "metrics use the per-item mean": an item with five generations weighs as much as one with
  two. Metrics the items do not determine (counts, p-values, comparisons) stay as the scorer computed them;
- items.csv shows the merged items with a `draws` column instead of `sample`.
A result without samples is returned unchanged. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from gate.results import GroupIndex, Item, Key, SuiteResult
from gate.stats import ItemStatistic

SAMPLE = "sample"


def collapse(result: SuiteResult, statistic: Callable[[str], ItemStatistic | None]) -> SuiteResult:
    """`result` with one item per prompt (see the module docstring); unchanged when no item has a sample."""
    if not any(k == SAMPLE for item in result.items for k, _ in item.key):
        return result
    by_prompt: dict[Key, list[Item]] = {}
    for item in result.items:
        by_prompt.setdefault(tuple((k, v) for k, v in item.key if k != SAMPLE), []).append(item)
    items = tuple(_merged(key, draws) for key, draws in by_prompt.items())
    members = GroupIndex(items)
    groups = tuple(replace(g, metrics=_recomputed(g.metrics, members.of(g.key), statistic), n=len(members.of(g.key)))
                   for g in result.groups)
    columns = tuple(c for c in result.item_columns if c != SAMPLE) + ("draws",)
    many = sum(1 for item in items if item.draws > 1)
    note = (f"{len(result.items):,} generations of {len(items):,} prompts ({many:,} with repeated samples): "
            "metrics use each prompt's mean, and the spread between its samples is its noise")
    return replace(result, items=items, groups=groups, item_columns=columns,
                   metrics=_recomputed(result.metrics, items, statistic), notes=(*result.notes, note))


def _merged(key: Key, draws: Sequence[Item]) -> Item:
    values: dict[str, Any] = {}
    spread: dict[str, float] = {}
    per_draw: dict[str, tuple[float, ...]] = {}
    for column in dict.fromkeys(c for item in draws for c in item.values):
        found = [item.values.get(column) for item in draws]
        numbers = [float(v) for v in found if v is not None and _number(v)]
        if numbers and len(numbers) == sum(1 for v in found if v is not None):
            values[column] = math.fsum(numbers) / len(numbers)
            if len(numbers) >= 2:
                spread[column] = float(np.var(numbers, ddof=1))
                per_draw[column] = tuple(numbers)
        else:  # text and other non-numbers: the first generation's (what the report shows beside the means)
            values[column] = next((v for v in found if v is not None), None)
    values["draws"] = len(draws)
    first = draws[0]
    return Item(key, values, first.source, first.details, draws=len(draws), spread=spread, draw_values=per_draw)


def _number(value: Any) -> bool:
    return isinstance(value, bool) or (isinstance(value, (int, float)) and math.isfinite(value))


def _recomputed(metrics: Mapping[str, float | None], items: Sequence[Item],
                statistic: Callable[[str], ItemStatistic | None]) -> dict[str, float | None]:
    out = dict(metrics)
    for metric, value in metrics.items():
        stat = statistic(metric)
        if stat is None or value is None or not items:
            continue
        rows = np.array([[_nan(item.values.get(c)) for c in stat.columns] for item in items], dtype=float)
        if len(stat.columns) == 1:
            rows = rows[~np.isnan(rows[:, 0])]
        if len(rows):
            recomputed = stat(rows)
            out[metric] = recomputed if math.isfinite(recomputed) else value
    return out


def _nan(value: Any) -> float:
    return float(value) if _number(value) else math.nan


__all__ = ["SAMPLE", "collapse"]
