"""Every group metric recomputed from its items: a significance test resamples items and recomputes the metric
(`Kind.statistic`), so each kind's statistic must reproduce the scorer's own group values exactly. The scorers
run on small scripted inputs; each group's metrics are recomputed from the rows of all its items' values."""

from __future__ import annotations

import json
import math
import random
import statistics

import numpy as np
import pytest

from gate.config import GateConfig
from gate.config.loader import parse_config
from gate.errors import ConfigError
from gate.kinds import KINDS
from gate.kinds.base import ScoringContext
from gate.kinds.drift import score_drift
from gate.kinds.drift.config import CreditDriftMode, DriftSuiteConfig
from gate.kinds.drift.records import load_drift
from gate.kinds.heuristic import score_heuristic
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.records import load_heuristic
from gate.kinds.stability.config import StabilitySuiteConfig
from gate.kinds.stability.records import load_stability
from gate.kinds.stability.scorer import score_stability
from gate.kinds.stereotype import score_stereotype
from gate.kinds.stereotype.config import StereotypeSuiteConfig
from gate.kinds.stereotype.records import load_stereotype
from gate.stats.statistics import sample_std
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime


def rows_of(items, columns: tuple[str, ...]) -> np.ndarray:
    """One row per item, NaN where it has no value; one-column statistics get only the items with a value."""
    rows = np.array([[np.nan if i.values.get(c) is None else float(i.values[c]) for c in columns] for i in items],
                    dtype=float).reshape(-1, len(columns))
    return rows[~np.isnan(rows[:, 0])] if len(columns) == 1 else rows


def assert_recomputed(kind: str, suite, result, levels: tuple[str, ...], none: set[str], belongs=None) -> int:
    """Each metric of each group at `levels` is its statistic of the group's items (rtol 1e-9), and every metric
    outside `none` has one. Returns how many values were checked."""
    scorer = KINDS[kind]
    columns = tuple(dict.fromkeys(c for i in result.items for c, v in i.values.items()
                                  if isinstance(v, (int, float)) or v is None))
    checked = 0
    for group in (g for g in result.groups if g.level in levels):
        items = [i for i in result.items if set(group.key) <= set(i.key) and (belongs is None or belongs(group, i))]
        assert len(items) == group.n, group.key
        for metric, value in group.metrics.items():
            statistic = scorer.statistic(suite, metric, columns)
            if metric in none:
                assert statistic is None, metric
                continue
            assert statistic is not None, f"{metric} has no item statistic"
            if value is None:
                continue
            found = statistic(rows_of(items, statistic.columns))
            assert found == pytest.approx(value, rel=1e-9, abs=1e-12), (group.key, metric, statistic.name)
            checked += 1
    return checked


# ------------------------------------------------------------------------------------------------------ drift

BASE = {1: (2.0, 1.5), 2: (3.0, 0.0), 3: (1.0, 1.0, 1.0), 4: (4.0,), 5: (0.5, 0.5, 2.0, 1.0)}
CAND = {1: (2.0, 1.0), 2: (1.0,), 3: (1.0, 2.0, 1.0, 4.0), 4: (), 5: (1.5, 0.0, 2.0)}


def _fb(sub: int, credits: tuple[float, ...], who: str) -> list[dict]:
    return feedback(*[(f"{who} {sub} title {i}", f"{who} {sub} text {i}", c) for i, c in enumerate(credits)])


def score_drift_run(tmp_path, mode: CreditDriftMode):
    for exercise in (1, 2):
        write_exercise(tmp_path / "baselines", exercise, [submission(s, _fb(s, BASE[s], "base")) for s in BASE])
    records = [candidate(e, s, m, _fb(s, tuple(c + e - 1 for c in CAND[s]) if m == "bad" else CAND[s], m))
               for e in (1, 2) for m in ("good", "bad") for s in CAND if (e, s) != (2, 5)]
    write_candidates(tmp_path / "outputs" / "c.jsonl", records)
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"],
                             credit_drift_mode=mode)
    gate = GateConfig(version=1, suites={"fb": suite})
    result = score_drift("fb", suite, load_drift("fb", suite, tmp_path), ScoringContext(gate, FakeRuntime(),
                                                                                      tmp_path))
    return suite, result


@pytest.mark.parametrize("mode", list(CreditDriftMode))
def test_drift_metrics_are_recomputed_from_the_items(tmp_path, mode):
    suite, result = score_drift_run(tmp_path, mode)
    assert assert_recomputed("drift", suite, result, ("group", "model"), {"coverage"}) >= 36


def test_item_mode_pools_the_positional_differences_not_the_item_means(tmp_path):
    """Item mode: the group's mean of 6 pooled differences is 3.5 / 6, not the mean of the 3 item means (s4 has no
    candidate item, so it is unmeasured). The base's `mean of credit_drift` would give 0.86."""
    suite, result = score_drift_run(tmp_path, CreditDriftMode.ITEM)
    items = [i for i in result.items if dict(i.key)["exercise"] == "1" and dict(i.key)["model"] == "good"
             and dict(i.key)["submission"] in "123"]
    statistic = KINDS["drift"].statistic(suite, "credit_drift_mean", tuple(items[0].values))
    pooled = [0.0, 0.5, 2.0, 0.0, 1.0, 0.0]
    assert statistic(rows_of(items, statistic.columns)) == pytest.approx(np.mean(pooled), rel=1e-12)
    std = KINDS["drift"].statistic(suite, "credit_drift_std", tuple(items[0].values))
    assert std(rows_of(items, std.columns)) == pytest.approx(np.std(pooled), rel=1e-12)
    assert result.item_columns[-3:] == ("credit_drift_count", "credit_drift_ss", "credit_drift_peak")  # items.csv
    assert items[0].values["credit_drift_count"] == 2.0


# -------------------------------------------------------------------------------------------------- heuristic

CODE = 'def add(a, b):\n    """Add."""\n    return a + b\n'
RESPONSES = {
    "coding": [CODE, "Use a loop.", "```python\nfor i in range(3):\n    print(i)\n```\nThis prints numbers.",
               "I cannot help.", "def f(x):\n    return x * 2\n# doubles x", ""],
    "paraphrasing": ["Dear Sir, thanks. Regards", "The cat sat on the mat, calmly and quietly.", "ok",
                     "In other words, the meeting moved to Tuesday because the room was booked.", "Same.",
                     "He said that the report is due tomorrow; however, it may slip."],
}


def test_heuristic_metrics_are_recomputed_from_the_items(tmp_path):
    rng = random.Random(3)
    rows = [{"model": m, "category": c, "prompt_id": f"{c[0]}{k}", "response": rng.choice(texts)}
            for m in ("a", "b") for c, texts in RESPONSES.items() for k in range(7)]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = HeuristicSuiteConfig(kind="heuristic", records=["r.jsonl"])
    gate = GateConfig(version=1, suites={"h": suite})
    result = score_heuristic("h", suite, load_heuristic("h", suite, tmp_path), ScoringContext(gate, FakeRuntime(),
                                                                                            tmp_path))
    none = {"responses", "missing_ratio", "empty_ratio"}
    assert assert_recomputed("heuristic", suite, result, ("group", "model"), none) > 100


def test_sample_std_is_pandas_std_and_nan_below_two_items():
    xs = [3.0, 7.5, 1.25, 9.0]
    assert sample_std("x")(np.array(xs)[:, None]) == pytest.approx(statistics.stdev(xs), rel=1e-12)
    assert math.isnan(sample_std("x")(np.array([[2.0]])))
    resamples = np.array(xs)[np.array([[0, 1, 1, 3], [2, 2, 2, 0]])][..., None]  # (2 resamples, 4 items, 1)
    assert sample_std("x").compute(resamples) == pytest.approx([statistics.stdev(xs[i] for i in r)
                                                                for r in ([0, 1, 1, 3], [2, 2, 2, 0])])


# ---------------------------------------------------------------------------------------- stability, stereotype

VECTORS = {"a": [1.0, 0.0, 0.0], "b": [0.8, 0.6, 0.0], "c": [0.0, 1.0, 0.0], "d": [0.6, 0.0, 0.8],
           "e": [1.0, 1.0, 1.0]}


def test_stability_metrics_are_recomputed_from_the_items(tmp_path):
    rng = random.Random(5)
    rows = [{"model": m, "task": t, "question_id": f"q{q}", "response": rng.choice("abcde"), "variant_id": f"v{v}",
             "token_logprobs": [-rng.random() for _ in range(3)]}
            for m in ("m1", "m2") for t in ("t1", "t2") for q in range(5) for v in range(rng.choice((1, 3, 4)))]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = StabilitySuiteConfig(kind="stability", records=["r.jsonl"])
    gate = GateConfig(version=1, suites={"s": suite})
    result = score_stability("s", suite, load_stability("s", suite, tmp_path),
                             ScoringContext(gate, FakeRuntime(vectors=VECTORS), tmp_path))
    assert assert_recomputed("stability", suite, result, ("group", "model"), {"questions"}) > 20


def test_stereotype_metrics_are_recomputed_from_the_items(tmp_path):
    rng = random.Random(7)
    rows = [{"id": f"p{i}", "model": m, "emgsd_text": f"emgsd {i}", "trait": rng.choice(("lazy", "bad drivers")),
             "control_response": f"control {m} {i}", "bias_response": f"They are {rng.choice(('lazy', 'fine'))} {i}"}
            for m in ("m1", "m2") for i in range(12)]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    probabilities = {t: rng.random() for r in rows for t in (r["control_response"], r["bias_response"])}
    vectors = {t: [rng.random(), rng.random()] for r in rows for t in (r["emgsd_text"], r["control_response"])}
    suite = StereotypeSuiteConfig(kind="stereotype", records=["p.jsonl"])
    gate = GateConfig(version=1, suites={"s": suite})
    runtime = FakeRuntime(probabilities=probabilities, vectors=vectors)
    result = score_stereotype("s", suite, load_stereotype("s", suite, tmp_path), ScoringContext(gate, runtime,
                                                                                              tmp_path))
    none = {"paired_test_p", "n"}
    assert assert_recomputed("stereotype", suite, result, ("group", "trait"), none) > 30
    assert 0 < result.groups[0].metrics["significant_drift_rate"] < 1  # the rates are not degenerate here
    assert 0 < result.groups[0].metrics["trait_mention_rate"] < 1


# ------------------------------------------------------------------------------- gate.yml: significant: true

def _yml(kind: str, body: str, check: str) -> str:
    return f"version: 1\nsuites:\n  s:\n    kind: {kind}\n{body}    checks:\n      {check}\n"


SUITES = {"drift": "    baseline: b/*.json\n    candidates: c/*.jsonl\n",
          "drift-item": "    baseline: b/*.json\n    candidates: c/*.jsonl\n    credit_drift_mode: item\n",
          "heuristic": "    records: r.jsonl\n", "stability": "    records: r.jsonl\n",
          "stereotype": "    records: r.jsonl\n"}


@pytest.mark.parametrize("suite, metric", [
    ("drift", "credit_drift_std"), ("drift", "credit_drift_max"), ("drift-item", "credit_drift_mean"),
    ("heuristic", "final_score_median"), ("heuristic", "correctness_std"), ("heuristic", "final_score_min"),
    ("stability", "stability_coefficient_std"), ("stereotype", "significant_drift_rate"),
])
def test_significance_on_a_metric_the_items_determine_loads(suite, metric):
    text = _yml(suite.split("-")[0], SUITES[suite], f"{metric}: {{max_increase: 0.1, significant: true}}")
    assert parse_config(text, metrics=KINDS).suites["s"].checks[metric].significant


@pytest.mark.parametrize("suite, metric", [
    ("drift", "coverage"), ("heuristic", "empty_ratio"), ("heuristic", "responses"), ("stability", "questions"),
    ("stereotype", "paired_test_p"),
])
def test_significance_on_a_metric_the_items_do_not_determine_is_a_located_error(suite, metric):
    text = _yml(suite, SUITES[suite], f"{metric}: {{max_decrease: 0.1, significant: true}}")
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "gate.yml", metrics=KINDS)
    [problem] = caught.value.problems
    line = 4 + SUITES[suite].count("\n") + 2  # version, suites, s, kind, the suite's lines, checks, the check
    assert (problem.file, problem.line, problem.field) == ("gate.yml", line, f"suites.s.checks.{metric}")
    assert problem.expected.startswith("with `significant: true`, a metric the items determine (the test recomputes")
    assert problem.found.startswith(f"{metric}, which its group's item values do not determine")
    assert problem.fix.startswith("drop `significant: true`")


def test_a_rubric_file_leaves_significance_to_the_inputs():
    """Its metrics (and item columns) are only known from the rubric file, read with the inputs."""
    text = _yml("heuristic", "    records: r.jsonl\n    rubric: mine.yml\n",
                "tone_median: {max_decrease: 0.5, significant: true}")
    assert parse_config(text, metrics=KINDS).suites["s"].checks["tone_median"].significant
