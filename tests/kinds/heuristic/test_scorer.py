"""The heuristic suite: rubric files, loading, missing-data analysis, statistics and the seed's exports."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from gate.config import GateConfig
from gate.config.loader import parse_config
from gate.errors import ConfigError, InputError
from gate.kinds import KINDS
from gate.kinds.base import ScoringContext
from gate.kinds.heuristic import Slot, score_heuristic
from gate.kinds.heuristic.config import ExpectedResponses, HeuristicSuiteConfig
from gate.kinds.heuristic.records import load_heuristic
from gate.kinds.heuristic.rubric import load_rubric
from gate.kinds.heuristic.rules import score_response
from tests.support.fake_runtime import FakeRuntime

CODE = 'def add(a, b):\n    """Add."""\n    return a + b\n'
ROWS = [
    {"model": "a", "category": "coding", "prompt_id": "C01", "response": CODE},
    {"model": "a", "category": "coding", "prompt_id": "C02", "response": "Use a loop."},
    {"model": "a", "category": "paraphrasing", "prompt_id": "P08", "response": "Dear Sir, thanks. Regards"},
    {"model": "b", "category": "coding", "prompt_id": "C01", "response": ""},
]


def score(tmp_path, rows=ROWS, **suite_fields):
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = HeuristicSuiteConfig(kind="heuristic", records=["r.jsonl"], **suite_fields)
    data = load_heuristic("h", suite, tmp_path)
    gate = GateConfig(version=1, suites={"h": suite})
    return score_heuristic("h", suite, data, ScoringContext(gate, FakeRuntime(), tmp_path)), data


def test_per_response_scores_are_the_rules(tmp_path):
    result, data = score(tmp_path)
    items = {tuple(v for _, v in i.key): i.values for i in result.items}
    expected = score_response(data.rubric, "coding", CODE, "C01")
    assert items[("a", "coding", "C01")]["final_score"] == expected.final_score
    assert items[("a", "coding", "C01")]["correctness"] == expected.metrics["correctness"]
    assert items[("b", "coding", "C01")]["empty"] is True
    assert "function definition (+1.5)" in items[("a", "coding", "C01")]["indicators"]
    assert result.item_columns[:3] == ("model", "category", "prompt_id")


def test_group_statistics_use_sample_std(tmp_path):
    result, data = score(tmp_path)
    group = next(g for g in result.groups_at("group") if dict(g.key) == {"model": "a", "category": "coding"})
    finals = [score_response(data.rubric, "coding", r["response"], r["prompt_id"]).final_score for r in ROWS[:2]]
    m = group.metrics
    assert m["final_score_mean"] == pytest.approx(statistics.mean(finals))
    assert m["final_score_median"] == pytest.approx(statistics.median(finals))
    assert m["final_score_std"] == pytest.approx(statistics.stdev(finals))
    assert (m["final_score_min"], m["final_score_max"]) == (min(finals), max(finals))
    assert m["responses"] == 2
    one = next(g for g in result.groups_at("group") if dict(g.key) == {"model": "b", "category": "coding"})
    assert one.metrics["final_score_std"] is None  # one response has no sample std
    assert result.unmeasured_reason(one.key, "final_score_std") == "needs two or more responses"


def test_missing_data_against_the_prompts_found(tmp_path):
    result, _ = score(tmp_path)
    groups = {tuple(v for _, v in g.key): g.metrics for g in result.groups_at("group")}
    # b answered C01 only: C02 (found for a) is missing, and all of paraphrasing
    assert groups[("b", "coding")]["missing_ratio"] == 0.5
    assert groups[("b", "coding")]["empty_ratio"] == 0.5
    assert groups[("b", "paraphrasing")]["missing_ratio"] == 1.0
    assert groups[("b", "paraphrasing")]["final_score_mean"] is None
    assert {(m.model, m.prompt_id) for m in result.details.missing} == {("b", "C02"), ("b", "P08")}
    assert result.details.empty == (Slot(model="b", category="coding", prompt_id="C01"),)
    model_b = next(g for g in result.groups_at("model") if dict(g.key) == {"model": "b"})
    assert model_b.metrics["missing_ratio"] == pytest.approx(2 / 3)


def test_expected_matrix_from_config(tmp_path):
    expected = ExpectedResponses(models=["a", "b", "c"], prompts={"coding": ["C01", "C02", "C03"], "paraphrasing": 30})
    result, _ = score(tmp_path, expected=expected)
    groups = {tuple(v for _, v in g.key): g.metrics for g in result.groups_at("group")}
    assert groups[("a", "coding")]["missing_ratio"] == pytest.approx(1 / 3)
    assert groups[("a", "paraphrasing")]["missing_ratio"] == pytest.approx(29 / 30)  # a count: how many, not which
    assert groups[("c", "coding")]["missing_ratio"] == 1.0 and groups[("c", "coding")]["responses"] == 0
    assert result.details.settings.expected == {"coding": 3, "paraphrasing": 30}


def test_input_problems(tmp_path):
    rows = [*ROWS, {"model": "a", "category": "coding", "prompt_id": "C01", "response": "again"},
            {"model": "a", "category": "codng", "prompt_id": "C09", "response": "x"},
            {"model": "a", "category": "coding", "response": "no prompt id"}]
    with pytest.raises(InputError) as caught:
        score(tmp_path, rows)
    rendered = "\n".join(p.render() for p in caught.value.problems)
    assert "r.jsonl:5" in rendered and "'C01' again for a" in rendered
    assert "r.jsonl:6" in rendered and "did you mean 'coding'?" in rendered
    assert "r.jsonl:7" in rendered and "prompt_id" in rendered


def test_empty_cells_in_a_workbook(in_tmp):
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["model", "category", "prompt_id", "prompt", "response"])
    book.active.append(["m", "coding", "C01", None, None])  # an empty response, no prompt
    book.save(in_tmp / "r.xlsx")
    data = load_heuristic("h", HeuristicSuiteConfig(kind="heuristic", records=["r.xlsx"]), in_tmp)
    assert data.records[0].response == "" and data.records[0].prompt is None


def test_exports_workbook_and_text_report(tmp_path):
    from openpyxl import load_workbook

    from gate.config import ReportConfig, UnmeasuredPolicy
    from gate.judge import judge_gate, judge_suite
    from gate.kinds.heuristic import DEFAULT_CHECKS
    from gate.report import context, write

    result, _ = score(tmp_path)
    verdict = judge_gate("g", [judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN)])
    out = tmp_path / "out"
    write(verdict, context.RunInfo(generated_at="2026-11-22T00:00:00+00:00", output_dir="out"), ReportConfig(), out)
    book = load_workbook(out / "h" / "records.xlsx")
    assert book.sheetnames == ["records", "summary", "ranking", "missing"]
    assert [c.value for c in book["records"][1]][:3] == ["model", "category", "prompt_id"]
    assert book["records"].max_row == 1 + len(ROWS)
    # b coding: C01 and C02 expected (the ids found), C01 answered (empty); b paraphrasing: P08 expected, none found
    assert [[c.value for c in row] for row in book["missing"].iter_rows(min_row=2)] == [
        ["b", "coding", "C02", "missing", 2, 1, 1], ["b", "paraphrasing", "P08", "missing", 1, 0, 1],
        ["b", "coding", "C01", "empty", None, None, None]]
    text = (out / "h" / "comprehensive_analysis_report.txt").read_text()
    assert "COMPREHENSIVE LLM EVALUATION ANALYSIS REPORT" in text
    assert "Total responses expected: 6" in text and "Missing: 2   Empty: 1" in text
    assert "coding: 1. a (" in text


def write_rubric(tmp_path: Path, text: str) -> Path:
    (tmp_path / "rubric.yml").write_text(text)
    return tmp_path


RUBRIC = """\
version: 1
name: mine
categories:
  summary:
    metrics:
      brevity:
        weight: 0.5
        base: 5
        indicators:
          - {label: short, when: {feature: word_count, le: 20}, points: 3}
      clarity:
        weight: 0.5
        base: 5
        indicators:
          - label: sentences
            first_of:
              - {label: many, when: {feature: sentence_count, ge: 3}, points: 2}
              - {label: some, when: {feature: sentence_count, ge: 2}, points: 1}
"""


def test_a_custom_rubric_scores_and_its_metrics_can_be_checked(tmp_path):
    rubric = load_rubric("rubric.yml", write_rubric(tmp_path, RUBRIC), "f")
    scored = score_response(rubric, "summary", "One. Two. Three.", "S1")
    assert scored.metrics == {"brevity": 8.0, "clarity": 7.0} and scored.final_score == 7.5
    config = parse_config("version: 1\nsuites:\n  h:\n    kind: heuristic\n    records: r.jsonl\n"
                          "    rubric: rubric.yml\n    checks:\n      brevity_mean: {min: 6}\n", metrics=KINDS)
    assert config.suites["h"].checks["brevity_mean"].min == 6


@pytest.mark.parametrize("old, new, field, message", [
    ("weight: 0.5\n        base: 5\n        indicators:\n          - {label: short",
     "weight: 0.6\n        base: 5\n        indicators:\n          - {label: short", "categories.summary",
     "metric weights that sum to 1, found brevity: 0.6, clarity: 0.5 (sum 1.1)"),
    ("feature: word_count, le: 20", "feature: words, le: 20",
     "categories.summary.metrics.brevity.indicators.0.when.0.feature", "word_count"),
    ("              - {label: some, when: {feature: sentence_count, ge: 2}, points: 1}\n", "", "first_of",
     "at least 2"),
    ("{label: short, when: {feature: word_count, le: 20}, points: 3}", "{label: short, points: 3}",
     "categories.summary.metrics.brevity.indicators.0", "found indicator 'short' with `points` only"),
])
def test_rubric_files_are_validated_with_lines(tmp_path, old, new, field, message):
    assert old in RUBRIC
    with pytest.raises(ConfigError) as caught:
        load_rubric("rubric.yml", write_rubric(tmp_path, RUBRIC.replace(old, new)), "suites.h.rubric")
    [problem] = caught.value.problems
    assert field in problem.field and problem.line is not None
    assert message in problem.render()


def test_unknown_rubric_lists_the_packaged_ones(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_rubric("nope", tmp_path, "suites.h.rubric")
    assert "seed-v1" in caught.value.problems[0].expected


def write_report(tmp_path, result):
    from gate.config import ReportConfig, UnmeasuredPolicy
    from gate.judge import judge_gate, judge_suite
    from gate.kinds.heuristic import DEFAULT_CHECKS
    from gate.report import context, write

    verdict = judge_gate("g", [judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN)])
    out = tmp_path / "out"
    write(verdict, context.RunInfo(generated_at="2026-11-22T00:00:00+00:00", output_dir="out"), ReportConfig(), out)
    return out


def test_missing_responses_are_counted_when_expected_gives_only_counts(tmp_path):
    """The seed's matrix, 3 models x 2 categories x 30 prompts = 180, with `expected` as counts and 12 responses
    absent: every report says 12 missing, and the workbook lists the short (model, category) slots."""
    from openpyxl import load_workbook

    absent = {("b", "coding"): {3, 9, 17, 25, 26}, ("c", "paraphrasing"): {1, 2, 4, 8, 16, 23, 30}}
    rows = [{"model": m, "category": c, "prompt_id": f"{c[0].upper()}{i:02d}", "response": "Some answer text."}
            for m in "abc" for c in ("coding", "paraphrasing") for i in range(1, 31)
            if i not in absent.get((m, c), set())]
    assert len(rows) == 180 - 12
    result, _ = score(tmp_path, rows, expected=ExpectedResponses(prompts={"coding": 30, "paraphrasing": 30}))
    assert any(n.startswith("Missing-data analysis: 12 expected response(s) missing, 0 empty (of 180 expected)")
               for n in result.notes)
    out = write_report(tmp_path, result)
    text = (out / "h" / "comprehensive_analysis_report.txt").read_text()
    assert "Expected: 180   Received: 168   Missing: 12   Empty: 0" in text
    assert "missing  b / coding: 5 of 30 (found 25; prompt ids unknown" in text
    assert "missing  c / paraphrasing: 7 of 30 (found 23; prompt ids unknown" in text
    report = (out / "report.md").read_text()
    assert "**Missing data:** 12 missing" in report
    assert "b · coding: 5 of 30" in report and "c · paraphrasing: 7 of 30" in report
    sheet = load_workbook(out / "h" / "records.xlsx")["missing"]
    assert [c.value for c in sheet[1]] == ["model", "category", "prompt_id", "problem", "expected", "found",
                                           "missing"]
    listed = {(r[0], r[1]): r[4:] for r in sheet.iter_rows(min_row=2, values_only=True)}
    assert listed == {k: (30, 30 - len(v), len(v)) for k, v in absent.items()}
    assert sum(r[6] for r in sheet.iter_rows(min_row=2, values_only=True)) == 12


def test_items_csv_carries_the_record_id_first(tmp_path):
    import csv

    rows = [{**r, "id": f"r{i}"} for i, r in enumerate(ROWS)]
    result, _ = score(tmp_path, rows)
    assert result.item_columns[:4] == ("id", "model", "category", "prompt_id")
    out = write_report(tmp_path, result)
    with open(out / "h" / "items.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert list(table[0])[0] == "id"
    assert [(t["id"], t["model"], t["prompt_id"]) for t in table] == [
        (f"r{i}", r["model"], r["prompt_id"]) for i, r in enumerate(ROWS)]


@pytest.mark.parametrize("metrics", [["brevity", "clarity"], ["correctness", "efficiency", "readability"]])
def test_the_checkable_names_the_loader_knows_are_the_metrics_the_scorer_describes(metrics):
    """gate/config checks gate.yml's checks against `suite_metric_names` without importing the scorer; the list
    must be exactly the scorer's catalogue, or a valid check is refused (or a typo passes) before scoring."""
    from gate.kinds.heuristic.catalogue import _catalogue
    from gate.kinds.heuristic.rubric import suite_metric_names

    names = suite_metric_names(metrics)
    assert names == list(_catalogue(metrics))
    assert len(names) == (len(metrics) + 1) * 5 + 3 and "final_score_std" in names and names[-1] == "empty_ratio"
