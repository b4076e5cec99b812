"""The Markdown report: verdict first, tables per suite, escaped model text, strict templates."""

from __future__ import annotations

import jinja2
import pytest

from gate.config import CheckConfig, GateConfig, ReportConfig, UnmeasuredPolicy
from gate.judge import judge_gate, judge_suite
from gate.kinds.base import ScoringContext
from gate.kinds.drift import score_drift
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import load_drift
from gate.report import context, markdown, render_markdown
from gate.report.json_report import report_json
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report", commit="abcdef1234567")


def _verdict(tmp_path, candidate_items, model="m", checks=None):
    base = feedback(("Roles", "Both roles named.", 2.0))
    write_exercise(tmp_path / "baselines", 1, [submission(1, base)], title="Observer <b>pattern</b>")
    write_candidates(tmp_path / "outputs" / "c.jsonl", [candidate(1, 1, model, candidate_items)])
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"],
                             checks=checks)
    gate = GateConfig(version=1, name="my-gate", suites={"fb": suite})
    result = score_drift("fb", suite, load_drift("fb", suite, tmp_path),
                         ScoringContext(gate, FakeRuntime(), tmp_path))
    return judge_gate(gate.name, [judge_suite(result, checks or {"bertscore_f1": CheckConfig(min=0.8)},
                                              UnmeasuredPolicy.WARN)])


def test_failing_report_has_verdict_first_then_tables_and_details(tmp_path):
    verdict = _verdict(tmp_path, feedback(("Roles", "Something else.", 0.0)))
    text = render_markdown(verdict, RUN, ReportConfig())
    assert text.startswith("## ❌ my-gate: failed\n")
    assert "commit `abcdef1`" in text
    assert "| fb | drift | ❌ failed |" in text
    assert "| Exercise | m |" in text
    assert "❌ 0.500 · 2.00" in text                         # group cell: icon, F1, credit drift
    assert "Tests: 0/1 passed (min F1 >= 0.8, max credit drift <= none)" in text
    assert "<details open><summary>1 check not passed</summary>" in text
    assert "| ❌ | `bertscore_f1` | exercise 1, model m | 0.500 | ≥ 0.8 | bertscore&#95;f1 = 0.5 &lt; min 0.8 |" in text
    assert "<b>Roles</b> (2)<br>Both roles named." in text     # side by side
    assert "Observer &lt;b&gt;pattern&lt;/b&gt;" in text       # input text escaped


def test_hostile_model_output_is_escaped_everywhere(tmp_path):
    hostile = "@admin </td></table></details> ```"
    verdict = _verdict(tmp_path, feedback((hostile, hostile, 1.0)), model="evil|model @x")
    text = render_markdown(verdict, RUN, ReportConfig())
    assert "@admin" not in text and "@x" not in text and "</details> `" not in text and "```" not in text
    assert text.count("<details") == text.count("</details>")
    assert "evil&#124;model" in text


def test_passing_report(tmp_path):
    verdict = _verdict(tmp_path, feedback(("Roles", "Both roles named.", 2.0)))
    text = render_markdown(verdict, RUN, ReportConfig())
    assert text.startswith("## ✅ my-gate: passed\n") and "not passed" not in text


def test_skipped_report():
    verdict = judge_gate("g", [], "--suite x* matched no suite")
    text = render_markdown(verdict, RUN, ReportConfig())
    assert text.startswith("## ⏭️ g: skipped") and "--suite x&#42; matched no suite" in text  # escaped: renders as x*
    assert report_json(verdict, RUN.generated_at, None)["verdict"] == "skipped"


def test_templates_are_strict_and_overridable(tmp_path):
    (tmp_path / "report.md.j2").write_text("{{ name }} {{ missing_value }}")
    with pytest.raises(jinja2.UndefinedError):
        markdown.render({"name": "x"}, override_dir=str(tmp_path))
    (tmp_path / "report.md.j2").write_text("custom: {{ name }} {{ verdict }}")
    verdict = judge_gate("g", [], "none")
    assert render_markdown(verdict, RUN, ReportConfig(templates_dir=str(tmp_path))) == "custom: g skipped"


def test_report_json_follows_schema_1(tmp_path):
    verdict = _verdict(tmp_path, feedback(("Roles", "Other.", 2.0)))
    data = report_json(verdict, RUN.generated_at, RUN.commit)
    assert set(data) >= {"schema", "verdict", "suites"} and data["schema"] == 1
    [suite] = data["suites"]
    assert set(suite) >= {"name", "kind", "verdict", "fingerprint", "metrics", "groups", "checks", "unmeasured"}
    [check] = suite["checks"]
    assert check == {"metric": "bertscore_f1", "scope": "group", "key": {"exercise": "1", "model": "m"},
                     "op": "min", "fail": 0.8, "warn": None, "value": 0.5, "verdict": "fail",
                     "advisory": False}
    group = next(g for g in suite["groups"] if g["level"] == "group")
    assert group["key"] == {"exercise": "1", "model": "m"} and group["verdict"] == "fail"


def test_generic_view_is_a_table_per_level(tmp_path):
    from gate.report import views

    verdict = _verdict(tmp_path, feedback(("Roles", "Other.", 2.0)))
    tables = views._generic(verdict.suites[0], worst_items=3)["tables"]
    assert [t["title"] for t in tables] == ["per exercise × model", "per model"]
    assert tables[0]["columns"][:3] == ["exercise", "model", "bertscore_precision"]
    assert tables[0]["rows"][0][:2] == ["1", "m"] and tables[0]["rows"][0][-1] == "❌"
