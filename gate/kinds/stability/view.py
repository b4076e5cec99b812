"""The stability suite's report view: the seed's model × task table (best model per task marked),
per-variation similarity (which prompt change moves the answers most), the least stable questions."""

from __future__ import annotations

from typing import Any

from gate.judge import SuiteVerdict
from gate.kinds.stability.scorer import StabilityDetails, StabilityItemDetails
from gate.report.escape import inert
from gate.report.formatting import counted, icon, number
from gate.results import Item, details_as

TEXT_LIMIT = 300


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result = suite.result
    settings = details_as(result.details, StabilityDetails).settings
    models, tasks = list(settings.models), list(settings.tasks)
    cells = {tuple(v for _, v in g.key): g for g in result.groups_at("group")}
    per_model = {dict(g.key)["model"]: g for g in result.groups_at("model")}
    best = {}
    for task in tasks:
        scored = [(cells[(m, task)].metrics.get("stability_coefficient"), m) for m in models if (m, task) in cells]
        scored = [(value, m) for value, m in scored if value is not None]
        if scored:
            best[task] = max(scored)[1]
    rows = []
    for model in models:
        row = []
        for task in tasks:
            group = cells.get((model, task))
            row.append(_cell(suite, group, "group", best.get(task) == model) if group else {"text": "—"})
        total = per_model.get(model)
        rows.append({"model": inert(model, limit=60), "cells": row,
                     "total": _cell(suite, total, "model", False) if total else {"text": "—"}})
    variations = list(dict.fromkeys(dict(g.key)["variation"] for g in result.groups_at("variation")))
    by_variation = {(dict(g.key)["model"], dict(g.key)["variation"]): g.metrics.get("mean_similarity")
                    for g in result.groups_at("variation")}
    lowest = {m: min(((by_variation[(m, v)], v) for v in variations if by_variation.get((m, v)) is not None),
                     default=(None, None))[1] for m in models}
    worst = sorted((i for i in result.items if i.values.get("stability_coefficient") is not None),
                   key=lambda i: i.values["stability_coefficient"])[:worst_items]
    return {
        "settings": " · ".join([
            f"embedding <code>{inert(settings.embedding)}</code>",
            f"P: {settings.answer_probability if settings.probabilities else 'none given (P = 1)'}",
            f"{counted(settings.questions, 'question')}, {counted(settings.responses, 'response')}",
            f"{counted(len(models), 'model')} × {counted(len(tasks), 'task')}",
        ]),
        "tasks": [inert(t, limit=40) for t in tasks],
        "rows": rows,
        "models": [inert(m, limit=40) for m in models],
        "variations": [{"name": inert(v, limit=60),
                        "cells": [number(by_variation.get((m, v))) + (" ⬇" if lowest.get(m) == v else "")
                                  for m in models]} for v in variations],
        "worst": [_question(item) for item in worst],
    }


def _cell(suite: SuiteVerdict, group, level: str, best: bool) -> dict[str, str]:
    m = group.metrics
    verdict = suite.group_shown(level, group.key)
    value = f"{number(m.get('stability_coefficient'))} ± {number(m.get('stability_coefficient_std'))}"
    text = (f"{icon(verdict) + ' ' if verdict else ''}{f'**{value}**' if best else value}"
            f" (n={number(m.get('questions'), '.0f')}){' 🏆' if best else ''}")
    return {"text": text}


def _question(item: Item) -> dict[str, Any]:
    key, values = dict(item.key), item.values
    return {
        "label": inert(f"{key['model']} · {key['task']} · question {key['question_id']}", limit=200, newline=" "),
        "coefficient": number(values.get("stability_coefficient")),
        "similarity": number(values.get("mean_similarity")),
        "probability": number(values.get("answer_probability")),
        "source": inert(str(item.source)) if item.source else "",
        "responses": [{"variant": inert(r.variant, limit=40), "variation": inert(r.variation or "", limit=40),
                       "similarity": number(r.similarity), "response": inert(r.response, limit=TEXT_LIMIT)}
                      for r in details_as(item.details, StabilityItemDetails).responses],
    }
