"""View data for a suite's standing over time: its baseline snapshot (age, comparability, changed by this
pull request, how many runs it was blessed from), change checks (Δ, raw and adjusted p, the minimum
detectable effect, n) and trends from the default branch's history."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gate.baselines.history import mermaid_trend, sparkline
from gate.baselines.trends import SuiteTrend
from gate.judge import CheckResult, CheckVerdict, Op, SuiteVerdict
from gate.report.escape import inert
from gate.results import MetricSpec


def _fmt(value: float | None, spec: MetricSpec | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    text = format(value, spec.fmt if spec else ".3f")
    if not any(c in "123456789" for c in text.split("e")[0]):  # rounds to zero: no sign ("−0.00" is noise)
        return text.lstrip("-")
    if signed and value > 0:
        text = "+" + text
    return text.replace("-", "−")


def _age(days: float | None) -> str | None:
    if days is None:
        return None
    return "today" if days < 1 else f"{days:.0f} day{'s' if round(days) != 1 else ''} ago"


CORRECTIONS = {"holm": "Holm", "bh": "Benjamini–Hochberg", "none": "no correction"}


def _p(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def change_value(check: CheckResult, spec: MetricSpec | None, correction: str | None = None) -> str:
    """`−0.031 (0.871 → 0.840; p 0.004, adjusted 0.012 (Holm); detects ≥ 0.021; n 24 paired; baseline of
    3 runs)`: the change, the evidence it was judged on and what the run could have seen (its MDE)."""
    change = check.change
    assert change is not None
    text = _fmt(check.value, spec, signed=True)
    if change.baseline is None or change.current is None:
        return text
    parts = []
    if change.p_value is not None and change.tested:
        evidence = f"p {_p(change.p_value)}"
        if change.p_adjusted is not None and correction != "none":
            evidence += f", adjusted {_p(change.p_adjusted)}"
            if correction in CORRECTIONS:
                evidence += f" ({CORRECTIONS[correction]})"
        parts.append(evidence)
    if change.mde is not None:
        parts.append(f"detects ≥ {_fmt(change.mde, spec)}" + (" (underpowered)" if change.underpowered else ""))
    if change.n:
        parts.append(f"n {change.n} paired")
    if change.runs > 1:
        parts.append(f"baseline of {change.runs} runs")
    else:
        parts.append("baseline noise unknown (1 run)")
    inner = "; ".join([f"{_fmt(change.baseline, spec)} → {_fmt(change.current, spec)}", *parts])
    return f"{text} ({inner})"


def change_threshold(check: CheckResult, spec: MetricSpec | None, alpha: float | None = None) -> str:
    """`fall ≤ 0.02 (warn > 0.01), if significant at α 0.05` / `rise ≤ 0.5`, vs the baseline snapshot."""
    falls = check.op is Op.MIN
    word = "fall" if falls else "rise"
    text = f"{word} ≤ {_fmt(abs(check.fail), spec)}"
    if check.warn is not None:
        text += f" (warn > {_fmt(abs(check.warn), spec)})"
    if check.change is not None and check.change.tested:
        level = check.change.alpha if check.change.alpha is not None else alpha
        text += f", if significant at α {level:g}" if level is not None else ", if significant"
    return text


# The order checks are listed in: what blocks the merge first, then what could not be told, then the rest.
ORDER = {CheckVerdict.FAIL: 0, CheckVerdict.INCONCLUSIVE: 1, CheckVerdict.UNMEASURED: 2, CheckVerdict.WARN: 3,
         CheckVerdict.WAIVED: 4, CheckVerdict.PASS: 5}


CHANGE_ROWS = 15  # change checks listed per suite (all are in report.json)


def baseline_view(suite: SuiteVerdict, stale_output: tuple[str, float] | None,
                  line: Callable[[CheckResult], dict[str, str]]) -> dict[str, Any] | None:
    """None when there is nothing to say (no snapshot, no change checks, nothing stale or changed)."""
    comparison = suite.comparison
    uses_snapshot = any(c.change is not None for c in suite.checks)
    if comparison is None:
        return None
    snapshot = comparison.snapshot
    if snapshot is None and not uses_snapshot and not comparison.changed_in_pr and not stale_output:
        return None
    view: dict[str, Any] = {"path": inert(comparison.path, limit=200), "present": snapshot is not None,
                            "warnings": []}
    if snapshot is not None:
        view["blessed"] = inert(snapshot.created_at[:10], limit=40)
        view["commit"] = inert((snapshot.commit or "")[:7], limit=40) or None
        view["age"] = _age(comparison.age_days)
        view["runs"] = snapshot.runs
    warnings = view["warnings"]
    if comparison.stale:
        warnings.append(f"the baseline snapshot is {comparison.age_days:.0f} days old (older than "
                        "baselines.max_age_days): re-bless it with `llm-gate baseline bless` when the change is "
                        "intended")
    if stale_output:
        stamp, age = stale_output
        warnings.append(f"the baseline outputs date from {inert(stamp[:10], limit=40)} ({age:.0f} days ago, older "
                        "than baselines.max_age_days): regenerate them with `llm-gate baseline bless --model …`")
    if snapshot is not None and comparison.differences:
        shown = "; ".join(inert(d, limit=200) for d in comparison.differences[:6])
        warnings.append(f"**not comparable** with this run — {shown}; change checks are inconclusive")
    if comparison.changed_in_pr:
        files = ", ".join(f"`{inert(f, limit=200)}`" for f in comparison.changed_in_pr[:10])
        warnings.append(f"this pull request changes the baseline: {files} — checks compare against the new one")
    if snapshot is None and uses_snapshot:
        warnings.append("no baseline snapshot: change checks are inconclusive (`llm-gate baseline bless` writes one; "
                        "bless `--add` further runs so it knows its noise)")
    changes = [c for c in suite.checks if c.change is not None]
    changes.sort(key=lambda c: (ORDER[c.verdict], c.value if c.value is not None else 0.0))
    view["changes"] = [line(c) for c in changes[:CHANGE_ROWS]]
    view["more"] = max(0, len(changes) - CHANGE_ROWS)
    # all passed: the table folds under one line, so what failed (the suite's own tables) is not pushed down
    view["all_passed"] = len(changes) if all(c.verdict is CheckVerdict.PASS for c in changes) else 0
    return view


def trend_view(trend: SuiteTrend | None, specs: Mapping[str, MetricSpec], charts: bool) -> dict[str, Any] | None:
    if trend is None or (trend.runs == 0 and trend.not_comparable == 0):
        return None
    rows, mermaid = [], []
    for metric in trend.metrics:
        spec = specs.get(metric.metric)
        values = [v for _, v in metric.points]
        rows.append({
            "metric": metric.metric, "now": _fmt(metric.now, spec), "last": _fmt(metric.last, spec),
            "commit": inert((metric.last_commit or "")[:7], limit=40) or None,
            "delta": _fmt(metric.delta, spec, signed=True) if metric.delta is not None else "n/a",
            "spark": sparkline(values) if len(values) > 1 else "",
        })
        if charts and len(metric.points) > 1:
            mermaid.append(mermaid_trend(f"{trend.suite}: {metric.metric}", metric.points, y_label=metric.metric))
    note = None
    if trend.not_comparable:
        shown = "; ".join(inert(d, limit=200) for d in trend.differences[:4])
        note = (f"{trend.not_comparable} earlier run{'s' if trend.not_comparable != 1 else ''} not comparable "
                f"(fingerprint differs: {shown}) and left out")
    return {"rows": rows, "charts": [c for c in mermaid if c], "runs": trend.runs, "note": note}
