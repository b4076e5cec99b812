"""Per-kind report views: the tables a reader of that kind expects, escaped and formatted.

A kind without a view of its own gets the generic one (a table per group level).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gate.judge import SuiteVerdict, Verdict
from gate.report import drift_export, heuristic_view, rag_view, stability_view, stereotype_view
from gate.report.escape import inert
from gate.report.formatting import icon, number
from gate.results import GroupResult, Item, key_label
from gate.scorers import get_scorer

TEXT_LIMIT = 600  # characters of one feedback description shown side by side


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    return _VIEWS.get(suite.result.kind, _generic)(suite, worst_items)


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
                     + [icon(suite.group_verdict(level, g.key))] for g in groups],
        })
    return {"tables": tables}


# ---------------------------------------------------------------- drift


def _drift(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result = suite.result
    models = list(result.settings.get("models", []))
    facts = result.inputs.get("exercises", {})
    by_key = {g.key: g for g in result.groups}
    limits = drift_export.thresholds(suite)
    rows = []
    for exercise_id, info in facts.items():
        cells = [_cell(suite, by_key.get((("exercise", exercise_id), ("model", m))), "group") for m in models]
        title = info.get("title") or ""
        rows.append({"label": inert(f"{exercise_id} · {title}" if title else exercise_id, limit=70), "cells": cells})
    per_model = [_model_row(suite, by_key.get((("model", m),)), m) for m in models]
    totals = [{**_cell(suite, by_key.get((("model", m),)), "model"), "icon": row["icon"]}
              for m, row in zip(models, per_model, strict=True)]
    passed, total, seed_line = drift_export.seed_summary(suite)
    return {
        "models": [inert(m, limit=60) for m in models],
        "rows": rows,
        "totals": totals,
        "per_model": per_model,
        "thresholds": limits,
        "seed_line": seed_line,
        "passed": passed,
        "total": total,
        "settings": _drift_settings(result.settings),
        "worst": [_worst(suite, item) for item in _worst_items(suite, worst_items)],
    }


def _cell(suite: SuiteVerdict, group: GroupResult | None, level: str) -> dict[str, str]:
    if group is None:
        return {"icon": "·", "f1": "n/a", "drift": "n/a"}
    verdict = suite.group_verdict(level, group.key)
    return {"icon": icon(verdict) if verdict else "",
            "f1": number(group.metrics.get("bertscore_f1")),
            "drift": number(group.metrics.get("credit_drift_mean"), ".2f")}


def _model_row(suite: SuiteVerdict, group: GroupResult | None, model: str) -> dict[str, str]:
    metrics = group.metrics if group else {}
    exercise_verdicts = [suite.group_verdict("group", g.key) for g in suite.result.groups_at("group")
                         if dict(g.key)["model"] == model]
    model_verdict = suite.group_verdict("model", group.key) if group else None
    verdicts = [v for v in (*exercise_verdicts, model_verdict) if v is not None]
    failed = sum(1 for v in exercise_verdicts if v is Verdict.FAIL)
    return {
        "model": inert(model, limit=60),
        "icon": icon(max(verdicts, key=["pass", "warn", "fail"].index) if verdicts else None),
        "f1": number(metrics.get("bertscore_f1")),
        "precision": number(metrics.get("bertscore_precision")),
        "recall": number(metrics.get("bertscore_recall")),
        "drift_mean": number(metrics.get("credit_drift_mean"), ".2f"),
        "drift_std": number(metrics.get("credit_drift_std"), ".2f"),
        "drift_max": number(metrics.get("credit_drift_max"), ".2f"),
        "coverage": number(metrics.get("coverage"), ".0%"),
        "failed_exercises": f"{failed}/{len(exercise_verdicts)}",
        "n": str(group.n if group else 0),
    }


def _drift_settings(settings: dict) -> str:
    parts = [f"BERTScore <code>{inert(settings.get('bertscore_model'))}</code> layer {settings.get('layer')}",
             "idf" if settings.get("idf") else "no idf",
             "rescaled" if settings.get("rescale_with_baseline") else "not rescaled",
             f"{settings.get('max_tokens')}-token limit (longer texts windowed)",
             f"credit drift: {settings.get('credit_drift_mode')}",
             f"{settings.get('exercises')} exercises × {len(settings.get('models', []))} models"]
    return " · ".join(parts)


def _worst_items(suite: SuiteVerdict, count: int) -> list[Item]:
    """Lowest-F1 submissions, those in failing (exercise, model) groups first."""
    def rank(item: Item) -> tuple:
        key = dict(item.key)
        group = (("exercise", key["exercise"]), ("model", key["model"]))
        failing = suite.group_verdict("group", group) is Verdict.FAIL
        f1 = item.values.get("bertscore_f1")
        return (not failing, f1 is None, f1 if f1 is not None else 0.0, -(item.values.get("credit_drift") or 0.0))
    return sorted(suite.result.items, key=rank)[:count]


def _worst(suite: SuiteVerdict, item: Item) -> dict[str, Any]:
    values = item.values
    baseline = item.details.get("baseline", [])
    candidate = item.details.get("candidate", [])
    return {
        "label": inert(key_label(item.key), limit=200),
        "f1": number(values.get("bertscore_f1")),
        "credits": f"{values.get('baseline_credits'):g} → {values.get('candidate_credits'):g}",
        "source": inert(str(item.source)) if item.source else "",
        "rows": [
            {"baseline": _feedback_html(baseline[i]) if i < len(baseline) else "",
             "candidate": _feedback_html(candidate[i]) if i < len(candidate) else ""}
            for i in range(max(len(baseline), len(candidate)))
        ],
    }


def _feedback_html(item: dict) -> str:
    title = inert(item.get("title"), limit=120, newline=" ")
    description = inert(item.get("description"), limit=TEXT_LIMIT)
    return f"<b>{title}</b> ({item.get('credits', 0):g})<br>{description}"


_VIEWS: dict[str, Callable[[SuiteVerdict, int], dict[str, Any]]] = {
    "drift": _drift, "stereotype": stereotype_view.build, "stability": stability_view.build,
    "heuristic": heuristic_view.build, "rag": rag_view.build}
