"""The heuristic suite's report view: model × category scores and ranks, per-metric means, the
missing-data analysis, and why the lowest responses scored as they did (the indicators that fired)."""

from __future__ import annotations

from typing import Any

from gate.judge import SuiteVerdict
from gate.kinds.heuristic.scorer import HeuristicDetails, HeuristicItemDetails
from gate.report.escape import inert
from gate.report.formatting import counted, icon, number
from gate.results import Item, details_as


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result = suite.result
    details = details_as(result.details, HeuristicDetails)
    settings = details.settings
    models, categories = list(settings.models), list(settings.categories)
    cells = {tuple(v for _, v in g.key): g for g in result.groups_at("group")}
    ranks = {}
    for category in categories:
        order = sorted((m for m in models if cells.get((m, category)) and
                        cells[(m, category)].metrics.get("final_score_mean") is not None),
                       key=lambda m: -(cells[(m, category)].metrics["final_score_mean"] or 0.0))
        ranks.update({(m, category): i + 1 for i, m in enumerate(order)})
    rows = [{"model": inert(m, limit=60), "cells": [_cell(suite, cells.get((m, c)), ranks.get((m, c)))
                                                     for c in categories]} for m in models]
    metric_rows = []
    for category in categories:
        names = list(settings.weights.get(category, {}))
        metric_rows.append({
            "category": inert(category), "metrics": [inert(n) for n in names],
            "weights": [f"{settings.weights[category][n]:.0%}" for n in names],
            "rows": [{"model": inert(m, limit=60),
                      "scores": [number(cells[(m, category)].metrics.get(f"{n}_mean"), ".2f") for n in names]}
                     for m in models if (m, category) in cells]})
    lowest = sorted(result.items, key=lambda i: i.values.get("final_score") or 0.0)[:worst_items]
    return {
        "settings": f"rubric <code>{inert(settings.rubric)}</code> · {counted(len(models), 'model')} × "
                    f"{counted(len(categories), 'category', 'categories')} · expected prompts: "
                    + ", ".join(f"{inert(c)} {n}" for c, n in settings.expected.items()),
        "categories": [inert(c) for c in categories],
        "rows": rows,
        "metric_tables": metric_rows,
        "missing": _missing(details),
        "missing_total": sum(x.missing for x in details.missing_slots),
        "empty": [inert(f"{x.model} · {x.category} · {x.prompt_id}", newline=" ") for x in details.empty],
        "lowest": [_explain(item) for item in lowest],
    }


def _missing(details: HeuristicDetails) -> list[str]:
    """The absent responses by prompt id where `expected` lists ids; by (model, category) count where it gives
    only a count (which prompts are absent cannot be known then)."""
    out = [inert(f"{x.model} · {x.category} · {x.prompt_id}", newline=" ") for x in details.missing]
    return out + [inert(f"{x.model} · {x.category}: {x.missing} of {x.expected}", newline=" ")
                  + " (prompt ids unknown: `expected` gives a count)"
                  for x in details.missing_slots if x.prompt_ids is None]


def _cell(suite: SuiteVerdict, group, rank: int | None) -> str:
    if group is None:
        return "—"
    m = group.metrics
    verdict = suite.group_shown("group", group.key)
    rank_text = f" &#35;{rank}" if rank else ""  # a bare #1 would link issue 1 on GitHub
    return (f"{icon(verdict) + ' ' if verdict else ''}{number(m.get('final_score_mean'), '.2f')} ± "
            f"{number(m.get('final_score_std'), '.2f')} (n={group.n}){rank_text}")


def _explain(item: Item) -> dict[str, Any]:
    key, values, details = dict(item.key), item.values, details_as(item.details, HeuristicItemDetails)
    fired: dict[str, list[str]] = {}
    for f in details.fired:
        fired.setdefault(f.metric, []).append(f"{inert(f.label, newline=' ')} ({f.points:+g})")
    unmet: dict[str, list[str]] = {}
    for u in details.unmet:  # why a rewarded shape did not hold: the schema's first violation
        unmet.setdefault(u.metric, []).append(f"{inert(u.label, newline=' ')}: {inert(u.why, limit=160, newline=' ')}")
    return {
        "label": inert(f"{key['model']} · {key['category']} · {key['prompt_id']}", limit=200, newline=" "),
        "score": number(values.get("final_score"), ".2f"),
        "source": inert(str(item.source)) if item.source else "",
        "metrics": [{"name": inert(name), "value": number(value, ".1f"),
                     "fired": "; ".join([", ".join(fired.get(name, [])) or "none (base score)",
                                         *(f"not met: {u}" for u in unmet.get(name, []))])}
                    for name, value in details.metrics.items()],
        "response": inert(details.response, limit=500) or "<i>(empty)</i>",
    }
