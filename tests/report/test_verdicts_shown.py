"""The report shows the new verdicts and their evidence (issue 20, items 3-5, 8): raw and adjusted p, the
minimum detectable effect, the baseline's runs, the gate's false-alarm budget, inconclusive and waived checks
with why — in report.md, report.json, the annotations, JUnit, the dashboard and the console summary."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import xmlschema

from gate.config import InconclusivePolicy, ReportConfig
from gate.judge import CheckVerdict, Verdict
from gate.report import WrittenReport, context, dashboard, render_markdown
from gate.report.annotations import Level, check_annotations
from gate.report.json_report import report_json
from gate.report.junit import junit_xml
from gate.report.over_time import change_threshold, change_value
from gate.steps.output import print_summary
from tests.report.verdict_fixtures import (
    EXPIRED,
    WAIVER,
    Comparison,
    Snapshot,
    a_change,
    change_check,
    gate,
    group_check,
    judged,
    stability_result,
)

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report")
SCHEMA = xmlschema.XMLSchema(Path(__file__).resolve().parent.parent / "support" / "junit.xsd")
UNDERPOWERED = "underpowered: at this n and noise it detects a change of ≥ 0.031 (80% power), larger than the 0.02"


def mixed_gate(runs=3, **extra):
    """One suite: a tested change that failed, an underpowered (inconclusive) one, a waived failure, a failure
    under an expired waiver, a passing check; 2 tested checks share α; one waiver note."""
    result = stability_result("stab", models=2, tasks=3, items=12)
    checks = [change_check(result, 0, CheckVerdict.FAIL, a_change(runs=runs)),
              change_check(result, 1, CheckVerdict.INCONCLUSIVE, a_change(p=0.2, p_adjusted=0.4, mde=0.031,
                                                                          underpowered=True), reason=UNDERPOWERED),
              group_check(result, 2, CheckVerdict.WAIVED, waiver=WAIVER),
              group_check(result, 3, CheckVerdict.FAIL, waiver=EXPIRED),
              group_check(result, 4, CheckVerdict.PASS)]
    notes = ("waiver for stab.recall (@cy) matches no check: remove it or fix its suite/metric",)
    return gate(judged(result, checks, Comparison(Snapshot(runs=runs))), tested=2, notes=notes, **extra)


def test_change_line_gives_p_raw_and_adjusted_mde_n_and_baseline_runs():
    [suite] = mixed_gate().suites
    check = suite.checks[0]
    assert change_value(check, None, "holm") == ("−0.031 (0.871 → 0.840; p 0.004, adjusted 0.012 (Holm); "
                                                 "detects ≥ 0.021; n 24 paired; baseline of 3 runs)")
    assert change_value(check, None, "bh").count("(Benjamini–Hochberg)") == 1
    assert change_threshold(check, None) == "fall ≤ 0.020, if significant at α 0.05"
    one_run = replace(check, change=replace(check.change, runs=1, p_value=0.0004))
    assert change_value(one_run, None, "holm").endswith("p < 0.001, adjusted 0.012 (Holm); detects ≥ 0.021; "
                                                        "n 24 paired; baseline noise unknown (1 run))")
    untested = replace(check, change=replace(check.change, tested=False, p_value=None, p_adjusted=None))
    assert change_value(untested, None, "holm") == ("−0.031 (0.871 → 0.840; detects ≥ 0.021; n 24 paired; "
                                                    "baseline of 3 runs)")
    assert change_threshold(untested, None) == "fall ≤ 0.020"


def test_report_md_shows_significance_counts_waivers_notes_and_baseline_runs():
    text = render_markdown(mixed_gate(), RUN, ReportConfig())
    assert text.startswith("## ❌ quality: failed\n")
    assert ("Significance: 2 checks share α = 0.05 (Holm: the chance that an unchanged system fails any of them "
            "≤ 5 %); p per check raw and adjusted.") in text
    assert "checks: 1 ✅ 0 ⚠️ 2 ❌ 1 ❓ inconclusive 1 🔕 waived" in text
    assert "| Suite | Kind | Verdict | Checks ✅ / ⚠️ / ❌ / ❔ / ❓ / 🔕 |" in text
    assert "| stab | stability | ❌ failed | 1 / 0 / 2 / 0 / 1 / 1 |" in text
    assert "> 📝 waiver for stab.recall (&#64;cy) matches no check" in text
    assert "blessed from 3 runs on 2026-11-20 at `0123456`" in text
    assert ("waived until 2026-12-31 by &#64;ana: accepted: the new prompt trades stability for recall; "
            "would have failed") in text
    assert "waiver expired on 2026-01-01 (&#64;bo: temporary)" in text
    assert f"| ❓ | `Δ stability_coefficient` | model model-0, task task-1 | −0.031 (0.871 → 0.840; p 0.200, " \
           f"adjusted 0.400 (Holm); detects ≥ 0.031 (underpowered); n 24 paired; baseline of 3 runs) | fall ≤ " \
           f"0.020, if significant at α 0.05 | {UNDERPOWERED} |" in text
    problems = text[text.index("checks not passed</summary>"):]
    assert [line[2] for line in problems.splitlines() if line.startswith("| ") and line[2] in "❌❓🔕"] == \
        ["❌", "❌", "❓", "🔕"]  # by severity
    one_run = render_markdown(mixed_gate(runs=1), RUN, ReportConfig())
    assert "blessed from 1 run on 2026-11-20" in one_run and "its noise is unknown" in one_run


def test_change_checks_that_all_passed_fold_under_one_line_and_a_failing_one_keeps_the_table_open():
    result = stability_result("stab", models=2, tasks=3, items=12)
    passing = [change_check(result, i, CheckVerdict.PASS, a_change(p=0.9, p_adjusted=1.0)) for i in range(3)]
    text = render_markdown(gate(judged(result, passing + [group_check(result, 4, CheckVerdict.FAIL)],
                                      Comparison(Snapshot(runs=3)))), RUN, ReportConfig())
    folded = text.index("<details><summary>✅ 3 change checks vs baseline passed</summary>")
    assert folded < text.index("| | Change vs baseline |") < text.index("</details>", folded)
    mixed = render_markdown(mixed_gate(), RUN, ReportConfig())  # a failed and an inconclusive change check
    assert "vs baseline passed" not in mixed and "| | Change vs baseline |" in mixed


def test_an_inconclusive_gate_says_what_it_counts_as():
    result = stability_result("stab", models=1, tasks=2, items=2)
    suite = judged(result, [change_check(result, 0, CheckVerdict.INCONCLUSIVE, a_change(), reason="item set changed"),
                            group_check(result, 1, CheckVerdict.PASS)])
    assert suite.verdict is Verdict.INCONCLUSIVE
    for policy, says in ((InconclusivePolicy.NEUTRAL, "a neutral check run and exit code 0"),
                         (InconclusivePolicy.FAIL, "a failure: exit code 1")):
        text = render_markdown(gate(suite, inconclusive=policy), RUN, ReportConfig())
        assert text.startswith("## ❓ quality: inconclusive (could not tell)\n")
        assert "**0 of 1 suite failed**, 1 inconclusive" in text
        assert f"> ❓ Could not tell: 1 check inconclusive. `inconclusive: {policy.value}` (gate.yml) makes this " \
               f"{says}" in text


def test_report_json_carries_statistics_notes_waivers_and_change_evidence():
    data = report_json(mixed_gate(), RUN.generated_at, None)
    assert data["statistics"] == {"alpha": 0.05, "correction": "holm", "tested": 2, "advisory_tested": 0}
    assert data["notes"] == ["waiver for stab.recall (@cy) matches no check: remove it or fix its suite/metric"]
    assert data["counts_as"] == "fail" and data["inconclusive_policy"] == "neutral"
    [suite] = data["suites"]
    assert suite["baseline"]["runs"] == 3
    checks = suite["checks"]
    assert checks[0]["change"]["p_adjusted"] == 0.012 and checks[0]["change"]["mde"] == 0.021
    assert checks[0]["change"]["runs"] == 3 and "confidence" not in checks[0]["change"]
    assert checks[2]["verdict"] == "waived" and checks[2]["waiver"] == {
        "reason": WAIVER.reason, "owner": "@ana", "expires": "2026-12-31", "expired": False, "replaced": "fail"}
    assert checks[3]["waiver"]["expired"] is True and "waiver" not in checks[4]


def test_annotations_inconclusive_is_a_notice_with_its_reason_and_waived_has_none():
    found = check_annotations(mixed_gate())
    assert [(a.level, a.line) for a in found] == [(Level.FAILURE, 1), (Level.FAILURE, 4), (Level.NOTICE, 2)]
    notice = found[-1]
    assert notice.title == "stab: stability_coefficient inconclusive"
    assert f"Could not tell: {UNDERPOWERED}." in notice.message
    assert "p 0.2, adjusted 0.4; detects ≥ 0.031" in notice.message
    assert "p 0.004, adjusted 0.012; detects ≥ 0.021; allowed 0.02" in found[0].message


def test_junit_inconclusive_and_waived_are_skipped_never_passed_and_a_failure_only_when_counted_so():
    def cases(verdict):
        text = junit_xml(verdict, RUN.generated_at)
        SCHEMA.validate(text)
        return ET.fromstring(text.encode("utf-8"))

    root = cases(mixed_gate())
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("5", "2", "2")
    outcomes = [[child.tag for child in case] for case in suite.iter("testcase")]
    assert outcomes == [["failure"], ["skipped"], ["skipped"], ["failure"], []]
    skipped = [case.find("skipped").get("message") for case in suite.iter("testcase") if case.find("skipped")
               is not None]
    assert skipped[0] == f"inconclusive: {UNDERPOWERED}"
    assert skipped[1].startswith("waived: waived until 2026-12-31 by @ana: accepted") and \
        skipped[1].endswith("would have failed")
    assert "p 0.004, adjusted 0.012; detects ≥ 0.021; n 24" in suite.find("testcase/failure").get("message")
    strict = cases(mixed_gate(inconclusive=InconclusivePolicy.FAIL)).find("testsuite")
    assert strict.get("failures") == "3" and strict.get("skipped") == "1"
    assert [c.find("failure").get("type") for c in strict.iter("testcase") if c.find("failure") is not None] == \
        ["fail", "inconclusive", "fail"]


def test_dashboard_gives_the_new_verdicts_their_icon_and_colour():
    html = dashboard.render(mixed_gate(), RUN)
    assert '<tr class="inconclusive"><td>❓ inconclusive</td>' in html
    assert '<tr class="waived"><td>🔕 waived</td>' in html
    assert "tr.inconclusive td:first-child" in html and ".badge.inconclusive" in html
    assert "❓ 1 inconclusive · 🔕 1 waived" in html
    assert "Significance: 2 checks share α = 0.05" in html
    assert "waived until 2026-12-31 by @ana" in html  # HTML-escaped by Jinja, no Markdown mention here
    assert html.index('class="fail"') < html.index('class="inconclusive"') < html.index('class="waived"')


def test_console_summary_counts_inconclusive_and_waived(capsys):
    print_summary(mixed_gate(), WrittenReport(Path("gate-report"), "", ()))
    out = capsys.readouterr().out
    assert "  gate.yml checks: 1 pass, 2 fail, 1 inconclusive, 1 waived\n" in out
    assert "Significance: 2 checks share α = 0.05" in out and "note: waiver for stab.recall" in out
    assert "— checks: 1 pass, 2 fail, 1 inconclusive, 1 waived" in out
