"""Item-level verdict evidence: flaky items (issue 35, item 2). Pure.

With several samples per item (records with a `sample` index, merged by `gate.kinds.samples.collapse`, which keeps
each value's draws in `Item.draw_values`), an item is **flaky** for a threshold check when some of its draws meet
the check's bound and some do not: its own noise straddles the criterion, so whether it helps or hurts the group
is chance before it is quality. A criterion applies per item where the checked metric is the mean of one item
value (a linear `ItemStatistic`, e.g. `final_score_mean` of `final_score`): the same bound is read against each draw
of that value (`judge_value`, the threshold checks' own rule and tolerance); and the suite's own per-item criterion
(gate.yml's `items:`, issue 35 item 1) applies as it is. Listed worst first: the closest to
half the draws meeting, then the widest range.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from gate import stats
from gate.config import CheckConfig
from gate.config.items import KOFN_COLUMNS, ItemsConfig
from gate.judge.thresholds import judge_value
from gate.judge.types import CheckVerdict, FlakyItem, Op
from gate.results import SuiteResult


def item_criteria(checks: Mapping[str, CheckConfig | Sequence[CheckConfig]],
                  statistic_of: Callable[[str], stats.ItemStatistic | None],
                  items: ItemsConfig | None = None) -> list[tuple[str, str, Op, float]]:
    """(metric, item column, op, bound) of the suite's `items:` criterion (metric "items.criterion") and of every
    `min`/`max` check on a metric that is the mean of one item value, each (column, op, bound) once."""
    found: dict[tuple[str, str, Op, float], None] = {}
    if items is not None:
        c = items.criterion
        op, bound = (Op.MIN, c.min) if c.min is not None else (Op.MAX, c.max)
        found[("items.criterion", c.metric, op, float(bound))] = None  # type: ignore[arg-type]
    for metric, given in checks.items():
        stat = statistic_of(metric)
        if stat is None or not stat.linear or len(stat.columns) != 1 or stat.columns[0] in KOFN_COLUMNS:
            continue  # a k-of-n metric's items are read through the criterion itself, above
        for check in ((given,) if isinstance(given, CheckConfig) else given):
            for op, bound in ((Op.MIN, check.min), (Op.MAX, check.max)):
                if bound is not None and not any(f[1:] == (stat.columns[0], op, float(bound)) for f in found):
                    found[(metric, stat.columns[0], op, float(bound))] = None
    return list(found)


def flaky_items(result: SuiteResult, criteria: Iterable[tuple[str, str, Op, float]]) -> tuple[FlakyItem, ...]:
    """Every (item, criterion) whose draws straddle the bound, worst first; () without repeated samples."""
    criteria = list(criteria)
    out: list[FlakyItem] = []
    for item in result.items:
        for metric, column, op, bound in criteria:
            draws = item.draw_values.get(column, ())
            if len(draws) < 2:
                continue
            met = sum(1 for v in draws if judge_value(v, op, bound, None) is CheckVerdict.PASS)
            if 0 < met < len(draws):
                mean = math.fsum(draws) / len(draws)
                sd = math.sqrt(math.fsum((v - mean) ** 2 for v in draws) / (len(draws) - 1))
                out.append(FlakyItem(item.key, metric, column, op, bound, met, len(draws), min(draws), max(draws), sd))
    out.sort(key=lambda f: (abs(f.share - 0.5), -(f.high - f.low)))
    return tuple(out)
