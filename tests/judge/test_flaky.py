"""Flaky items (issue 35, item 2): items whose samples straddle a check's bound, listed with their spread in
items.csv, report.json and the comment. Counts and spreads are checked against numpy and `statistics.stdev` over
the draws written in the test, never against the module's own arithmetic."""

from __future__ import annotations

import csv
import statistics as pystats

import numpy as np
import pytest

from gate.config import CheckConfig, ReportConfig, UnmeasuredPolicy
from gate.judge import Op, judge_gate, judge_suite
from gate.judge.items import flaky_items, item_criteria
from gate.kinds.samples import collapse
from gate.report import context, render_markdown, write
from gate.report.json_report import report_json
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import statistics
from tests.report.verdict_fixtures import stability_result

# item id -> its five draws of `score`; the check is score_mean ≥ 0.5 per group
DRAWS = {"a": [0.9, 0.8, 0.95, 0.85, 0.9],   # always meets: not flaky
         "b": [0.6, 0.4, 0.55, 0.3, 0.7],    # 3 of 5 meet
         "c": [0.1, 0.2, 0.5, 0.3, 0.0],     # 1 of 5 meets (0.5 is on the bound: it meets)
         "d": [0.2, 0.1, 0.3, 0.2, 0.1]}     # never meets: failing, not flaky


def sampled() -> SuiteResult:
    items = tuple(Item((("id", i), ("model", "m"), ("sample", str(s))), {"score": v})
                  for i, draws in DRAWS.items() for s, v in enumerate(draws))
    mean = float(np.mean([v for d in DRAWS.values() for v in d]))
    return SuiteResult("s", "stability", {"score_mean": mean}, (GroupResult("group", (("model", "m"),),
                       {"score_mean": mean}, len(items)),), items, ("id", "model", "sample", "score"),
                       details=stability_result("s", 1, 1, 1).details)  # any kind's view renders it


def statistic_of(metric: str):
    return statistics.mean("score") if metric == "score_mean" else None


CHECKS = {"score_mean": CheckConfig(min=0.5)}


def test_collapse_keeps_each_items_draws():
    merged = collapse(sampled(), statistic_of)
    for item in merged.items:
        assert item.draw_values["score"] == tuple(DRAWS[dict(item.key)["id"]])
        assert item.values["score"] == pytest.approx(np.mean(DRAWS[dict(item.key)["id"]]))


def test_flaky_items_are_those_whose_draws_straddle_the_bound():
    merged = collapse(sampled(), statistic_of)
    found = flaky_items(merged, item_criteria(CHECKS, statistic_of))
    assert [dict(f.key)["id"] for f in found] == ["b", "c"]  # 3/5 is closer to a coin flip than 1/5
    for f in found:
        draws = np.array(DRAWS[dict(f.key)["id"]])
        assert (f.met, f.draws) == (int((draws >= 0.5).sum()), 5)
        assert (f.low, f.high) == (draws.min(), draws.max())
        assert f.sd == pytest.approx(pystats.stdev(draws.tolist()), rel=1e-12)
        assert (f.metric, f.column, f.op, f.bound) == ("score_mean", "score", Op.MIN, 0.5)
    upper = flaky_items(merged, item_criteria({"score_mean": CheckConfig(max=0.25)}, statistic_of))
    assert {dict(f.key)["id"]: f.met for f in upper} == {"c": 3, "d": 4}  # draws ≤ 0.25


def test_without_samples_or_a_mean_metric_nothing_is_flaky():
    plain = SuiteResult("s", "heuristic", {}, (), (Item((("id", "a"),), {"score": 0.5}),), ("id", "score"))
    assert flaky_items(plain, item_criteria(CHECKS, statistic_of)) == ()
    assert item_criteria({"score_std": CheckConfig(max=0.1)}, lambda m: statistics.std("score")) == []


def test_flaky_items_reach_report_json_items_csv_and_the_comment(tmp_path):
    merged = collapse(sampled(), statistic_of)
    suite = judge_suite(merged, CHECKS, UnmeasuredPolicy.WARN, statistic_of=statistic_of)
    gate = judge_gate("g", [suite])
    data = report_json(gate, "2026-11-22T10:00:00+00:00", None)
    flaky = data["suites"][0]["flaky"]
    assert flaky["count"] == 2 and flaky["items"][0] == {
        "key": {"id": "b", "model": "m"}, "metric": "score_mean", "column": "score", "op": "min", "bound": 0.5,
        "met": 3, "draws": 5, "min": 0.3, "max": 0.7, "sd": pytest.approx(pystats.stdev(DRAWS["b"]))}
    run = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir=str(tmp_path))
    text = render_markdown(gate, run, ReportConfig())
    assert "**🎲 2 flaky items**: their samples straddle a check's bound" in text
    assert "| id b, model m | `score ≥ 0.5` | 3 of 5 | 0.3 – 0.7 |" in text
    write(gate, run, ReportConfig(formats=["json"]), tmp_path)
    with open(tmp_path / "s" / "items.csv", newline="") as f:
        rows = {r["id"]: r["flaky"] for r in csv.DictReader(f)}
    assert rows == {"a": "", "b": "score ≥ 0.5: 3/5 draws", "c": "score ≥ 0.5: 1/5 draws", "d": ""}
