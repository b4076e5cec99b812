"""The trajectory suite's report view: per model its rates (with 95 % Wilson intervals), pass^k and pass@k, steps,
tokens, cost and edit distance; the runs that miss their expectations and why; and per task the baseline's and the
run's tool sequences side by side with what changed. Every name, argument and answer came from an agent or a
trace file: all of it is escaped (`inert`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gate.judge import SuiteVerdict
from gate.kinds.trajectory.runs import Step
from gate.kinds.trajectory.scorer import Counts, RunDetails, TrajectoryDetails, TrajectoryItemDetails
from gate.kinds.trajectory.sequences import ADDED, ARGUMENTS, DROPPED, MOVED, UNCHANGED, Row, summary
from gate.kinds.trajectory.statistics import wilson
from gate.report.escape import inert
from gate.report.formatting import counted, icon, number
from gate.results import Item, details_as

ARGUMENTS_SHOWN = 80  # characters of a call's arguments in the side-by-side view
MARKS = {UNCHANGED: "", ADDED: "➕ added", DROPPED: "➖ dropped", MOVED: "↕ moved", ARGUMENTS: "✏️ arguments changed"}


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result = suite.result
    details = details_as(result.details, TrajectoryDetails)
    settings = details.settings
    formats = {"runs": "tool-call records", "otel": "OpenTelemetry spans"}
    k = f"k = {settings.pass_k}" if settings.pass_k is not None else "k = each task's runs"
    parts = [f"{counted(len(settings.models), 'model')} × {counted(len(settings.tasks), 'task')}",
             f"{counted(settings.runs, 'run')} ({', '.join(formats.get(f, f) for f in settings.formats)})",
             f"pass^k and pass@k with {k}",
             f"{counted(settings.expectations, 'task')} with expectations"]
    if settings.baseline_runs is not None:
        parts.append(f"baseline: {counted(settings.baseline_runs, 'run')}")
    if settings.skipped_traces:
        parts.append(f"{counted(settings.skipped_traces, 'trace')} without GenAI spans skipped")
    models = [_model_row(suite, g, details.counts.get(dict(g.key)["model"])) for g in result.groups_at("model")]
    runs = [(i, r) for i in result.items for r in details_as(i.details, TrajectoryItemDetails).runs]
    failing = [(i, r) for i, r in runs if r.failures]
    changed = sorted(((i, r) for i, r in runs if any(row.change != UNCHANGED for row in r.rows)),
                     key=lambda pair: -(pair[1].distance or 0))
    compared = [r for _, r in runs if r.baseline is not None]
    return {
        "settings": " · ".join(parts),
        "baseline": settings.baseline_runs is not None,
        "models": models,
        "missing": [inert(f"{m} · {t}", limit=120, newline=" ") for m, t in details.missing],
        "failing": [_failing(i, r) for i, r in failing[:worst_items]],
        "failing_total": len(failing),
        "changed": [_changed(i, r) for i, r in changed[:worst_items]],
        "changed_total": len(changed),
        "unchanged_total": len(compared) - len(changed),
    }


def _model_row(suite: SuiteVerdict, group, counts: Counts | None) -> dict[str, str]:
    m = group.metrics
    verdict = suite.group_shown("model", group.key)
    return {
        "model": f"{icon(verdict) + ' ' if verdict else ''}{inert(dict(group.key)['model'], limit=60)}",
        "runs": number(m.get("runs"), ".0f"),
        "expectations": number(m.get("expectations_met_rate"), ".1%"),
        "passed": _with_interval(m.get("pass_rate"), counts.passed if counts else 0, counts.verdicts if counts else 0),
        "success": _with_interval(m.get("success_rate"), counts.succeeded if counts else 0,
                                  counts.reported if counts else 0),
        "pass_hat_k": number(m.get("pass_hat_k")), "pass_at_k": number(m.get("pass_at_k")),
        "steps": number(m.get("steps_mean"), ".2f"), "tokens": number(m.get("tokens_mean"), ",.0f"),
        "cost": number(m.get("cost_mean"), ".4f"), "distance": number(m.get("tool_edit_distance_mean"), ".2f"),
    }


def _with_interval(rate: float | None, successes: int, n: int) -> str:
    """The metric, then the runs it counts with their 95 % Wilson interval (of the pooled runs: with samples the
    metric is the mean of the tasks' rates)."""
    interval = wilson(successes, n)
    if rate is None or interval is None:
        return number(rate, ".1%")
    return f"{rate:.1%} ({successes}/{n}, CI {interval[0]:.0%}–{interval[1]:.0%})"


def _label(item: Item, run: RunDetails) -> str:
    key = dict(item.key)
    sample = f" · sample {run.sample}" if run.sample is not None else ""
    return inert(f"{key['model']} · {key['task_id']}{sample}", limit=200, newline=" ")


def _failing(item: Item, run: RunDetails) -> dict[str, Any]:
    tools = " → ".join(step.tool for step in run.steps)
    return {"label": _label(item, run), "source": inert(run.source or ""),
            "failures": [inert(f, limit=300, newline=" ") for f in run.failures],
            "tools": inert(tools or "(no tool calls)", limit=300, newline=" "),
            "answer": inert(run.final_answer, limit=300) if run.final_answer is not None else "<i>(none)</i>"}


def _changed(item: Item, run: RunDetails) -> dict[str, Any]:
    counts = summary(run.rows)
    words = [f"{n} {word}" for word, n in ((ADDED, counts[ADDED]), (DROPPED, counts[DROPPED]),
                                            (MOVED, counts[MOVED]), (ARGUMENTS, counts[ARGUMENTS])) if n]
    return {"label": _label(item, run), "distance": number(run.distance, ".0f"),
            "summary": ", ".join(words), "source": inert(run.source or ""),
            "baseline_source": inert(run.baseline_source or ""),
            "rows": [_row(r, run.baseline or (), run.steps) for r in run.rows]}


def _row(row: Row, baseline: Sequence[Step], run: Sequence[Step]) -> dict[str, str]:
    return {"baseline": _call(row.baseline, baseline), "candidate": _call(row.candidate, run),
            "change": MARKS[row.change] + (f" ({row.note})" if row.note else "")}


def _call(position: int | None, steps: Sequence[Step]) -> str:
    if position is None:
        return ""
    step = steps[position]
    arguments = step.arguments if step.arguments is None or isinstance(step.arguments, str) else \
        json.dumps(step.arguments, ensure_ascii=False, sort_keys=True, default=str)
    shown = f"{step.tool}({'' if arguments is None else arguments})"
    return f"{position + 1}. " + inert(shown, limit=ARGUMENTS_SHOWN, newline=" ")
