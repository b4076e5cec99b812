"""Repeated samples per item (gate.kinds.samples.collapse): one item per prompt with its mean, its spread as its
noise, metrics recomputed from the per-prompt means; and what that buys: one run measuring its own noise."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from gate.baselines.snapshots import Snapshot, compare
from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import CheckVerdict, judge_suite
from gate.kinds.samples import collapse
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import statistics

STATS = {"f1": statistics.mean("f1"), "f1_max": statistics.maximum("f1")}


def sampled(values: dict[str, list[float]], name: str = "s") -> SuiteResult:
    """Prompts p → their generations' f1 values, one item per generation (as a scorer returns them)."""
    items = tuple(Item((("id", p), ("model", "m"), ("sample", str(i))), {"f1": v, "text": f"{p}-{i}", "ok": v > 0.65})
                  for p, draws in values.items() for i, v in enumerate(draws))
    every = [v for draws in values.values() for v in draws]
    metrics = {"f1": float(np.mean(every)), "f1_max": max(every), "n": float(len(every))}
    return SuiteResult(name, "rag", metrics, (GroupResult("group", (("model", "m"),), dict(metrics), len(every)),),
                       items, ("id", "model", "sample", "f1", "text", "ok"), fingerprint={"x": 1})


def test_samples_become_one_item_per_prompt_with_mean_spread_and_draws():
    result = collapse(sampled({"a": [0.9, 0.7, 0.8, 0.6], "b": [0.5, 0.7]}), STATS.get)
    a, b = result.items
    assert a.key == (("id", "a"), ("model", "m")) and a.draws == 4 and b.draws == 2
    assert a.values["f1"] == pytest.approx(0.75) and a.spread["f1"] == pytest.approx(np.var([0.9, 0.7, 0.8, 0.6],
                                                                                          ddof=1))
    assert a.values["ok"] == pytest.approx(0.75)  # a boolean's mean is its rate
    assert a.values["text"] == "a-0"  # not a number: the first generation's
    assert result.item_columns == ("id", "model", "f1", "text", "ok", "draws") and a.values["draws"] == 4
    # metrics use each prompt's mean: (0.75 + 0.6) / 2, not the mean of all six generations (0.7)
    assert result.groups[0].metrics["f1"] == pytest.approx(0.675) and result.metrics["f1"] == pytest.approx(0.675)
    assert result.groups[0].metrics["f1_max"] == pytest.approx(0.75) and result.groups[0].n == 2
    assert result.groups[0].metrics["n"] == 6.0  # what the items do not determine stays as the scorer computed it
    assert "repeated samples" in result.notes[-1]


def test_a_result_without_samples_is_unchanged():
    plain = SuiteResult("s", "rag", {"f1": 0.5}, (), (Item((("id", "a"),), {"f1": 0.5}),), ("id", "f1"))
    assert collapse(plain, STATS.get) is plain


def test_a_snapshot_of_sampled_items_keeps_their_noise():
    result = collapse(sampled({"a": [0.9, 0.7, 0.8], "b": [0.5, 0.7, 0.6]}), STATS.get)
    snapshot = Snapshot.from_result(result, gate="g", created_at="2026-11-24T00:00:00Z", commit=None,
                                    inputs_digest=None, tool_version="0")
    a = snapshot.items[0]
    assert a.runs == 3 and a.variances["f1"] == pytest.approx(0.01) and "draws" not in a.values
    again = Snapshot.from_dict(snapshot.to_dict())
    assert again.items[0].runs == 3 and again.items[0].variances["f1"] == pytest.approx(0.01)


def _gate_fails(rng: np.random.Generator, drop: float, draws: int = 3, n: int = 40) -> bool:
    quality = rng.normal(0.8, 0.05, n)
    def run(shift: np.ndarray) -> SuiteResult:
        return collapse(sampled({f"p{i}": list(quality[i] + shift[i] + rng.normal(0, 0.03, draws))
                                 for i in range(n)}), STATS.get)
    base = run(np.zeros(n))
    snapshot = Snapshot.from_result(base, gate="g", created_at="2026-11-01T00:00:00Z", commit=None,
                                    inputs_digest=None, tool_version="0")
    broken = np.zeros(n)
    broken[: int(n * 0.1)] = -drop
    now = run(broken)
    comparison = compare(snapshot, now, path="p", inputs_digest=None, now=dt.datetime(2026, 11, 24), max_age_days=None)
    verdict = judge_suite(now, {"f1": CheckConfig(max_decrease=0, significant=True, scope="suite")},
                          UnmeasuredPolicy.WARN, comparison, STATS.get)
    [check] = verdict.checks
    assert "repeated samples" in check.change.method
    return check.verdict is CheckVerdict.FAIL


def test_one_run_with_repeated_samples_measures_its_own_noise():
    """A one-run snapshot: without samples its noise is unknown; with 3 samples per prompt the z-test knows each
    prompt's noise, keeps false alarms at alpha and catches 10 % of the prompts broken."""
    rng = np.random.default_rng(5)
    false_alarms = sum(_gate_fails(rng, 0.0) for _ in range(200)) / 200
    detected = sum(_gate_fails(rng, 0.2) for _ in range(100)) / 100
    assert false_alarms <= 0.05 + 3 * (0.05 * 0.95 / 200) ** 0.5
    assert detected >= 0.95
