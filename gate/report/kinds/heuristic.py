"""The heuristic suite's report view: model × category scores and ranks, per-metric means, the
missing-data analysis, and why the lowest responses scored as they did (the indicators that fired)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.judge import SuiteVerdict
from gate.report.escape import inert
from gate.report.formatting import icon, number


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result, settings = suite.result, suite.result.settings
    models, categories = list(settings.get("models", [])), list(settings.get("categories", []))
    cells = {tuple(v for _, v in g.key): g for g in result.groups_at("group")}
    ranks = {}
    for category in categories:
        order = sorted((m for m in models if cells.get((m, category)) and
                        cells[(m, category)].metrics.get("final_score_mean") is not None),
                       key=lambda m: -cells[(m, category)].metrics["final_score_mean"])
        ranks.update({(m, category): i + 1 for i, m in enumerate(order)})
    rows = [{"model": inert(m, limit=60), "cells": [_cell(suite, cells.get((m, c)), ranks.get((m, c)))
                                                     for c in categories]} for m in models]
    metric_rows = []
    for category in categories:
        names = list(settings.get("weights", {}).get(category, {}))
        metric_rows.append({
            "category": inert(category), "metrics": [inert(n) for n in names],
            "weights": [f"{settings['weights'][category][n]:.0%}" for n in names],
            "rows": [{"model": inert(m, limit=60),
                      "scores": [number(cells[(m, category)].metrics.get(f"{n}_mean"), ".2f") for n in names]}
                     for m in models if (m, category) in cells]})
    lowest = sorted(result.items, key=lambda i: i.values.get("final_score") or 0.0)[:worst_items]
    return {
        "settings": f"rubric <code>{inert(settings.get('rubric'))}</code> · {len(models)} models × "
                    f"{len(categories)} categories · expected prompts: "
                    + ", ".join(f"{inert(c)} {n}" for c, n in settings.get("expected", {}).items()),
        "categories": [inert(c) for c in categories],
        "rows": rows,
        "metric_tables": metric_rows,
        "missing": _missing(result.inputs),
        "missing_total": _missing_total(result.inputs),
        "empty": [inert(f"{x['model']} · {x['category']} · {x['prompt_id']}", newline=" ")
                  for x in result.inputs.get("empty", [])],
        "lowest": [_explain(item) for item in lowest],
    }


def _missing(inputs: Mapping[str, Any]) -> list[str]:
    """The absent responses by prompt id where `expected` lists ids; by (model, category) count where it gives
    only a count (which prompts are absent cannot be known then)."""
    out = [inert(f"{x['model']} · {x['category']} · {x['prompt_id']}", newline=" ")
           for x in inputs.get("missing", [])]
    return out + [inert(f"{x['model']} · {x['category']}: {x['missing']} of {x['expected']}", newline=" ")
                  + " (prompt ids unknown: `expected` gives a count)"
                  for x in inputs.get("missing_slots", []) if x.get("prompt_ids") is None]


def _missing_total(inputs: Mapping[str, Any]) -> int:
    slots = inputs.get("missing_slots")
    return len(inputs.get("missing", [])) if slots is None else sum(x["missing"] for x in slots)


def _cell(suite: SuiteVerdict, group, rank: int | None) -> str:
    if group is None:
        return "—"
    m = group.metrics
    verdict = suite.group_verdict("group", group.key)
    rank_text = f" &#35;{rank}" if rank else ""  # a bare #1 would link issue 1 on GitHub
    return (f"{icon(verdict) + ' ' if verdict else ''}{number(m.get('final_score_mean'), '.2f')} ± "
            f"{number(m.get('final_score_std'), '.2f')} (n={group.n}){rank_text}")


def _explain(item) -> dict[str, Any]:
    key, values, details = dict(item.key), item.values, item.details
    fired: dict[str, list[str]] = {}
    for metric, label, points in details.get("fired", []):
        fired.setdefault(metric, []).append(f"{inert(label, newline=' ')} ({points:+g})")
    return {
        "label": inert(f"{key['model']} · {key['category']} · {key['prompt_id']}", limit=200, newline=" "),
        "score": number(values.get("final_score"), ".2f"),
        "source": inert(str(item.source)) if item.source else "",
        "metrics": [{"name": inert(name), "value": number(value, ".1f"),
                     "fired": ", ".join(fired.get(name, [])) or "none (base score)"}
                    for name, value in details.get("metrics", {}).items()],
        "response": inert(details.get("response"), limit=500) or "<i>(empty)</i>",
    }
