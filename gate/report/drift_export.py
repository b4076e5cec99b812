"""The seed's own outputs for drift suites: `quality_drift_report.json` and its "Tests: X/Y passed" line."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from gate.judge import CheckVerdict, Op, SuiteVerdict


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


def group_passed(suite: SuiteVerdict, key) -> bool:
    """The seed's `passed`: every threshold met. A value that could not be measured has not passed."""
    return not any(c.key == key and c.scope == "group" and c.verdict in (CheckVerdict.FAIL, CheckVerdict.UNMEASURED)
                   for c in suite.checks)


def seed_summary(suite: SuiteVerdict) -> tuple[int, int, str]:
    groups = suite.result.groups_at("group")
    passed = sum(group_passed(suite, g.key) for g in groups)
    limits = thresholds(suite)
    f1 = "none" if limits["min_bertscore_f1"] is None else f"{limits['min_bertscore_f1']:g}"
    drift = "none" if limits["max_avg_credit_drift"] is None else f"{limits['max_avg_credit_drift']:g}"
    return passed, len(groups), f"Tests: {passed}/{len(groups)} passed (min F1 >= {f1}, max credit drift <= {drift})"


def quality_drift_report(suite: SuiteVerdict, now: datetime | None = None) -> dict[str, Any]:
    """The seed's report structure, one entry per exercise with `model_results[model].passed`."""
    now = now or datetime.now(timezone.utc)
    result = suite.result
    facts = result.inputs.get("exercises", {})
    exercises: dict[str, Any] = {}
    for group in result.groups_at("group"):
        key = dict(group.key)
        exercise_id, model = key["exercise"], key["model"]
        info = facts.get(exercise_id, {})
        entry = exercises.setdefault(exercise_id, {
            "timestamp": now.strftime("%Y-%m-%d %H:%M:%S"),
            "exercise_id": int(exercise_id) if exercise_id.isdigit() else exercise_id,
            "exercise_file": info.get("file"),
            "baseline": {"model": info.get("baseline_model"), "generated_at": info.get("generated_at")},
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
