"""Report views: each kind's own (its `Kind.view`), the tables a reader of that kind expects, escaped and
formatted; a kind without a view of its own gets the generic one here (a table per group level).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import gate.report.per_model as per_model
from gate.judge import SuiteVerdict, Verdict
from gate.kinds import get_kind
from gate.report.escape import inert
from gate.report.formatting import icon, number

# (id of the suite, worst_items) -> (the suite, weakly, and its view). One run renders the same suite's tables up to
# nine times (report.md, then each level that the summary and the comment try while fitting GitHub's limit), and at
# 10,000 groups each build is ~0.7 s; a view is never mutated (`cut_groups` copies), so one build serves them all.
_BUILT: dict[tuple[int, int], tuple[weakref.ref, dict[str, Any]]] = {}


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    """The kind's view of `suite` (built once per suite object and `worst_items`: the verdict is frozen)."""
    key = (id(suite), worst_items)
    found = _BUILT.get(key)
    if found is not None and found[0]() is suite:
        return found[1]
    view = (get_kind(suite.result.kind).view or _generic)(suite, worst_items)
    _BUILT[key] = (weakref.ref(suite, _forget(key)), view)  # gone with the suite
    return view


def _forget(key: tuple[int, int]) -> Callable[[object], None]:
    return lambda _: _BUILT.pop(key, None) and None


def _generic(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    scorer = get_kind(suite.result.kind)
    tables = []
    for level in ("group", *scorer.levels):
        groups = suite.result.groups_at(level)
        if not groups:
            continue
        names = list(scorer.metrics)
        tables.append({
            "title": "per " + (" × ".join(scorer.group_fields) if level == "group" else level),
            "columns": [inert(k) for k, _ in groups[0].key] + names + ["verdict"],
            "rows": [[inert(v, limit=80) for _, v in g.key]
                     + [number(g.metrics.get(m), scorer.metrics[m].fmt) for m in names]
                     + [icon(suite.group_shown(level, g.key))] for g in groups],
            "ranks": [per_model.rank(suite.group_verdict(level, g.key)) for g in groups] if level == "group" else None,
            "more": None,
        })
    return {"tables": tables}


def group_rows(view: dict[str, Any]) -> int:
    """The most rows one of the view's per-group tables has: what `cut_groups` may cut."""
    sizes = [len(view["rows"])] if view.get("group_rows") else []
    sizes += [len(t["rows"]) for t in view.get("tables", ()) if t.get("ranks") is not None]
    return max(sizes, default=0)


def cut_groups(view: dict[str, Any], keep: int | None) -> dict[str, Any]:
    """The view with each per-group table cut to its `keep` worst rows, failing groups first (None: all), and a
    line under it naming exactly what was cut. A kind's view marks its table of groups with `group_rows` (the
    rows' noun; each row has a `rank`), the generic view with `ranks`; tables whose rows are the models stay."""
    if keep is None:
        return view
    view = dict(view)
    if view.get("group_rows"):
        view["rows"], view["rows_more"] = _cut(view["rows"], [r["rank"] for r in view["rows"]], keep,
                                               view["group_rows"])
    if "tables" in view:
        view["tables"] = [t if t.get("ranks") is None else
                          {**t, **dict(zip(("rows", "more"), _cut(t["rows"], t["ranks"], keep, "groups"),
                                           strict=True))} for t in view["tables"]]
    return view


def _cut(rows: list, ranks: list[int], keep: int, noun: str) -> tuple[list, str | None]:
    if keep >= len(rows):
        return rows, None
    order = sorted(range(len(rows)), key=lambda i: -ranks[i])  # stable: failing first, otherwise as they were
    left = [ranks[i] for i in order[keep:]]
    failing = sum(1 for r in left if r == per_model.rank(Verdict.FAIL))
    failed = f"{failing:,} failing" if failing else "none failing"
    return [rows[i] for i in order[:keep]], f"… and {len(left):,} more {noun} ({failed}): all in report.json"
