"""Verdicts -> the plain view model the templates render. All escaping of input text happens here.

Besides the suites, the view carries what makes a verdict trustworthy to read (DESIGN.md §10): the gate's
false-alarm budget (`significance`), its notes (waivers that matched nothing or expired), what an
inconclusive gate counts as, and — when the report is shortened (`detail` ≤ 1) — one gate-level table of
every check that failed, was inconclusive, unmeasured or waived, so a shortened comment never hides why
(cut to its first `rows` by severity only when even that does not fit, with a line naming what was cut).
At `detail` 0 each suite keeps its per-model verdicts (`gate.report.per_model`). `whole` builds the view of
one level once; `cut` keeps the rows `sizing.fit` chose of each table (checks, group rows, model rows).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gate.report.flaky as flaky
import gate.report.over_time as over_time
import gate.report.per_model as per_model
import gate.report.views as views
from gate import __version__
from gate.baselines.trends import SuiteTrend
from gate.judge import CheckResult, CheckVerdict, GateVerdict, SuiteVerdict, Verdict
from gate.kinds import get_kind
from gate.report.annotations import describe
from gate.report.escape import inert
from gate.report.filtered import FILTERED_NOTE, filter_label
from gate.report.formatting import advisory_mark, decisive, headline, icon, number, threshold
from gate.report.gate_changes import view as gate_changes_view
from gate.report.significance import counts_as_line, significance_line
from gate.report.sizing import Cut, Sizes
from gate.results import key_label


@dataclass(frozen=True)
class RunInfo:
    """Facts about the run that are not results: where, when, which commit."""

    generated_at: str
    output_dir: str
    commit: str | None = None
    repository: str | None = None
    run_url: str | None = None
    selected_suites: tuple[str, ...] = ()
    selected_models: tuple[str, ...] = ()  # with selected_suites: a filtered run's filter (its heading)
    fail_on: str = "fail"
    dashboard: bool = False  # report.html is written next to report.md
    trends: Mapping[str, SuiteTrend] = field(default_factory=dict)  # suite -> trend over the default branch
    stale_outputs: Mapping[str, tuple[str, float]] = field(default_factory=dict)  # suite -> (oldest, days)
    history_notes: tuple[str, ...] = ()  # what reading or recording the history had to say
    runtime: Mapping[str, Any] | None = None  # `RuntimeSummary.to_dict()` of the model work; None without any
    generation: Mapping[str, Any] | None = None  # `Generated.to_dict()` of the generation step; None without any


def build(verdict: GateVerdict, run: RunInfo, worst_items: int,
          descriptions: Mapping[str, str | None] | None = None, *, detail: int = 3,
          cut_note: str | None = None, footer: bool = True, rows: int | None = None, groups: int | None = None,
          models: int | None = None) -> dict[str, Any]:
    """The view of the whole report; `rows` caps the gate-level "checks not passed" table, `groups` each suite's
    per-group tables, `models` its per-model table (None: all; `sizing.fit` chooses them)."""
    return cut(whole(verdict, run, worst_items, descriptions, detail=detail, footer=footer),
               Cut(detail, groups=groups, models=models, rows=rows), cut_note)


def cut(view: dict[str, Any], chosen: Cut, cut_note: str | None) -> dict[str, Any]:
    """`whole`'s view with its tables cut as `chosen` says, each with the line naming what it left out: cheap,
    so that bisection over the rows kept renders, but never rebuilds, the view."""
    found = view["not_passed_all"]
    shown = found if chosen.rows is None else found[:chosen.rows]
    return {**view, "cut_note": cut_note, "not_passed": [line for line, _ in shown],
            "not_passed_cut": cut_line([check for _, check in found[len(shown):]]),
            "suites": [{**s, "view": views.cut_groups(s["view"], chosen.groups),
                        "per_model": per_model.cut(s["per_model"], chosen.models)} for s in view["suites"]]}


def sizes(shortened: dict[str, Any], summary: dict[str, Any]) -> Sizes:
    """The most rows each cuttable table has: group rows in the level-1 view, model rows in the level-0 one."""
    return Sizes(groups=max((views.group_rows(s["view"]) for s in shortened["suites"]), default=0),
                 models=max((len(s["per_model"]["rows"]) for s in summary["suites"] if s["per_model"]), default=0),
                 not_passed=len(summary["not_passed_all"]))


def whole(verdict: GateVerdict, run: RunInfo, worst_items: int,
          descriptions: Mapping[str, str | None] | None = None, *, detail: int = 3,
          footer: bool = True) -> dict[str, Any]:
    """The view of the whole report at one level of detail, no table cut."""
    descriptions = descriptions or {}
    suites = [_suite(s, worst_items, descriptions.get(s.result.name), run, detail, verdict)
              for s in verdict.suites]
    changed = sorted({f for s in verdict.suites if s.comparison for f in s.comparison.changed_in_pr})
    counts = {v.value: sum(1 for s in verdict.suites if s.verdict is v) for v in Verdict}
    checks = {v.value: sum(s.count(v) for s in verdict.suites) for v in CheckVerdict}
    shown = [v for v in CheckVerdict if v in _ALWAYS_COUNTED or checks[v.value]]
    label = "" if verdict.verdict is Verdict.SKIPPED else filter_label(run.selected_suites, run.selected_models)
    return {
        # a filtered run's heading names its filter and says it is not the whole gate (gate.report.filtered)
        "name": inert(verdict.name, limit=100) + (f" ({inert(label, limit=200)})" if label else ""),
        "filtered": FILTERED_NOTE if label else None,
        "verdict": verdict.verdict.value,
        "icon": icon(verdict.verdict),
        "word": headline(verdict.verdict, verdict.suites),  # "passed; 2 advisory checks failed"
        "skipped_reason": inert(verdict.skipped_reason, limit=300) if verdict.skipped_reason else None,
        "suite_counts": counts,
        "check_counts": checks,
        "suites": suites,
        "version": __version__,
        "run": run,
        "commit_short": run.commit[:7] if run.commit else None,
        "dashboard": run.dashboard,
        "detail": detail,
        "cut_note": None,
        "footer": footer,
        "changed_baselines": [inert(f, limit=200) for f in changed],
        "history_notes": [inert(n, limit=300) for n in run.history_notes],
        "model_work": model_work_line(run.runtime),
        "generation": inert(generation_line(run.generation), limit=600),
        "count_columns": [{"verdict": v.value, "icon": icon(v)} for v in sorted(shown, key=_COLUMNS.index)],
        "significance": significance_line(verdict),
        "counts_as": counts_as_line(verdict, checks[CheckVerdict.INCONCLUSIVE.value]),
        "notes": [inert(n, limit=500) for n in verdict.notes],
        "gate_changes": gate_changes_view(verdict.gate_changes),
        "not_passed_all": not_passed_lines(verdict) if detail <= 1 else [],
        "not_passed": [],
        "not_passed_cut": None,
        "warned_checks": checks[CheckVerdict.WARN.value],
    }


_COLUMNS = [CheckVerdict.PASS, CheckVerdict.WARN, CheckVerdict.FAIL, CheckVerdict.UNMEASURED,
            CheckVerdict.INCONCLUSIVE, CheckVerdict.WAIVED]
_ALWAYS_COUNTED = (CheckVerdict.PASS, CheckVerdict.WARN, CheckVerdict.FAIL, CheckVerdict.UNMEASURED)
# What the gate-level table lists when the report is shortened: everything that is not a pass or a warning.
NOT_PASSED = (CheckVerdict.FAIL, CheckVerdict.INCONCLUSIVE, CheckVerdict.UNMEASURED, CheckVerdict.WAIVED)
_CUT_WORDS = {CheckVerdict.FAIL: "failing", CheckVerdict.INCONCLUSIVE: "inconclusive",
              CheckVerdict.UNMEASURED: "unmeasured", CheckVerdict.WAIVED: "waived"}


def not_passed_checks(verdict: GateVerdict) -> list[tuple[SuiteVerdict, CheckResult]]:
    """Every failed, inconclusive, unmeasured and waived check of the gate, most severe first."""
    found = [(s, c) for s in verdict.suites for c in s.checks if c.verdict in NOT_PASSED]
    found.sort(key=lambda sc: (_ORDER[sc[1].verdict], sc[0].result.name, sc[1].metric))
    return found


def not_passed_lines(verdict: GateVerdict) -> list[tuple[dict[str, str], CheckResult]]:
    """The gate-level table's rows, most severe first, each with its check (what a cut line counts)."""
    return [({**_check_line(check, get_kind(suite.result.kind).metrics, verdict),
              "suite": inert(suite.result.name, limit=100)}, check) for suite, check in not_passed_checks(verdict)]


def cut_line(cut: list[CheckResult]) -> str | None:
    """"… and 9,412 more failing checks, 3 inconclusive: all in report.json" — exactly what was left out."""
    if not cut:
        return None
    counts = [(v, sum(1 for c in cut if c.verdict is v)) for v in NOT_PASSED]
    parts = [(n, _CUT_WORDS[v]) for v, n in counts if n]
    first_n, first_word = parts[0]
    text = f"… and {first_n:,} more {first_word} check{'s' if first_n != 1 else ''}"
    text += "".join(f", {n:,} {word}" for n, word in parts[1:])
    return text + ": all in report.json"


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


def generation_line(generation: Mapping[str, Any] | None) -> str:
    """E.g. "generation: 2,000 calls, 1,980 replayed from the cassettes, 20 recorded (12,345 tokens, $0.0123), 1
    failed: its item is unmeasured" — what the comment says of the calls that produced the candidates."""
    if not generation:
        return ""
    models = [m for s in generation.get("suites", ()) for m in s.get("models", ())]
    notes = "; ".join(generation.get("notes", ()))
    if not models:
        return notes
    total = {k: sum(int(m.get(k) or 0) for m in models) for k in ("calls", "replayed", "recorded", "failed",
                                                                  "not_sent", "prompt_tokens", "completion_tokens")}
    costs = [m.get("cost_usd") for m in models if m.get("recorded")]
    line = (f"generation: {total['calls']:,} call{'s' if total['calls'] != 1 else ''}, {total['replayed']:,} "
            f"replayed from the cassettes, {total['recorded']:,} recorded")
    if total["recorded"]:
        tokens = total["prompt_tokens"] + total["completion_tokens"]
        cost = "" if not costs or any(c is None for c in costs) else f", ${sum(costs):.4f}"
        line += f" ({tokens:,} tokens{cost})"
    lost = total["failed"] + total["not_sent"]
    if lost:
        line += f", {lost:,} unanswered (failed or over the budget): their items are unmeasured"
    return line + (f" · {notes}" if notes else "")


# The order checks that did not pass are listed in: what blocks the merge first, then what could not be told.
_ORDER = over_time.ORDER


def _suite(suite: SuiteVerdict, worst_items: int, description: str | None, run: RunInfo,
           detail: int, gate: GateVerdict) -> dict[str, Any]:
    result = suite.result
    scorer = get_kind(result.kind)
    problems = [c for c in suite.checks if c.verdict is not CheckVerdict.PASS]
    problems.sort(key=lambda c: (_ORDER[c.verdict], c.metric))
    return {
        "name": inert(result.name, limit=100),
        "kind": result.kind,
        "description": inert(description, limit=300) if description else "",
        "verdict": suite.verdict.value,
        "icon": icon(suite.verdict),
        "word": headline(suite.verdict, [suite]),
        "counts": {v.value: suite.count(v) for v in CheckVerdict},
        "total_checks": len(suite.checks),
        "problems": [_check_line(c, scorer.metrics, gate) for c in problems] if detail >= 2 else [],
        "per_model": per_model.table(suite) if detail == 0 else None,  # the kind's own view has them above
        "suite_metrics": [
            {"metric": name, "value": number(value, scorer.metrics[name].fmt)}
            for name, value in result.metrics.items() if name in scorer.metrics
        ],
        "notes": [inert(n, limit=500) for n in result.notes],
        "flaky": flaky.view(suite) if detail >= 1 else None,  # the worst items whose samples straddle a bound
        "fingerprint": {k: inert(v, limit=200) for k, v in result.fingerprint.items() if k != "libraries"},
        "view": views.build(suite, worst_items) if detail >= 1 else {},  # the kind's tables: shown from level 1
        "baseline": over_time.baseline_view(suite, run.stale_outputs.get(result.name),
                                            lambda c: _check_line(c, scorer.metrics, gate)),
        "trend": over_time.trend_view(run.trends.get(result.name), scorer.metrics, charts=detail >= 3),
    }


def _check_line(check: CheckResult, metrics: Mapping, gate: GateVerdict) -> dict[str, str]:
    spec = metrics.get(check.metric)
    if check.change is not None:
        value = over_time.change_value(check, spec, gate.correction) if check.value is not None else "n/a"
        limit = over_time.change_threshold(check, spec, gate.alpha)
    else:
        value = decisive(check.value, (check.fail, check.warn), spec.fmt if spec else ".3f")
        limit = threshold(check.op.value, check.fail, check.warn, spec.fmt if spec else "g")
    return {
        "icon": advisory_mark(icon(check.verdict), check.advisory),
        "verdict": check.verdict.value,
        "metric": f"Δ {check.metric}" if check.change is not None else check.metric,
        "where": inert(key_label(check.key) if check.scope != "suite" else "whole suite", limit=200),
        "value": value,
        "threshold": limit,
        "reason": inert(why(check), limit=600),
    }


_WOULD_HAVE = {"fail": "would have failed", "warn": "would have warned",
               "inconclusive": "would have been inconclusive", "unmeasured": "would have been unmeasured"}


def why(check: CheckResult) -> str:
    """Why a check did not pass, unescaped: a failed or warned check's value against its bound ("final_score_mean
    = 3.2 < min 9.9", a change's evidence), its waiver ("waived until 2026-12-31 by @ana: reason; would have
    failed", or "waiver expired on …") and its own reason (unmeasured, inconclusive). A failing check's reason is
    never empty (issue 32, item 8)."""
    parts = [describe(check)] if check.verdict in (CheckVerdict.FAIL, CheckVerdict.WARN) else []
    waiver = check.waiver
    if waiver is not None and check.verdict is CheckVerdict.WAIVED:
        text = f"waived until {waiver.expires} by {waiver.owner}: {waiver.reason}"
        parts.append(text + (f"; {_WOULD_HAVE[waiver.replaced]}" if waiver.replaced in _WOULD_HAVE else ""))
    elif waiver is not None and waiver.expired:
        parts.append(f"waiver expired on {waiver.expires} ({waiver.owner}: {waiver.reason})")
    if check.reason:
        parts.append(check.reason[:300])
    return "; ".join(parts)
