"""Every drift group value is reproducible from the group's rows of items.csv, by the formulas docs/suites/drift.md
states (issue 35, item 10): in `credit_drift_mode: item` with samples the group max was the mean of an item's
generation peaks, a column items.csv did not list (group max 1.75 beside items all ≤ 1.40).

The references are numpy over the CSV's rows as read back, and the positional differences worked out here from the
credits below; no gate code computes an expected value."""

from __future__ import annotations

import csv
import math
from functools import partial

import numpy as np
import pytest

from gate import io
from gate.config import GateConfig
from gate.kinds.base import ScoringContext
from gate.kinds.drift import DRIFT, score_drift
from gate.kinds.drift.config import CreditDriftMode, DriftSuiteConfig
from gate.kinds.drift.records import load_drift
from gate.kinds.samples import collapse
from gate.report import item_rows
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime

BASE = (2.0, 1.0, 0.5)  # every submission's baseline credits
# (model, submission) -> each generation's candidate credits; positional pairs are trimmed to the shorter list
DRAWS = {
    ("m", 1): [(0.0, 1.0, 0.5), (0.5, 1.0, 0.5)],            # differences (2, 0, 0) and (1.5, 0, 0)
    ("m", 2): [(1.0, 1.0), (1.5, 1.0, 0.5, 3.0)],            # (1, 0) and (0.5, 0, 0)
    ("m", 3): [(), (2.0, 0.25)],                             # none (no items), and (0, 0.75)
    ("n", 1): [(2.0, 1.0, 0.5), (2.0, 3.0, 0.5)],            # (0, 0, 0) and (0, 2, 0)
    ("n", 2): [(0.0,), (0.25, 0.0)],                         # (2,) and (1.75, 1)
}


def differences(credits: tuple[float, ...]) -> list[float]:
    return [abs(b - c) for b, c in zip(BASE, credits, strict=False)]


def score(directory, mode: CreditDriftMode, samples: bool):
    write_exercise(directory / "baselines", 7, [submission(s, feedback(*[(f"b{i}", f"d{i}", c)
                                                                         for i, c in enumerate(BASE)]))
                                                 for s in (1, 2, 3)])
    records = []
    for (model, sub), draws in DRAWS.items():
        for k, credits in enumerate(draws if samples else draws[1:]):
            record = candidate(7, sub, model, feedback(*[(f"t{i}", f"x{i}", c) for i, c in enumerate(credits)]))
            records.append(record | {"sample": k} if samples else record)
    write_candidates(directory / "outputs" / "c.jsonl", records)
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"],
                             credit_drift_mode=mode)
    context = ScoringContext(GateConfig(version=1, suites={"fb": suite}), FakeRuntime(), directory)
    result = score_drift("fb", suite, load_drift("fb", suite, directory), context)
    # as the run does (gate.steps.suites): the generations of a submission become one item
    return collapse(result, partial(DRIFT.statistic, suite, columns=result.value_names()))


def items_csv(directory, result) -> list[dict[str, str]]:
    path = directory / "items.csv"
    io.write_csv_atomic(path, result.item_columns, item_rows(result))  # what gate.report writes
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def column(rows: list[dict[str, str]], name: str) -> np.ndarray:
    return np.array([float(r[name]) for r in rows])


def pooled_from_rows(rows: list[dict[str, str]]) -> tuple[float, float, float]:
    """The docs' formula: N = Σ n, mean = Σ n·m / N, std = √((Σ ss + Σ n·(m − mean)²) / N), max = max peak."""
    rows = [r for r in rows if r["credit_drift"] != ""]
    n, m = column(rows, "credit_drift_count"), column(rows, "credit_drift")
    ss, peak = column(rows, "credit_drift_ss"), column(rows, "credit_drift_peak")
    mean = float(np.sum(n * m) / np.sum(n))
    return mean, math.sqrt((np.sum(ss) + np.sum(n * (m - mean) ** 2)) / np.sum(n)), float(np.max(peak))


def groups_of(result) -> dict:
    return {tuple(v for _, v in g.key): g.metrics for g in result.groups}


@pytest.mark.parametrize("samples", [True, False], ids=["samples", "one-generation"])
def test_item_mode_group_values_are_the_formula_over_the_items_csv_rows(tmp_path, samples):
    result = score(tmp_path, CreditDriftMode.ITEM, samples)
    rows = items_csv(tmp_path, result)
    pooled = ["credit_drift_count", "credit_drift_ss", "credit_drift_peak"]
    assert [c for c in rows[0] if c != "draws"][-3:] == pooled and ("draws" in rows[0]) is samples
    groups = groups_of(result)
    for model in ("m", "n"):
        mine = [r for r in rows if r["model"] == model]
        mean, std, peak = pooled_from_rows(mine)
        for key in (("7", model), (model,)):
            metrics = groups[key]
            assert metrics["credit_drift_mean"] == pytest.approx(mean, rel=1e-12)
            assert metrics["credit_drift_std"] == pytest.approx(std, rel=1e-12)
            assert metrics["credit_drift_max"] == pytest.approx(peak, rel=1e-12)


def test_with_samples_each_row_is_the_mean_over_the_generations_that_have_differences(tmp_path):
    """The rows themselves against the differences worked out here: count, mean, ss and peak of each generation,
    averaged over the item's generations with differences (m3's first has none)."""
    rows = items_csv(tmp_path, score(tmp_path, CreditDriftMode.ITEM, samples=True))
    for row in rows:
        generations = [d for d in map(differences, DRAWS[row["model"], int(row["submission"])]) if d]
        expect = {"credit_drift_count": np.mean([len(d) for d in generations]),
                  "credit_drift": np.mean([np.mean(d) for d in generations]),
                  "credit_drift_ss": np.mean([np.sum((np.array(d) - np.mean(d)) ** 2) for d in generations]),
                  "credit_drift_peak": np.mean([max(d) for d in generations])}
        for name, value in expect.items():
            assert float(row[name]) == pytest.approx(value, rel=1e-12, abs=1e-15), (row["submission"], name)
    m = [r for r in rows if r["model"] == "m"]
    # the issue's shape: a group max (1.75 = the mean of m1's peaks 2 and 1.5) above every item's credit_drift,
    # now found in the items' own column
    assert max(float(r["credit_drift"]) for r in m) < 1.75 == max(float(r["credit_drift_peak"]) for r in m)


def test_total_mode_group_values_are_the_mean_std_and_max_of_the_credit_drift_column(tmp_path):
    result = score(tmp_path, CreditDriftMode.TOTAL, samples=True)
    rows = items_csv(tmp_path, result)
    assert "credit_drift_count" not in rows[0]
    groups = groups_of(result)
    for model in ("m", "n"):
        drift = column([r for r in rows if r["model"] == model], "credit_drift")
        for key in (("7", model), (model,)):
            assert groups[key]["credit_drift_mean"] == pytest.approx(float(np.mean(drift)), rel=1e-12)
            assert groups[key]["credit_drift_std"] == pytest.approx(float(np.std(drift)), rel=1e-12)  # population
            assert groups[key]["credit_drift_max"] == pytest.approx(float(np.max(drift)), rel=1e-12)
