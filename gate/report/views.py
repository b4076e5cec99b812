"""Report views: each kind's own (`gate.report.kinds`), the tables a reader of that kind expects, escaped and
formatted; a kind without a view of its own gets the generic one here (a table per group level).
"""

from __future__ import annotations

from typing import Any

from gate.judge import SuiteVerdict
from gate.report.escape import inert
from gate.report.formatting import icon, number
from gate.report.kinds import VIEWS
from gate.scorers import get_scorer


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    return VIEWS.get(suite.result.kind, _generic)(suite, worst_items)


def _generic(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    scorer = get_scorer(suite.result.kind)
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
        })
    return {"tables": tables}
