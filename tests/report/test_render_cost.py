"""Rendering a large gate's report, job summary and PR comment builds each suite's tables once (issue 23, item 4):
the fitting loop tries up to four levels for each of two limits, and at 10,000 groups one build took ~0.7 s."""

from __future__ import annotations

import gate.report.views as views
from gate.config import ReportConfig
from gate.judge import CheckVerdict
from gate.kinds import KINDS
from gate.report import context, fit_markdown, render_markdown, sizing
from tests.report.verdict_fixtures import gate, group_check, judged, stability_result
from tests.support.kinds import with_view

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report")
CONFIG = ReportConfig(worst_items=5)


def big_gate():
    """Two suites of 400 failing groups each: too long for a comment, so the fit goes down to cut group rows."""
    suites = []
    for name in ("alpha", "beta"):
        result = stability_result(name, 40, 10, 800)
        suites.append(judged(result, [group_check(result, i, CheckVerdict.FAIL) for i in range(400)]))
    return gate(*suites)


def test_each_suites_view_is_built_once_for_the_report_summary_and_comment(monkeypatch):
    verdict = big_gate()
    built = []
    kind_view = KINDS["stability"].view
    with_view(monkeypatch, "stability", lambda suite, n: built.append(suite.result.name) or kind_view(suite, n))
    full = render_markdown(verdict, RUN, CONFIG)
    fitted = [fit_markdown(verdict, RUN, CONFIG, {}, limit, "`report.md`")
              for limit in (sizing.GITHUB_TEXT_LIMIT - 1, sizing.GITHUB_TEXT_LIMIT - 2_000)]
    assert len(full) > sizing.GITHUB_TEXT_LIMIT and all(f.detail < sizing.FULL_DETAIL for f in fitted)
    assert sorted(built) == ["alpha", "beta"]


def test_a_cached_view_renders_what_a_fresh_build_renders(monkeypatch):
    verdict = big_gate()
    limit = sizing.GITHUB_TEXT_LIMIT - 1
    render_markdown(verdict, RUN, CONFIG)  # fills the cache
    cached = fit_markdown(verdict, RUN, CONFIG, {}, limit, "`report.md`")
    monkeypatch.setattr(views, "_BUILT", {})
    fresh_verdict = big_gate()  # another object: nothing of the first is reused
    fresh = fit_markdown(fresh_verdict, RUN, CONFIG, {}, limit, "`report.md`")
    assert cached == fresh and len(cached.text) <= limit


def test_a_new_suite_object_gets_its_own_view():
    first, second = big_gate(), big_gate()
    one = views.build(first.suites[0], 5)
    assert views.build(first.suites[0], 5) is one
    assert views.build(second.suites[0], 5) is not one and views.build(first.suites[0], 6) is not one
