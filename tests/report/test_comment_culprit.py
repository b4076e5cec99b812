"""Issue 21, item 4: the comment names the culprit at any size.

Before: a 9,000-item drift gate became a comment with no model named, no per-model table and (where the checks
were on models) about 1,000 characters — 98 % of GitHub's budget unused — because the per-group tables went
first and took the per-model table with them. Now the report degrades by level (items → groups → per-model
rows → suite rows), fills the space at the level it stops at, and keeps the failing checks and the per-model
verdicts to the end.
"""

from __future__ import annotations

import re

import pytest

from gate.config import CheckConfig, GateConfig, ReportConfig, UnmeasuredPolicy
from gate.judge import judge_gate, judge_suite
from gate.kinds.base import ScoringContext
from gate.kinds.drift import score_drift
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import load_drift
from gate.report import context, fit_markdown, sizing
from gate.steps.output import COMMENT_OVERHEAD
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime

RUN = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir="gate-report")
LIMIT = sizing.GITHUB_TEXT_LIMIT - COMMENT_OVERHEAD
GOOD = feedback(("Criterion", "the answer is correct and complete", 2.0))
BAD = feedback(("Criterion", "something else entirely", 0.0))  # FakeRuntime: F1 0.5, credit drift 2


def drift_gate(root, exercises: int, submissions: int, models: list[str], failing: set[str], scope: str = "group"):
    """A judged drift gate without a model: the failing models' feedback differs from the baseline's."""
    for e in range(exercises):
        write_exercise(root / "baselines", 1000 + e, [submission(s, GOOD) for s in range(submissions)],
                       title=f"Exercise {e}")
    write_candidates(root / "outputs" / "c.jsonl", [
        candidate(1000 + e, s, m, BAD if m in failing else GOOD)
        for m in models for e in range(exercises) for s in range(submissions)])
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
    gate = GateConfig(version=1, suites={"fb": suite})
    result = score_drift("fb", suite, load_drift("fb", suite, root), ScoringContext(gate, FakeRuntime(), root))
    checks = {"bertscore_f1": CheckConfig(min=0.8, scope=scope), "credit_drift_mean": CheckConfig(max=1.0, scope=scope)}
    return judge_gate("g", [judge_suite(result, checks, UnmeasuredPolicy.WARN)])


def comment(verdict) -> sizing.Fitted:
    return fit_markdown(verdict, RUN, ReportConfig(), {}, LIMIT, "`gate-report/report.md`")


def per_model_rows(text: str) -> list[list[str]]:
    """The body rows of the suite's per-model table, cell by cell."""
    block = text[text.index("**❌ fb: per-model verdicts**"):].split("\n\n")[1].splitlines()
    assert block[0].startswith("| Model | Verdict |") and set(block[1]) <= set("|-")
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in block[2:]]


MODELS = [f"model-{m}" for m in range(5)]


@pytest.fixture(scope="module")
def failing_groups(tmp_path_factory):
    """9,000 items: 900 exercises × 2 submissions × 5 models, model-3 fails every exercise (1,800 failing checks)."""
    return drift_gate(tmp_path_factory.mktemp("groups"), 900, 2, MODELS, {"model-3"})


@pytest.fixture(scope="module")
def failing_model(tmp_path_factory):
    """9,000 items: 1,800 exercises × 1 submission × 5 models, checks on each model: two failing checks in all."""
    return drift_gate(tmp_path_factory.mktemp("models"), 1800, 1, MODELS, {"model-3"}, scope="model")


def test_many_failing_groups_keep_the_per_model_verdicts_and_the_failing_checks(failing_groups):
    fitted = comment(failing_groups)
    text = fitted.text
    assert len(text) <= LIMIT and not fitted.truncated and fitted.detail == 0
    assert text.startswith("## ❌ g: failed\n")
    rows = per_model_rows(text)
    assert len(rows) == 5 and rows[0][:2] == ["model-3", "❌ failed"]  # the culprit first, with its verdict
    assert rows[0][2:] == ["0.500", "2.00", "900/900"] and all(r[1] == "✅ passed" for r in rows[1:])
    assert ("| ❌ | fb | `bertscore_f1` | exercise 1000, model model-3 | 0.500 | ≥ 0.8 | "
            "bertscore&#95;f1 = 0.5 &lt; min 0.8 |") in text  # the Why column says why
    shown = text.count("| ❌ | fb |")
    assert shown == fitted.rows and f"… and {1800 - shown:,} more failing checks: all in report.json" in text
    assert len(text) >= LIMIT // 2  # the space is used: the failing checks fill it
    assert "(each suite's per-model verdicts stay)" in text


def test_checks_on_models_fill_the_comment_with_the_groups_that_fit(failing_model):
    """Today's code: ~1,000 characters, no model named. Now: every model row and as many exercise rows as fit."""
    fitted = comment(failing_model)
    text = fitted.text
    assert len(text) <= LIMIT and not fitted.truncated
    assert fitted.detail == 1 and fitted.groups is not None and 0 < fitted.groups < 1800
    assert len(text) >= LIMIT // 2, f"{len(text):,} characters of {LIMIT:,}"
    # the failing checks: the two model-level checks of model-3
    assert "| ❌ | fb | `bertscore_f1` | model model-3 | 0.500 | ≥ 0.8 | bertscore&#95;f1 = 0.5 &lt; min 0.8 |" in text
    assert ("| ❌ | fb | `credit_drift_mean` | model model-3 | 2.00 | ≤ 1 | "
            "credit&#95;drift&#95;mean = 2 &gt; max 1 |") in text
    # the drift suite's own per-model table, every model, the culprit failed
    assert re.search(r"^\| model-3 \| ❌ \| 0\.500 \|", text, re.M)
    assert all(re.search(rf"^\| {m} \| ", text, re.M) for m in MODELS)
    # the exercise rows that fit, and exactly how many did not
    kept = len(re.findall(r"^\| 1\d{3} · Exercise \d+ \|", text, re.M))
    assert kept == fitted.groups
    assert f"… and {1800 - kept:,} more exercises (none failing): all in report.json" in text
    assert f"the per-group tables are cut to their first {kept:,} rows (failing first)" in text
    one_more = fit_markdown_at(failing_model, groups=kept + 1)
    assert len(one_more) > LIMIT  # the most that fit


def fit_markdown_at(verdict, **cut) -> str:
    from gate.report import render_markdown

    note = sizing.cut_note(sizing.Cut(1, **cut), "`gate-report/report.md`")
    return render_markdown(verdict, RUN, ReportConfig(), detail=1, cut_note=note, footer=False, **cut)


def test_thousands_of_models_are_cut_last_failing_models_first(tmp_path):
    models = [f"m{m:04d}" for m in range(3000)]
    failing = {"m0007", "m1500", "m2999"}
    fitted = comment(drift_gate(tmp_path, 1, 1, models, failing))
    text = fitted.text
    assert len(text) <= LIMIT and not fitted.truncated and fitted.detail == 0
    rows = per_model_rows(text)
    assert fitted.models == len(rows) and 100 < len(rows) < 3000
    assert [r[0] for r in rows[:3]] == ["m0007", "m1500", "m2999"] and {r[1] for r in rows[:3]} == {"❌ failed"}
    assert all(r[1] == "✅ passed" for r in rows[3:])
    assert f"… and {3000 - len(rows):,} more models (none failing): all in report.json" in text
    assert f"the per-model tables are cut to their first {len(rows):,} rows (failing first)" in text
    # the failing checks stay too: 3 models × 2 metrics, under the rows kept before any model row goes
    assert text.count("| ❌ | fb |") == 6 and "more failing checks" not in text
