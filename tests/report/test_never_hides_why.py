"""Issue 20, item 10: a shortened comment never hides why — the verdict and every failed, inconclusive,
unmeasured and waived check stay (a gate-level table), and what was cut is named exactly.

Before: levels 1 and 0 dropped the per-suite "checks not passed" tables, so a 10,000-item gate with 3,000
failing checks became a comment with ❌ and no reason.
"""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from gate.config import GateConfig, ReportConfig
from gate.config.settings import Settings
from gate.judge import CheckVerdict
from gate.kinds.drift.config import DriftSuiteConfig
from gate.publish.bundle import Target
from gate.report import context, fit_markdown, render_markdown, sizing
from gate.steps.output import COMMENT_OVERHEAD, make_bundle
from tests.report.verdict_fixtures import WAIVER, a_change, change_check, gate, group_check, judged, stability_result

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report")
ICONS = {"❌": CheckVerdict.FAIL, "❓": CheckVerdict.INCONCLUSIVE, "❔": CheckVerdict.UNMEASURED,
         "🔕": CheckVerdict.WAIVED}


def fitted(verdict, limit):
    return fit_markdown(verdict, RUN, ReportConfig(worst_items=100), {}, limit, "`gate-report/report.md`")


def table_rows(text: str) -> list[list[str]]:
    """The rows of the "Checks not passed" table, cell by cell (first cell: the icon)."""
    start = text.index("**Checks not passed**")
    block = text[start:].split("\n\n")[1]  # the table is the paragraph after the heading line
    lines = block.splitlines()
    assert lines[0].startswith("| | Suite | Metric |") and set(lines[1]) <= set("|-")
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


@pytest.fixture(scope="module")
def huge_gate():
    """10,000 items, 3,000 failing checks, 3 inconclusive, 2 unmeasured, 1 waived — in one suite, plus a
    second suite with one more failing check (the table spans suites)."""
    result = stability_result("stab", models=30, tasks=100, items=10_000)
    checks = [group_check(result, i, CheckVerdict.FAIL) for i in range(2_999)]
    checks += [change_check(result, i, CheckVerdict.INCONCLUSIVE, a_change(underpowered=True),
                            reason="underpowered: detects ≥ 0.021 > 0.02") for i in range(3)]
    checks += [group_check(result, i, CheckVerdict.UNMEASURED, reason="no answers") for i in range(3, 5)]
    checks += [group_check(result, 6, CheckVerdict.WAIVED, waiver=WAIVER)]
    checks += [group_check(result, i, CheckVerdict.PASS) for i in range(2_999, 3_000)]
    other = stability_result("other", models=1, tasks=2, items=4)
    return gate(judged(result, checks), judged(other, [group_check(other, 0, CheckVerdict.FAIL)]))


def test_a_huge_failing_gate_keeps_verdict_failing_checks_and_names_the_cut(huge_gate):
    limit = sizing.GITHUB_TEXT_LIMIT - COMMENT_OVERHEAD
    result = fitted(huge_gate, limit)
    text = result.text
    assert len(text) <= sizing.GITHUB_TEXT_LIMIT and len(text) <= limit and not result.truncated
    assert text.startswith("## ❌ quality: failed\n")
    assert "checks: 1 ✅ 0 ⚠️ 3000 ❌ 2 ❔ unmeasured 3 ❓ inconclusive 1 🔕 waived" in text
    rows = table_rows(text)
    assert rows and result.rows == len(rows) and all(len(r) == 7 for r in rows)
    # most severe first: every shown row is a failure, each with its suite, group and threshold
    assert rows[0][:3] == ["❌", "other", "`stability_coefficient`"] and rows[1][1] == "stab"
    assert rows[1][3] == "model model-0, task task-0" and rows[1][4] == "0.500" and rows[1][5] == "≥ 0.8"
    shown = {v: sum(1 for r in rows if ICONS.get(r[0]) is v) for v in ICONS.values()}
    assert sum(shown.values()) == len(rows)
    totals = {CheckVerdict.FAIL: 3_000, CheckVerdict.INCONCLUSIVE: 3, CheckVerdict.UNMEASURED: 2,
              CheckVerdict.WAIVED: 1}
    cut = {v: totals[v] - shown[v] for v in totals}
    assert cut[CheckVerdict.FAIL] > 0
    expected = f"… and {cut[CheckVerdict.FAIL]:,} more failing checks"
    expected += "".join(f", {cut[v]:,} {word}" for v, word in ((CheckVerdict.INCONCLUSIVE, "inconclusive"),
                                                              (CheckVerdict.UNMEASURED, "unmeasured"),
                                                              (CheckVerdict.WAIVED, "waived")) if cut[v])
    assert expected + ": all in report.json" in text
    assert re.search(r"… and [\d,]+ more failing checks, 3 inconclusive, 2 unmeasured, 1 waived: all in report\.json",
                     text)
    # the most that fit: one more row would not
    config = ReportConfig(worst_items=100)
    longer = render_markdown(huge_gate, RUN, config, detail=0, cut_note=sizing.cut_note(0, "`gate-report/report.md`"),
                             footer=False, rows=len(rows) + 1)
    assert len(longer) > limit
    assert_gfm_tables(text, {"Checks not passed": len(rows)})


def test_every_level_below_full_keeps_the_table_and_says_what_it_leaves_out():
    result = stability_result("stab", models=2, tasks=3, items=12)
    checks = [group_check(result, 0, CheckVerdict.FAIL), group_check(result, 1, CheckVerdict.WARN),
              change_check(result, 2, CheckVerdict.INCONCLUSIVE, a_change(), reason="item set changed"),
              group_check(result, 3, CheckVerdict.WAIVED, waiver=WAIVER), group_check(result, 4, CheckVerdict.PASS)]
    verdict = gate(judged(result, checks))
    for detail in (1, 0):
        text = render_markdown(verdict, RUN, ReportConfig(), detail=detail, cut_note=sizing.cut_note(detail, "x"))
        rows = table_rows(text)
        assert [r[0] for r in rows] == ["❌", "❓", "🔕"]  # by severity; the warning is not among them…
        assert "(failed, inconclusive, unmeasured and waived; the 1 warning is in the full report)" in text
        assert rows[1][6] == "item set changed"
        assert rows[2][6].startswith("waived until 2026-12-31 by &#64;ana: accepted")
        assert "all in report.json" not in text  # nothing was cut from the table
    full = render_markdown(verdict, RUN, ReportConfig())
    assert "**Checks not passed**" not in full and "1 check not passed" not in full  # per-suite tables instead
    assert "4 checks not passed" in full


def assert_gfm_tables(text: str, expected: dict[str, int]) -> None:
    """Each named table parses as a GFM table with the expected body rows (cmark-gfm when installed;
    markdown-it-py's table rule — the same GFM table grammar — otherwise)."""
    try:
        import cmarkgfm  # type: ignore[import-not-found]
    except ImportError:
        cmarkgfm = None
    if cmarkgfm is not None:
        html = cmarkgfm.github_flavored_markdown_to_html(text)
        assert html.count("<table>") == text.count("\n|---|")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables, body_rows, in_body = [], 0, False
    for token in tokens:
        if token.type == "tbody_open":
            in_body, body_rows = True, 0
        elif token.type == "tbody_close":
            in_body = False
            tables.append(body_rows)
        elif token.type == "tr_open" and in_body:
            body_rows += 1
    assert len(tables) == text.count("\n|---|"), "a table did not parse as a GFM table"
    for title, rows in expected.items():
        before = text[:text.index(title)].count("\n|---|")
        assert tables[before] == rows, f"{title}: {tables[before]} rows parsed, {rows} expected"


def test_the_published_comment_and_summary_keep_the_failing_checks(huge_gate):
    """`make_bundle` (what `llm-gate run` posts) fits both texts the same way, the table cut, never dropped."""
    config = GateConfig(version=1, name="quality", suites={"stab": DriftSuiteConfig(
        kind="drift", baseline=["b/*.json"], candidates=["c/*.jsonl"])})
    bundle = make_bundle(huge_gate, RUN, config, {}, Settings.from_env({}, config="gate.yml"), Target(None, None))
    assert bundle.conclusion == "failure" and bundle.failed_checks == 3_000
    for text, limit in ((bundle.comment, sizing.GITHUB_TEXT_LIMIT - COMMENT_OVERHEAD),
                        (bundle.summary, sizing.GITHUB_TEXT_LIMIT - 1)):
        assert len(text) <= limit and text.startswith("## ❌ quality: failed\n")
        assert "truncated to" not in text and len(table_rows(text)) > 100
        assert re.search(r"… and [\d,]+ more failing checks, 3 inconclusive, 2 unmeasured, 1 waived: all in "
                         r"report\.json", text)
