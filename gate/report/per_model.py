"""Each suite's per-model verdicts, in one shape for every kind: what a shortened report keeps to the end.

A 9,000-item gate once became a comment that named no model (issue 21, item 4): the culprit was in the
per-group tables, and those were the first to go. This table has one row per model (or per system, where a
kind groups by system): its verdict — the worst of the checks on the model and on its groups
—, its key metrics (those the suite's checks look at) with the change against the blessed baseline where there
is one (DESIGN.md §8: model, verdict, key metric deltas), and how many of its groups failed. Rows come
failing first, so a cut table ("… and N more models") still names every culprit that fits.
"""

from __future__ import annotations

from typing import Any

from gate.judge import SuiteVerdict, Verdict, worst
from gate.kinds import get_kind
from gate.report.escape import inert
from gate.report.formatting import WORDS, decisive, icon
from gate.results import GroupResult

KEY_METRICS = 3  # metric columns at most
SEVERITY = {None: 0, Verdict.SKIPPED: 0, Verdict.PASS: 0, Verdict.WARN: 1, Verdict.INCONCLUSIVE: 2, Verdict.FAIL: 3}
_NAMES = ("model", "system")  # the key field that names a model, by kind


def rank(verdict: Verdict | None) -> int:
    """How bad a row is, for "failing first": fail 3, inconclusive 2, warn 1, otherwise 0."""
    return SEVERITY[verdict]


def table(suite: SuiteVerdict) -> dict[str, Any] | None:
    """The suite's per-model table, all rows, failing models first; None for a kind without models."""
    scorer = get_kind(suite.result.kind)
    field = next((f for f in _NAMES if f in scorer.group_fields), None)
    if field is None:
        return None
    own = "group" if scorer.group_fields == (field,) else ("model" if "model" in scorer.levels else None)
    primary = suite.result.groups_at("group")
    by_model: dict[str, list[GroupResult]] = {}
    for group in primary:
        by_model.setdefault(dict(group.key)[field], []).append(group)
    totals = {dict(g.key)[field]: g for g in suite.result.groups_at(own)} if own else {}
    metrics = _key_metrics(suite, own)
    rows: list[dict[str, Any]] = []
    for model in dict.fromkeys([*by_model, *totals]):
        groups = [] if own == "group" else by_model.get(model, [])
        verdicts = [suite.group_verdict("group", g.key) for g in groups]
        total = totals.get(model)
        model_verdict = suite.group_verdict(own, total.key) if own and total is not None else None
        shown = [v for v in (*verdicts, model_verdict) if v is not None]
        verdict = worst(shown) if shown else None
        cells = [inert(model, limit=60), f"{icon(verdict)} {WORDS[verdict]}" if verdict else "·"]
        cells += [_value(suite, own, total, m) for m in metrics]
        if own != "group":
            failed = sum(1 for v in verdicts if v is Verdict.FAIL)
            cells.append(f"{failed:,}/{len(groups):,}")
        rows.append({"cells": cells, "rank": rank(verdict)})
    rows.sort(key=lambda r: -r["rank"])  # stable: failing models first, otherwise in the suite's order
    columns = [field.capitalize(), "Verdict", *(f"`{m}`" for m in metrics)]
    if own != "group":
        columns.append(f"Failed per {' × '.join(f for f in scorer.group_fields if f != field)}")
    return {"columns": columns, "rows": rows, "more": None}


def cut(view: dict[str, Any] | None, keep: int | None) -> dict[str, Any] | None:
    """The table with its first `keep` rows (None: all) and the line naming exactly what was cut."""
    if view is None or keep is None or keep >= len(view["rows"]):
        return view
    left = view["rows"][keep:]
    failing = sum(1 for r in left if r["rank"] == SEVERITY[Verdict.FAIL])
    more = f"… and {len(left):,} more model{'s' if len(left) != 1 else ''}"
    more += f" ({failing:,} failing)" if failing else " (none failing)"
    return {**view, "rows": view["rows"][:keep], "more": more + ": all in report.json"}


def _key_metrics(suite: SuiteVerdict, level: str | None) -> list[str]:
    """The metrics the suite's checks look at (in their order), else the kind's first ones, present at `level`."""
    scorer = get_kind(suite.result.kind)
    present = {m for g in suite.result.groups_at(level) for m in g.metrics} if level else set()
    checked = [m for m in dict.fromkeys(c.metric for c in suite.checks) if m in scorer.metrics and m in present]
    return (checked or [m for m in scorer.metrics if m in present])[:KEY_METRICS]


def _value(suite: SuiteVerdict, level: str | None, group: GroupResult | None, metric: str) -> str:
    """`0.842 (Δ −0.031)`: the value at the model's level, and its change against the blessed snapshot."""
    if group is None or level is None:
        return "n/a"
    fmt = get_kind(suite.result.kind).metrics[metric].fmt
    value = group.metrics.get(metric)
    bounds = [b for c in suite.checks_on(level, group.key) if c.metric == metric and c.change is None
              for b in (c.fail, c.warn)]
    text = decisive(value, bounds, fmt)  # a value beside a verdict shows the digits that decide it
    snapshot = suite.comparison.snapshot if suite.comparison is not None else None
    before = snapshot.group_value(level, group.key, metric) if snapshot is not None else None
    if value is not None and before is not None:
        text += f" (Δ {format(value - before, '+' + fmt).replace('-', '−')})"
    return text
