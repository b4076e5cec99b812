"""What `make_bundle` puts in publish.json: the texts fitted to GitHub's limits (the summary's and the comment's)
and what the run posts under (`publish_identity`)."""

from __future__ import annotations

import dataclasses

import pytest

import gate.report as report_module
from gate.config import GateConfig, PublishConfig
from gate.config.settings import Settings
from gate.judge import CheckVerdict
from gate.kinds.drift.config import DriftSuiteConfig
from gate.publish.bundle import PublishIdentity, Target
from gate.report import context, fit_markdown, sizing
from gate.steps import output
from gate.steps.output import make_bundle, publish_identity
from tests.report.verdict_fixtures import gate, group_check, judged, stability_result

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report")
WHERE = "`gate-report/report.md`"  # what make_bundle names as the full report for a run without a run URL
SETTINGS = Settings.from_env({}, config="gate.yml")


def config(**publish) -> GateConfig:
    return GateConfig(version=1, name="quality", publish=PublishConfig(**publish), suites={
        "stab": DriftSuiteConfig(kind="drift", baseline=["b/*.json"], candidates=["c/*.jsonl"])})


def failing_gate(models: int, tasks: int, failing: int):
    result = stability_result("stab", models=models, tasks=tasks, items=models * tasks * 2)
    return gate(judged(result, [group_check(result, i, CheckVerdict.FAIL) for i in range(failing)]))


def two_fits(verdict) -> tuple[str, str]:
    """What make_bundle did before it reused one fit: each text fitted to its own limit, independently."""
    return tuple(fit_markdown(verdict, RUN, config().report, {}, limit, WHERE).text  # type: ignore[return-value]
                 for limit in (output.SUMMARY_LIMIT, sizing.GITHUB_TEXT_LIMIT - output.COMMENT_OVERHEAD))


@pytest.fixture
def fits(monkeypatch) -> list[int]:
    """The limits `report.fit_markdown` is asked to fit, in order."""
    asked: list[int] = []
    real = report_module.fit_markdown

    def counting(*args):
        asked.append(args[4])
        return real(*args)
    monkeypatch.setattr(report_module, "fit_markdown", counting)
    return asked


def test_a_report_within_the_comments_limit_is_fitted_once_for_both_texts(fits):
    small = failing_gate(2, 3, 2)
    expected = two_fits(small)
    fits.clear()
    bundle = make_bundle(small, RUN, config(), {}, SETTINGS, Target(None, None))
    assert (bundle.summary, bundle.comment) == expected and bundle.summary == bundle.comment
    assert fits == [output.SUMMARY_LIMIT]  # one fit serves both


def test_a_report_too_long_for_either_is_fitted_to_each_limit_as_before(fits):
    large = failing_gate(20, 60, 1200)  # ~130,000 characters in full: both texts are cut, each to its own limit
    expected = two_fits(large)
    fits.clear()
    bundle = make_bundle(large, RUN, config(), {}, SETTINGS, Target(None, None))
    assert (bundle.summary, bundle.comment) == expected
    assert len(bundle.comment) <= sizing.GITHUB_TEXT_LIMIT - output.COMMENT_OVERHEAD
    assert len(bundle.summary.encode()) <= output.SUMMARY_LIMIT.size  # the summary in bytes, as GitHub counts it
    assert fits == [output.SUMMARY_LIMIT, sizing.GITHUB_TEXT_LIMIT - output.COMMENT_OVERHEAD]


def test_a_summary_between_the_two_limits_is_not_reused_as_the_comment(fits, monkeypatch):
    """The full report fits the summary's limit but is one character too long for the comment's: the comment is
    fitted again (shortened), the summary stays whole."""
    small = failing_gate(2, 3, 2)
    whole = fit_markdown(small, RUN, config().report, {}, sizing.GITHUB_TEXT_LIMIT - 1, WHERE).text
    monkeypatch.setattr(output, "COMMENT_OVERHEAD", sizing.GITHUB_TEXT_LIMIT - len(whole) + 1)
    expected = two_fits(small)
    bundle = make_bundle(small, RUN, config(), {}, SETTINGS, Target(None, None))
    assert (bundle.summary, bundle.comment) == expected
    assert bundle.summary == whole and len(bundle.comment) < len(whole)
    assert "Shortened to fit" in bundle.comment


def test_the_workflow_names_over_gate_yml_over_the_name_derived_from_the_filter():
    verdict = failing_gate(1, 1, 1)
    filtered = dataclasses.replace(SETTINGS, suites=("stab",))
    assert publish_identity(verdict, config(), SETTINGS) == PublishIdentity("quality", "quality", "full")
    assert publish_identity(verdict, config(), filtered) == PublishIdentity(
        "quality (suites: stab)", "quality (suites: stab)", "filtered")
    named = config(check_name="llm quality", comment_title="LLM report")
    assert publish_identity(verdict, named, filtered) == PublishIdentity("llm quality", "LLM report", "filtered")
    pinned = dataclasses.replace(filtered, check_name="pinned", comment_title="pinned title")
    assert publish_identity(verdict, named, pinned) == PublishIdentity("pinned", "pinned title", "filtered")
    bundle = make_bundle(verdict, RUN, named, {}, pinned, Target(None, None))
    assert (bundle.check_name, bundle.comment_title, bundle.scope) == ("pinned", "pinned title", "filtered")
    skipped = make_bundle(gate(), RUN, config(), {}, filtered, Target(None, None))
    assert (skipped.check_name, skipped.scope) == ("quality", "skipped")
