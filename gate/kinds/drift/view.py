"""The drift suite's report view (exercise × model cells, per-model rows, the worst submissions side by side)
and the seed's own outputs for it: `quality_drift_report.json` and its "Tests: X/Y passed" line."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import gate.report.per_model as per_model
from gate.judge import CheckVerdict, Op, SuiteVerdict, Verdict, worst
from gate.kinds.drift.records import FeedbackItem
from gate.kinds.drift.scorer import DriftDetails, DriftSettings
from gate.kinds.drift.submissions import DriftItemDetails
from gate.report.escape import inert
from gate.report.formatting import counted, icon, number
from gate.results import GroupResult, Item, details_as, key_label

TEXT_LIMIT = 600  # characters of one feedback description shown side by side


def thresholds(suite: SuiteVerdict) -> dict[str, float | None]:
    """The group-level F1 minimum and credit-drift maximum in force (the seed's two thresholds)."""
    found: dict[str, float | None] = {"min_bertscore_f1": None, "max_avg_credit_drift": None}
    for check in suite.checks:
        if check.scope != "group":
            continue
        if check.change is not None:
            continue  # a change against the snapshot is not the seed's threshold
        if check.metric == "bertscore_f1" and check.op is Op.MIN:
            found["min_bertscore_f1"] = check.fail
        if check.metric == "credit_drift_mean" and check.op is Op.MAX:
            found["max_avg_credit_drift"] = check.fail
    return found


_NOT_MET = (CheckVerdict.FAIL, CheckVerdict.UNMEASURED, CheckVerdict.INCONCLUSIVE)


def group_passed(suite: SuiteVerdict, key) -> bool:
    """The seed's `passed`: every threshold met. A value that could not be measured (or told) has not passed,
    nor has one a waiver accepts in spite of it (waived is never passed; a waived warning still met its bound)."""
    return not any(c.verdict in _NOT_MET or (c.verdict is CheckVerdict.WAIVED and c.waiver is not None
                                             and c.waiver.replaced != CheckVerdict.WARN.value)
                   for c in suite.checks_on("group", key))


def seed_summary(suite: SuiteVerdict) -> tuple[int, int, str]:
    groups = suite.result.groups_at("group")
    passed = sum(group_passed(suite, g.key) for g in groups)
    limits = thresholds(suite)
    f1 = "none" if limits["min_bertscore_f1"] is None else f"{limits['min_bertscore_f1']:g}"
    drift = "none" if limits["max_avg_credit_drift"] is None else f"{limits['max_avg_credit_drift']:g}"
    return passed, len(groups), f"Tests: {passed}/{len(groups)} passed (min F1 >= {f1}, max credit drift <= {drift})"


def seed_caption(suite: SuiteVerdict) -> str:
    """The seed's line as the report and the console show it: what its tests count (the seed's two thresholds per
    exercise × model pair, not gate.yml's checks), and, when every pair passed them but the suite failed, that
    gate.yml's other checks (a change check, a per-model one) failed it: not 'Tests: 2/2 passed' under ❌ alone."""
    passed, total, line = seed_summary(suite)
    line += " — the seed's tests: both thresholds per exercise × model pair"
    if suite.verdict is Verdict.FAIL and passed == total:
        line += f"; the suite failed on gate.yml's other checks ({suite.count(CheckVerdict.FAIL)} failed)"
    return line


def quality_drift_report(suite: SuiteVerdict, now: datetime | None = None) -> dict[str, Any]:
    """The seed's report structure, one entry per exercise with `model_results[model].passed`."""
    now = now or datetime.now(timezone.utc)
    result = suite.result
    facts = details_as(result.details, DriftDetails).exercises
    exercises: dict[str, Any] = {}
    for group in result.groups_at("group"):
        key = dict(group.key)
        exercise_id, model = key["exercise"], key["model"]
        info = facts.get(exercise_id)
        entry = exercises.setdefault(exercise_id, {
            "timestamp": now.strftime("%Y-%m-%d %H:%M:%S"),
            "exercise_id": int(exercise_id) if exercise_id.isdigit() else exercise_id,
            "exercise_file": info.file if info else None,
            "baseline": {"model": info.baseline_model if info else None,
                         "generated_at": info.generated_at if info else None},
            "thresholds": thresholds(suite),
            "model_results": {},
        })
        entry["model_results"][model] = {
            "avg_bertscore_f1": group.metrics.get("bertscore_f1"),
            "avg_credit_drift": group.metrics.get("credit_drift_mean"),
            "passed": group_passed(suite, group.key),
        }
    passed, total, line = seed_summary(suite)
    return {"exercises": exercises, "summary": {"passed": passed, "total": total, "line": line}}


# ---------------------------------------------------------------- the report view


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result = suite.result
    details = details_as(result.details, DriftDetails)
    models = list(details.settings.models)
    by_key = {g.key: g for g in result.groups}
    limits = thresholds(suite)
    rows = []
    for exercise_id, info in details.exercises.items():
        keys = [(("exercise", exercise_id), ("model", m)) for m in models]
        cells = [_cell(suite, by_key.get(k), "group") for k in keys]
        title = info.title
        verdicts = [v for v in (suite.group_verdict("group", k) for k in keys) if v is not None]
        rows.append({"label": inert(f"{exercise_id} · {title}" if title else exercise_id, limit=70), "cells": cells,
                     "rank": per_model.rank(worst(verdicts) if verdicts else None)})
    model_rows = [_model_row(suite, by_key.get((("model", m),)), m) for m in models]
    totals = [{**_cell(suite, by_key.get((("model", m),)), "model"), "icon": row["icon"]}
              for m, row in zip(models, model_rows, strict=True)]
    passed, total, _ = seed_summary(suite)
    seed_line = seed_caption(suite)
    return {
        "models": [inert(m, limit=60) for m in models],
        "rows": rows,
        "group_rows": "exercises",  # what `views.cut_groups` cuts: the exercise rows of the matrix
        "rows_more": None,
        "totals": totals,
        "per_model": model_rows,
        "thresholds": limits,
        "seed_line": seed_line,
        "passed": passed,
        "total": total,
        "settings": _drift_settings(details.settings),
        "worst": [_worst(suite, item) for item in _worst_items(suite, worst_items)],
    }


def _cell(suite: SuiteVerdict, group: GroupResult | None, level: str) -> dict[str, str]:
    if group is None:
        return {"icon": "·", "f1": "n/a", "drift": "n/a"}
    verdict = suite.group_shown(level, group.key)
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
        "icon": icon(worst(verdicts) if verdicts else None),
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


def _drift_settings(settings: DriftSettings) -> str:
    parts = [f"BERTScore <code>{inert(settings.bertscore_model)}</code> layer {settings.layer}",
             "idf" if settings.idf else "no idf",
             "rescaled" if settings.rescale_with_baseline else "not rescaled",
             f"{settings.max_tokens}-token limit (longer texts windowed)",
             f"credit drift: {settings.credit_drift_mode}",
             f"{counted(settings.exercises, 'exercise')} × {counted(len(settings.models), 'model')}"]
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
    details = details_as(item.details, DriftItemDetails)
    baseline, candidate = details.baseline, details.candidate
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


def _feedback_html(item: FeedbackItem) -> str:
    title = inert(item.title, limit=120, newline=" ")
    description = inert(item.description, limit=TEXT_LIMIT)
    return f"<b>{title}</b> ({item.credits:g})<br>{description}"
