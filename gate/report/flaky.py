"""Flaky items in the report (issue 35, item 2): items whose samples straddle a check's bound
(`gate.judge.items`), so a reviewer sees which items are noise before reading a failure.

items.csv gains a `flaky` column when the suite has repeated samples ("final_score ≥ 5: 2/5 draws"), report.json a
per-suite `flaky` object (`count` and the worst `MAX_LISTED`), the comment the worst `SHOWN` under the suite with a
one-line explanation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.config.items import KOFN_COLUMNS, KOFN_METRICS
from gate.judge import FlakyItem, SuiteVerdict
from gate.report.escape import inert
from gate.results import Key, SuiteResult, key_dict, key_label

MAX_LISTED = 20  # report.json
SHOWN = 5  # the comment
COLUMN = "flaky"
EXPLANATION = ("their samples straddle a check's bound (or the suite's `items:` criterion): some draws meet it, "
               "some do not, so where they land is "
               "noise before it is a regression")


def sampled(result: SuiteResult) -> bool:
    return any(item.draws > 1 for item in result.items)


def csv_columns(suite: SuiteVerdict) -> tuple[str, ...]:
    """items.csv's columns: the result's, with `flaky` after the kind's own when the suite has repeated samples
    (and before the k-of-n values a suite's `items:` appends, which came later)."""
    columns = suite.result.item_columns
    if not sampled(suite.result) or COLUMN in columns:
        return columns
    head, tail = _split(columns)
    return (*head, COLUMN, *tail)


def _split(columns: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the kind's columns, the k-of-n columns `gate.judge.passrates` appended after them)."""
    for size in range(len(KOFN_COLUMNS), 0, -1):
        if size <= len(columns) and columns[-size:] == KOFN_COLUMNS[:size] and size >= 2:
            return columns[:-size], columns[-size:]
    return columns, ()


def csv_row(values: Mapping[str, Any], columns: tuple[str, ...], cell: str | None) -> list[object]:
    """One items.csv row in `csv_columns`' order (`cell`: the item's `flaky` cell, None without that column)."""
    head, tail = _split(columns)
    middle: list[object] = [] if cell is None else [cell]
    return [*(values.get(c) for c in head), *middle, *(values.get(c) for c in tail)]


def csv_cells(suite: SuiteVerdict) -> dict[Key, str]:
    """Each flaky item's `flaky` cell: every criterion it straddles with its draws meeting, "; "-joined."""
    cells: dict[Key, list[str]] = {}
    for f in suite.flaky:
        cells.setdefault(f.key, []).append(f"{f.criterion}: {f.met}/{f.draws} draws")
    return {key: "; ".join(parts) for key, parts in cells.items()}


def _json(f: FlakyItem) -> dict[str, Any]:
    return {"key": key_dict(f.key), "metric": f.metric, "column": f.column, "op": f.op.value, "bound": f.bound,
            "met": f.met, "draws": f.draws, "min": f.low, "max": f.high, "sd": f.sd}


def to_json(suite: SuiteVerdict) -> dict[str, Any] | None:
    """report.json's per-suite `flaky`: null without repeated samples, else the count and the worst few."""
    if not sampled(suite.result):
        return None
    return {"count": len(suite.flaky), "items": [_json(f) for f in suite.flaky[:MAX_LISTED]]}


def view(suite: SuiteVerdict) -> dict[str, Any] | None:
    """The comment's table of the worst `SHOWN` flaky items; None when there are none."""
    if not suite.flaky:
        return None
    rows = [{"item": inert(key_label(f.key), limit=200), "criterion": inert(f.criterion, limit=200),
             "met": f"{f.met} of {f.draws}", "range": f"{f.low:.4g} – {f.high:.4g}", "sd": f"{f.sd:.3g}"}
            for f in suite.flaky[:SHOWN]]
    more = len(suite.flaky) - len(rows)
    return {"count": len(suite.flaky), "explanation": EXPLANATION, "rows": rows,
            "more": f"… and {more:,} more in report.json and items.csv (`flaky` column)" if more else None}


PASS_RATES_LISTED = 20  # report.json: the items with the lowest Wilson bounds


def pass_rates_json(suite: SuiteVerdict) -> dict[str, Any] | None:
    """report.json's per-suite `pass_rates` (gate.yml's `items:`): the criterion, the suite's k-of-n metrics and the
    items with the lowest Wilson lower bounds, each with its k-of-n values; null without `items:`."""
    result = suite.result
    if result.criterion is None:
        return None
    rated = sorted((i for i in result.items if "pass_rate" in i.values),
                   key=lambda i: (i.values["pass_rate_low"], i.values["pass_rate"]))
    metrics = {m: result.metrics.get(m) for m in KOFN_METRICS if m in result.metrics}
    return {"criterion": result.criterion, "items": len(rated), "metrics": metrics,
            "lowest": [{"key": key_dict(i.key), "draws": i.draws,
                        **{c: i.values[c] for c in KOFN_COLUMNS if c in i.values}}
                       for i in rated[:PASS_RATES_LISTED]]}
