"""report.html: self-contained, escaped, and small enough on big runs (the browser test is separate)."""

from __future__ import annotations

import re

import pytest

from gate.config import UnmeasuredPolicy
from gate.judge import GateVerdict, SuiteVerdict, Verdict
from gate.report import charts, dashboard
from gate.report.context import RunInfo
from gate.results import GroupResult, Item, SuiteResult

RUN = RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report", commit="abc1234def")
HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(2)> & "quotes" \u2028'


def verdict_with(items: int, model: str = "m") -> GateVerdict:
    result = SuiteResult(
        name="fb", kind="drift", metrics={}, item_columns=("exercise", "submission", "model", "bertscore_f1"),
        groups=(GroupResult("group", (("exercise", "1"), ("model", model)), {"bertscore_f1": 0.9}, items),),
        items=tuple(Item(key=(("exercise", "1"), ("submission", str(i)), ("model", model)),
                         values={"bertscore_f1": (i % 100) / 100}) for i in range(items)),
        notes=(HOSTILE,))
    return GateVerdict("gate", Verdict.PASS, (SuiteVerdict(result, (), Verdict.PASS, UnmeasuredPolicy.WARN),))


def test_page_is_self_contained_and_forbids_the_network():
    html = dashboard.render(verdict_with(10), RUN)
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r'\b(src|href)="(https?:)?//', html)  # nothing to fetch
    assert "<svg" in html and "@media (prefers-color-scheme: dark)" in html


def test_hostile_text_is_escaped_in_html_and_in_the_embedded_json():
    html = dashboard.render(verdict_with(3, model=HOSTILE), RUN)
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert html.count("</script>") == html.count("<script")  # no early end of any script block
    assert "&lt;img src=x onerror=alert(2)&gt;" in html  # shown as text


def test_ten_thousand_items_stay_under_five_megabytes():
    html = dashboard.render(verdict_with(10_000), RUN)
    assert len(html.encode()) < 5 * 1024 * 1024
    assert html.count('"1",') >= 10_000  # every item is in the table data


def test_items_beyond_the_cap_are_sampled_and_the_page_says_so(monkeypatch):
    monkeypatch.setattr(dashboard, "MAX_ITEMS", 50)
    html = dashboard.render(verdict_with(200), RUN)
    assert "A seeded sample of 50 of the 200 items" in html


@pytest.mark.parametrize("svg", [
    charts.grouped_bars("t", [("a", [("m1", 0.5), ("m2", -0.25)]), ("b", [("m1", 1.0), ("m2", None)])]),
    charts.histogram("h", [("m1", [0.1, 0.2, 0.9]), ("m2", [0.5])], bounds=(0, 1)),
    charts.trend("trend", [("m", [("c1", 0.5), ("c2", 0.7), ("c3", 0.6)])]),
])
def test_charts_are_svg_with_values_in_titles(svg):
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "<title>" in svg


def test_chart_labels_are_escaped_and_empty_data_gives_no_chart():
    svg = charts.grouped_bars("<b>", [("<i>", [("<m>", 1.0)])])
    assert "<b>" not in svg and "&lt;b&gt;" in svg and "&lt;m&gt;" in svg
    assert charts.grouped_bars("t", []) == "" and charts.histogram("t", []) == ""
    assert charts.trend("t", [("m", [("c1", 1.0)])]) == ""  # one point is no trend


def verdict_with_groups(groups: int) -> GateVerdict:
    result = SuiteResult(
        name="fb", kind="drift", metrics={}, item_columns=("exercise", "model", "bertscore_f1"),
        groups=tuple(GroupResult("group", (("exercise", str(g)), ("model", f"m{g % 3}")), {"bertscore_f1": 0.5}, 1)
                     for g in range(groups)), items=())
    return GateVerdict("gate", Verdict.PASS, (SuiteVerdict(result, (), Verdict.PASS, UnmeasuredPolicy.WARN),))


def test_groups_too_many_to_chart_get_a_note_and_every_row_in_the_table():
    few, many = (dashboard.render(verdict_with_groups(n), RUN) for n in (dashboard.MAX_BARS, dashboard.MAX_BARS + 1))
    assert 'class="bar s' in few and "No bar charts" not in few
    assert 'class="bar s' not in many and f"No bar charts: {dashboard.MAX_BARS + 1:,} groups" in many
    assert many.count("<tr><td>") >= dashboard.MAX_BARS + 1  # the group table keeps them all


def test_table_cells_are_escaped_where_the_rows_are_built():
    html = dashboard.render(verdict_with(3, model=HOSTILE), RUN)
    assert "<td>" + HOSTILE not in html and "&lt;/script&gt;&lt;script&gt;alert(1)" in html
