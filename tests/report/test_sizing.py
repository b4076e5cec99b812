"""Reports shrink by whole sections to fit GitHub's limit, and say what they left out."""

from __future__ import annotations

from gate.config import CheckConfig, GateConfig, ReportConfig, UnmeasuredPolicy
from gate.judge import judge_gate, judge_suite
from gate.kinds.base import ScoringContext
from gate.kinds.drift import score_drift
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import load_drift
from gate.report import context, fit_markdown, render_markdown, sizing
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report")


def big_verdict(tmp_path, exercises=40, submissions=12, models=6, text=400):
    long = "word " * (text // 5)
    for e in range(exercises):
        base = [submission(s, feedback(("Criterion", long, 2.0), ("Other", long, 1.0))) for s in range(submissions)]
        write_exercise(tmp_path / "baselines", 1000 + e, base, title="An exercise with a long title " * 3)
    records = [candidate(1000 + e, s, f"model-{m}", feedback(("Criterion", "different " * 60, 0.0)))
               for m in range(models) for e in range(exercises) for s in range(submissions)]
    write_candidates(tmp_path / "outputs" / "c.jsonl", records)
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
    gate = GateConfig(version=1, suites={"fb": suite})
    result = score_drift("fb", suite, load_drift("fb", suite, tmp_path), ScoringContext(gate, FakeRuntime(), tmp_path))
    checks = {"bertscore_f1": CheckConfig(min=0.8), "credit_drift_mean": CheckConfig(max=1.0)}
    return judge_gate("g", [judge_suite(result, checks, UnmeasuredPolicy.WARN)])


def fitted(verdict, limit):
    return fit_markdown(verdict, RUN, ReportConfig(worst_items=100), {}, limit, "`gate-report/report.md`")


def test_small_reports_are_complete(tmp_path):
    result = fitted(big_verdict(tmp_path, exercises=1, submissions=2, models=1), sizing.GITHUB_TEXT_LIMIT)
    assert result.detail == sizing.FULL_DETAIL and "Shortened" not in result.text


def test_large_reports_drop_details_then_tables_and_say_so(tmp_path):
    verdict = big_verdict(tmp_path)
    full = render_markdown(verdict, RUN, ReportConfig(worst_items=100))
    assert len(full) > sizing.GITHUB_TEXT_LIMIT
    result = fitted(verdict, sizing.GITHUB_TEXT_LIMIT)
    assert len(result.text) <= sizing.GITHUB_TEXT_LIMIT and result.detail < sizing.FULL_DETAIL
    assert "Shortened to fit GitHub's 65,536-character limit" in result.text
    assert "the item details" in result.text and "`gate-report/report.md`" in result.text
    assert result.text.startswith("## ❌ g: failed")
    assert result.text.count("<details") == result.text.count("</details>")
    assert result.text.count("<table>") == result.text.count("</table>")


def test_each_level_is_smaller_and_the_summary_survives(tmp_path):
    verdict = big_verdict(tmp_path, exercises=10, submissions=4, models=3)
    # level 1 without its group rows: with all of them it is level 2 with a gate-level table for the per-suite ones
    sizes = [len(render_markdown(verdict, RUN, ReportConfig(worst_items=100), detail=d, groups=0 if d == 1 else None))
             for d in (3, 2, 1, 0)]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 4
    summary = render_markdown(verdict, RUN, ReportConfig(), detail=0, cut_note=sizing.cut_note(0, "x"))
    assert "| fb | drift | ❌ failed |" in summary and "### " not in summary


def test_truncation_is_the_last_resort(tmp_path):
    verdict = big_verdict(tmp_path, exercises=2, submissions=2, models=1)
    result = fitted(verdict, 300)
    assert result.truncated and len(result.text) <= 300 and "truncated to 300 characters" in result.text
