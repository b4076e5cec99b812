"""report.html: one self-contained, interactive page of the whole run (no network, no CDN).

Per suite: the verdict and checks, a table per group level, inline-SVG charts of the key metrics, the
distribution of a per-item value, the baseline comparison where there is one, and the item table —
sortable and filterable, its rows rendered by the page's script with `textContent` (never as HTML),
from JSON embedded in the page. The page's Content-Security-Policy forbids every network request.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from html import escape
from typing import Any

import jinja2
from markupsafe import Markup

import gate.report.charts as charts
import gate.report.over_time as over_time
from gate import __version__
from gate.judge import CheckResult, CheckVerdict, GateVerdict, SuiteVerdict
from gate.kinds import get_kind
from gate.kinds.base import ComparedMetric
from gate.report.context import RunInfo, why
from gate.report.formatting import advisory_mark, decisive, headline, icon, number, threshold
from gate.report.precompiled import PrecompiledLoader
from gate.report.significance import counts_as_line, significance_line
from gate.results import key_label

MAX_ITEMS = 20_000  # per suite; beyond this a seeded sample (the page says so)
SERIES_FIELDS = ("model", "system")
MAX_BARS = 400  # groups (bars) one 720-px chart can show, ~1.5 px each


def render(verdict: GateVerdict, run: RunInfo, history: dict[str, Any] | None = None) -> str:
    suites = [_suite(s, verdict) for s in verdict.suites]
    script, script_hash = _script()
    return _environment().get_template("dashboard.html.j2").render(
        script=script, script_hash=script_hash,
        name=verdict.name, verdict=verdict.verdict.value, icon=icon(verdict.verdict),
        word=headline(verdict.verdict, verdict.suites),
        skipped_reason=verdict.skipped_reason, suites=suites, run=run, version=__version__,
        checks={v.value: sum(s.count(v) for s in verdict.suites) for v in CheckVerdict},
        commit=run.commit[:7] if run.commit else None, history=history or {},
        significance=significance_line(verdict), counts_as=counts_as_line(verdict, sum(
            s.count(CheckVerdict.INCONCLUSIVE) for s in verdict.suites)), notes=list(verdict.notes))


@lru_cache(maxsize=1)
def _script() -> tuple[Markup, str]:
    """The page's one script and its CSP source: only this exact text may run ('sha256-…', no
    'unsafe-inline'), so markup that slipped past escaping still could not execute anything."""
    from gate.report.markdown import bundled_templates

    text = (bundled_templates() / "dashboard.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return Markup(text), f"sha256-{digest}"


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    from gate.report.markdown import bundled_templates

    return jinja2.Environment(loader=PrecompiledLoader(str(bundled_templates()), "html"),
                              undefined=jinja2.StrictUndefined, autoescape=True)


def _check_text(check: CheckResult, scorer: Any, gate: GateVerdict) -> dict[str, str]:
    spec = scorer.metrics.get(check.metric)
    if check.change is not None:
        return {"metric": f"Δ {check.metric}", "threshold": over_time.change_threshold(check, spec, gate.alpha),
                "value": over_time.change_value(check, spec, gate.correction) if check.value is not None else "n/a"}
    fmt = _fmt(scorer, check.metric)
    return {"metric": check.metric, "value": decisive(check.value, (check.fail, check.warn), fmt),
            "threshold": threshold(check.op.value, check.fail, check.warn, fmt)}


def _suite(suite: SuiteVerdict, gate: GateVerdict) -> dict[str, Any]:
    result = suite.result
    scorer = get_kind(result.kind)
    bars, bars_note = _bar_charts(suite)
    return {
        "name": result.name, "kind": result.kind, "verdict": suite.verdict.value,
        "word": headline(suite.verdict, [suite]),
        "icon": icon(suite.verdict), "notes": list(result.notes),
        "checks": len(suite.checks),
        "check_rows": _rows(_check_row(c, scorer, gate)
                            for c in sorted(suite.checks, key=lambda c: over_time.ORDER[c.verdict])),
        "problems": sum(1 for c in suite.checks if c.verdict is not CheckVerdict.PASS),
        "tables": _tables(suite, scorer),
        "charts": [Markup(svg) for svg in (*bars, _distribution(suite), _comparison(suite)) if svg],
        "chart_note": bars_note,
        "comparisons": _comparison_tables(suite),
        "item_table": _items(suite),
    }


def _check_row(check: CheckResult, scorer: Any, gate: GateVerdict) -> tuple[str, list[str]]:
    text = _check_text(check, scorer, gate)
    shown = advisory_mark(f"{icon(check.verdict)} {check.verdict.value}", check.advisory)
    return check.verdict.value, [shown, text["metric"], check.scope,
                                 key_label(check.key) if check.scope != "suite" else "whole suite", text["value"],
                                 text["threshold"], why(check)]


def _rows(rows: Iterable[tuple[str, Sequence[object]]]) -> Markup:
    """A table's `<tr>`s, each cell escaped here: 10,000 groups' rows rendered cell by cell through the template's
    autoescape took seconds. (row class, cells) per row; "" for no class."""
    return Markup("".join((f'<tr class="{escape(kind, quote=True)}"><td>' if kind else "<tr><td>")
                          + "</td><td>".join(escape(str(c), quote=True) for c in cells) + "</td></tr>"
                          for kind, cells in rows))


def _fmt(scorer, metric: str) -> str:
    spec = scorer.metrics.get(metric)
    return spec.fmt if spec else ".3f"


def _tables(suite: SuiteVerdict, scorer) -> list[dict[str, Any]]:
    tables = []
    for level in ("group", *scorer.levels):
        groups = suite.result.groups_at(level)
        if not groups:
            continue
        metrics = [m for m in dict.fromkeys(m for g in groups for m in g.metrics)
                   if any(g.metrics.get(m) is not None for g in groups)]
        fields = list(dict.fromkeys(k for g in groups for k, _ in g.key))
        tables.append({
            "title": "per " + " × ".join(fields), "columns": [*fields, "n", *metrics, "verdict"],
            "body": _rows(("", [*(dict(g.key).get(f, "") for f in fields), str(g.n),
                                *(number(g.metrics.get(m), _fmt(scorer, m)) for m in metrics),
                                icon(v) if (v := suite.group_shown(level, g.key)) else ""]) for g in groups)})
    return tables


def _bar_charts(suite: SuiteVerdict) -> tuple[list[str], str | None]:
    """Up to three bar charts of the groups' key metrics, and why there are none when the groups are too many to
    draw (a 720-px chart of 10,000 bars shows nothing, and took seconds to write)."""
    result = suite.result
    # a baseline run (a level of its own) is drawn beside the candidates
    groups = result.groups_at("group") + result.groups_at("baseline")
    if len(groups) > MAX_BARS:
        return [], (f"No bar charts: {len(groups):,} groups are more than a chart can show ({MAX_BARS}); the "
                    "tables below list every group, sortable.")
    checked = [c.metric for c in suite.checks if c.scope == "group"]
    out: list[str] = []
    for metric in dict.fromkeys([*get_kind(result.kind).charts, *checked]):
        if len(out) == 3 or not any(g.metrics.get(metric) is not None for g in groups):
            continue
        clusters: dict[str, list[tuple[str, float | None]]] = {}
        for g in groups:
            key = dict(g.key)
            series = next((key[f] for f in SERIES_FIELDS if f in key), metric)
            series += " (baseline)" if g.level == "baseline" else ""
            cluster = next((v for f, v in g.key if f not in SERIES_FIELDS), series)
            clusters.setdefault(cluster, []).append((series, g.metrics.get(metric)))
        out.append(charts.grouped_bars(f"{metric} per {' × '.join(k for k, _ in groups[0].key)}",
                                       list(clusters.items())))
    return out, None


def _distribution(suite: SuiteVerdict) -> str:
    metric, bounds = get_kind(suite.result.kind).distribution or (None, None)
    if metric is None:
        return ""
    by_series: dict[str, list[float]] = {}
    for item in suite.result.items:
        key = dict(item.key)
        value = item.values.get(metric)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            by_series.setdefault(next((key[f] for f in SERIES_FIELDS if f in key), "all"), []).append(float(value))
    return charts.histogram(f"Distribution of {metric} per item", list(by_series.items()), bounds=bounds)


def _comparisons(suite: SuiteVerdict) -> Mapping[str, Sequence[ComparedMetric]]:
    """The suite's baseline-vs-candidate rows by title (`Kind.comparisons`); {} where its kind compares nothing."""
    compared = get_kind(suite.result.kind).comparisons
    return compared(suite.result) if compared else {}


def _comparison(suite: SuiteVerdict) -> str:
    svgs = []
    charted = get_kind(suite.result.kind).comparison_charts
    for title, rows in _comparisons(suite).items():
        chosen = [(r.metric, r.baseline, r.candidate, f"{r.delta_pct:+.0f}%" if r.delta_pct is not None else "",
                   {"improvement": "▲", "regression": "▼"}.get(r.outcome, ""))
                  for r in rows if r.metric in charted]
        svgs.append(charts.comparison_bars(f"{title}: baseline vs candidate (▲ significant improvement, "
                                           "▼ significant regression)", chosen))
    return "".join(svgs)


def _comparison_tables(suite: SuiteVerdict) -> list[dict[str, Any]]:
    tables = []
    for title, rows in _comparisons(suite).items():
        tables.append({"title": title, "rows": [
            {"metric": r.metric, "baseline": number(r.baseline), "candidate": number(r.candidate),
             "delta": number(r.delta, "+.3f") if r.delta is not None else "n/a",
             "pct": f"{r.delta_pct:+.1f}%" if r.delta_pct is not None else "—",
             "evidence": (f"CI [{r.low:+.3g}, {r.high:+.3g}]" if r.low is not None else
                          (f"p = {r.p_value:.3g}" if r.p_value is not None else "")) +
                         (f", n = {r.n} paired" if r.n else ""),
             "outcome": r.outcome} for r in rows]})
    return tables


def _items(suite: SuiteVerdict) -> dict[str, Any]:
    result = suite.result
    items = list(result.items)
    note = ""
    if len(items) > MAX_ITEMS:
        rng = random.Random(0)
        items = rng.sample(items, MAX_ITEMS)
        note = f"A seeded sample of {MAX_ITEMS:,} of the {len(result.items):,} items; items.csv has them all."
    columns = list(result.item_columns)
    rows = [[_cell({**dict(i.key), **i.values}.get(c)) for c in columns] for i in items]
    data = json.dumps({"columns": columns, "rows": rows}, separators=(",", ":"), allow_nan=False)
    # Inside <script type="application/json">: no "</script>", no HTML comment, whatever the text holds.
    safe = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return {"json": Markup(safe), "count": len(result.items), "note": note}


def _cell(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else None
    if isinstance(value, (bool, int)) or value is None:
        return value
    text = str(value)
    return text if len(text) <= 300 else text[:299] + "…"
