"""Advisory checks in every surface (issue 35, item 3): a failing advisory check leaves exit code 0 and a
successful check run, and the comment, the check run's title, the printed summary, report.json, the dashboard,
the annotations and JUnit all say that it failed — counted apart from the verdict, its rows marked advisory."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from gate.config import ReportConfig, UnmeasuredPolicy
from gate.config.settings import FailOn
from gate.judge import CheckVerdict, SuiteVerdict, Verdict, worst
from gate.publish.bundle import check_title, conclusion
from gate.report import WrittenReport, context, dashboard, render_markdown
from gate.report.annotations import Level, check_annotations
from gate.report.json_report import report_json
from gate.report.junit import junit_xml
from gate.report.significance import significance_line
from gate.run import exit_code
from gate.steps.output import print_summary
from tests.report.verdict_fixtures import a_change, change_check, gate, group_check, stability_result

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report")


def suite_of(result, checks) -> SuiteVerdict:
    """As the judge decides it: the suite's verdict from its required checks only."""
    policy = UnmeasuredPolicy.WARN
    return SuiteVerdict(result, tuple(checks), worst([c.counts_as(policy) for c in checks if not c.advisory]), policy)


def advisory_gate(required: CheckVerdict = CheckVerdict.PASS):
    """Two required checks (one of them `required`), two advisory failures — one a change tested alone."""
    result = stability_result("stab", models=2, tasks=2, items=8)
    checks = [group_check(result, 0, CheckVerdict.PASS), group_check(result, 1, required),
              group_check(result, 2, CheckVerdict.FAIL, advisory=True),
              change_check(result, 3, CheckVerdict.FAIL, a_change(p=0.004, p_adjusted=0.004), advisory=True)]
    suite = suite_of(result, checks)
    return gate(suite, tested=0, advisory_tested=1)


def test_a_failing_advisory_check_passes_the_gate_and_says_so_in_the_headline(capsys):
    verdict = advisory_gate()
    assert verdict.verdict is Verdict.PASS
    assert exit_code(verdict, FailOn.FAIL) == 0 and conclusion(verdict.counts_as, FailOn.FAIL) == "success"
    text = render_markdown(verdict, RUN, ReportConfig())
    assert text.startswith("## ✅ quality: passed; 2 advisory checks failed\n")
    assert "checks: 2 ✅ 0 ⚠️ 0 ❌" in text  # the required ones; the advisory ones are counted apart
    assert "| ❌ advisory | `stability_coefficient` | model model-1, task task-0 |" in text
    assert "| ❌ advisory | `Δ stability_coefficient` | model model-1, task task-1 |" in text
    assert check_title(verdict) == "2 of 2 checks passed; 2 advisory checks failed"
    print_summary(verdict, WrittenReport(Path("gate-report"), "", ()))
    out = capsys.readouterr().out
    assert out.startswith("✅ quality: passed; 2 advisory checks failed\n")
    assert "  advisory checks (never blocking): 2 fail\n" in out
    assert "— checks: 2 pass; advisory (never blocking): 2 fail" in out


def test_the_significance_line_says_advisory_checks_are_tested_alone():
    verdict = advisory_gate()
    line = "1 advisory check is tested alone at α = 0.05, outside the gate's family: never blocking, spending " \
           "none of its budget."
    assert significance_line(verdict) == "Significance: " + line
    both = replace(verdict, tested=3, advisory_tested=2)
    assert significance_line(both) == (
        "Significance: 3 checks share α = 0.05 (Holm: the chance that an unchanged system fails any of them ≤ 5 %); "
        "p per check raw and adjusted. 2 advisory checks are each tested alone at α = 0.05, outside the gate's "
        "family: never blocking, spending none of its budget.")
    assert line in render_markdown(verdict, RUN, ReportConfig())


def test_report_json_marks_each_check_and_counts_the_advisory_ones():
    data = report_json(advisory_gate(), RUN.generated_at, None)
    assert data["verdict"] == data["counts_as"] == "pass"
    assert [c["advisory"] for c in data["suites"][0]["checks"]] == [False, False, True, True]
    assert data["advisory"] == {"checks": 2, "verdicts": {"fail": 2}, "summary": "2 advisory checks failed"}
    assert data["statistics"]["advisory_tested"] == 1 and data["statistics"]["tested"] == 0
    groups = {tuple(g["key"].values()): g["verdict"] for g in data["suites"][0]["groups"] if g["level"] == "group"}
    assert groups[("model-1", "task-0")] is None  # only an advisory check looks at it: no verdict


def test_a_failing_required_check_still_fails_everywhere():
    verdict = advisory_gate(required=CheckVerdict.FAIL)
    assert verdict.verdict is Verdict.FAIL and exit_code(verdict, FailOn.FAIL) == 1
    assert conclusion(verdict.counts_as, FailOn.FAIL) == "failure"
    assert render_markdown(verdict, RUN, ReportConfig()).startswith("## ❌ quality: failed; 2 advisory checks failed")
    assert check_title(verdict) == "1 of 2 checks failed; 2 advisory checks failed"


def test_annotations_junit_and_dashboard_never_block_on_an_advisory_check():
    verdict = advisory_gate()
    levels = {a.title: a.level for a in check_annotations(verdict)}
    assert levels == {"stab: stability_coefficient fail (advisory)": Level.WARNING}  # the change has no source
    root = ET.fromstring(junit_xml(verdict, RUN.generated_at).encode("utf-8"))
    suite = root.find("testsuite")
    assert (root.get("failures"), suite.get("failures"), suite.get("tests")) == ("0", "0", "4")
    outputs = [case.findtext("system-out") for case in suite.iter("testcase") if case.get("name").endswith("advisory")]
    assert len(outputs) == 2 and all(o.startswith("advisory check (never blocks) fail: ") for o in outputs)
    html = dashboard.render(verdict, RUN)
    assert "passed; 2 advisory checks failed" in html and "<td>❌ fail advisory</td>" in html
