"""Verdicts -> the plain view model the templates render. All escaping of input text happens here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gate.report.over_time as over_time
import gate.report.views as views
from gate import __version__
from gate.baselines.trends import SuiteTrend
from gate.judge import CheckResult, CheckVerdict, GateVerdict, SuiteVerdict, Verdict
from gate.report.escape import inert
from gate.report.formatting import WORDS, icon, number, threshold
from gate.results import key_label
from gate.scorers import get_scorer


@dataclass(frozen=True)
class RunInfo:
    """Facts about the run that are not results: where, when, which commit."""

    generated_at: str
    output_dir: str
    commit: str | None = None
    repository: str | None = None
    run_url: str | None = None
    selected_suites: tuple[str, ...] = ()
    fail_on: str = "fail"
    dashboard: bool = False  # report.html is written next to report.md
    trends: Mapping[str, SuiteTrend] = field(default_factory=dict)  # suite -> trend over the default branch
    stale_outputs: Mapping[str, tuple[str, float]] = field(default_factory=dict)  # suite -> (oldest, days)
    history_notes: tuple[str, ...] = ()  # what reading or recording the history had to say
    runtime: Mapping[str, Any] | None = None  # `RuntimeSummary.to_dict()` of the model work; None without any


def build(verdict: GateVerdict, run: RunInfo, worst_items: int,
          descriptions: Mapping[str, str | None] | None = None, *, detail: int = 3,
          cut_note: str | None = None, footer: bool = True) -> dict[str, Any]:
    descriptions = descriptions or {}
    suites = [_suite(s, worst_items, descriptions.get(s.result.name), run, detail) for s in verdict.suites]
    changed = sorted({f for s in verdict.suites if s.comparison for f in s.comparison.changed_in_pr})
    counts = {v.value: sum(1 for s in verdict.suites if s.verdict is v) for v in Verdict}
    checks = {v.value: sum(s.count(v) for s in verdict.suites) for v in CheckVerdict}
    return {
        "name": inert(verdict.name, limit=100),
        "verdict": verdict.verdict.value,
        "icon": icon(verdict.verdict),
        "word": WORDS[verdict.verdict],
        "skipped_reason": inert(verdict.skipped_reason, limit=300) if verdict.skipped_reason else None,
        "suite_counts": counts,
        "check_counts": checks,
        "suites": suites,
        "version": __version__,
        "run": run,
        "commit_short": run.commit[:7] if run.commit else None,
        "dashboard": run.dashboard,
        "detail": detail,
        "cut_note": cut_note,
        "footer": footer,
        "changed_baselines": [inert(f, limit=200) for f in changed],
        "history_notes": [inert(n, limit=300) for n in run.history_notes],
        "model_work": model_work_line(run.runtime),
    }


def model_work_line(runtime: Mapping[str, Any] | None) -> str:
    """E.g. "model work 3.1 s on cpu (float32, 2 threads) · 812 texts encoded · cache 1,450 hits"."""
    if not runtime:
        return ""
    line = (f"model work {runtime['model_seconds']:.1f} s on {runtime['device']} ({runtime['dtype']}, "
            f"{runtime['threads']} threads) · {runtime['encoded']['texts']:,} texts encoded")
    cache = runtime.get("cache") or {}
    if cache.get("enabled"):
        line += f" · cache {cache.get('hits', 0):,} hits"
    return line


def _suite(suite: SuiteVerdict, worst_items: int, description: str | None, run: RunInfo,
           detail: int) -> dict[str, Any]:
    result = suite.result
    scorer = get_scorer(result.kind)
    problems = [c for c in suite.checks if c.verdict is not CheckVerdict.PASS]
    problems.sort(key=lambda c: ({"fail": 0, "unmeasured": 1, "warn": 2}[c.verdict.value], c.metric))
    return {
        "name": inert(result.name, limit=100),
        "kind": result.kind,
        "description": inert(description, limit=300) if description else "",
        "verdict": suite.verdict.value,
        "icon": icon(suite.verdict),
        "word": WORDS[suite.verdict],
        "counts": {v.value: suite.count(v) for v in CheckVerdict},
        "total_checks": len(suite.checks),
        "problems": [_check_line(c, scorer.metrics) for c in problems],
        "suite_metrics": [
            {"metric": name, "value": number(value, scorer.metrics[name].fmt)}
            for name, value in result.metrics.items() if name in scorer.metrics
        ],
        "notes": [inert(n, limit=500) for n in result.notes],
        "fingerprint": {k: inert(v, limit=200) for k, v in result.fingerprint.items() if k != "libraries"},
        "view": views.build(suite, worst_items),
        "baseline": over_time.baseline_view(suite, run.stale_outputs.get(result.name),
                                            lambda c: _check_line(c, scorer.metrics)),
        "trend": over_time.trend_view(run.trends.get(result.name), scorer.metrics, charts=detail >= 3),
    }


def _check_line(check: CheckResult, metrics: Mapping) -> dict[str, str]:
    spec = metrics.get(check.metric)
    if check.change is not None:
        value = over_time.change_value(check, spec) if check.value is not None else "n/a"
        limit = over_time.change_threshold(check, spec)
    else:
        value = number(check.value, spec.fmt if spec else ".3f")
        limit = threshold(check.op.value, check.fail, check.warn, spec.fmt if spec else "g")
    return {
        "icon": icon(check.verdict),
        "verdict": check.verdict.value,
        "metric": f"Δ {check.metric}" if check.change is not None else check.metric,
        "where": inert(key_label(check.key) if check.scope != "suite" else "whole suite", limit=200),
        "value": value,
        "threshold": limit,
        "reason": inert(check.reason, limit=300) if check.reason else "",
    }
