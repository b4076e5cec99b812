"""The trajectory scorer's numbers against references written here: pass^k and pass@k by enumerating every
k-subset of a task's runs, the Wilson interval from its textbook formula, edit distances from the memoised
Levenshtein recurrence, rates and means by hand; and every group metric a change test recomputes from its items."""

from __future__ import annotations

import itertools
import math
import statistics
from functools import partial

import pytest

from gate.config import GateConfig
from gate.kinds import KINDS
from gate.kinds.base import ScoringContext
from gate.kinds.samples import collapse
from gate.kinds.trajectory.config import TrajectorySuiteConfig
from gate.kinds.trajectory.records import load_trajectory
from gate.kinds.trajectory.scorer import score_trajectory
from gate.kinds.trajectory.statistics import pass_at_k, pass_hat_k, wilson
from tests.kinds.test_item_statistics import assert_recomputed
from tests.kinds.trajectory.test_sequences import levenshtein
from tests.kinds.trajectory.traces import jsonl, record, write
from tests.support.fake_runtime import FakeRuntime

GOOD = [("search", {"q": "x"}), ("get_weather", {"city": "Paris"})]
BAD = [("search", {"q": "x"}), ("search", {"q": "y"})]  # never calls get_weather: misses its expectations
# (model, task) -> each run: (passes its expectations, the harness's success, cost)
RUNS = {("a", "t1"): [(True, True, 0.01), (True, True, 0.02), (False, False, 0.03), (True, None, 0.01),
                      (False, True, 0.05)],
        ("a", "t2"): [(True, True, 0.02), (True, True, 0.02), (True, True, 0.02)],
        ("b", "t1"): [(False, False, 0.1), (False, True, 0.1), (False, False, 0.1), (True, True, 0.1),
                      (False, False, 0.1)],
        ("b", "t2"): [(True, False, 0.01), (False, True, 0.01), (True, True, 0.01)]}
BASELINE = {"t1": [["search", "get_weather"], ["get_weather"]], "t2": [["search", "search", "get_weather"]]}


def brute_pass(verdicts: list[bool], k: int) -> tuple[float, float]:
    """(share of k-subsets of the runs that all pass, share with at least one pass)."""
    subsets = list(itertools.combinations(verdicts, k))
    return (sum(all(s) for s in subsets) / len(subsets), sum(any(s) for s in subsets) / len(subsets))


def wilson_reference(c: int, n: int) -> tuple[float, float]:
    z = statistics.NormalDist().inv_cdf(0.975)
    p = c / n
    denominator = 1 + z**2 / n
    centre = p + z**2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return (centre - spread) / denominator, (centre + spread) / denominator


def test_pass_k_and_wilson_match_their_references():
    for n in range(1, 8):
        for c in range(n + 1):
            verdicts = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                assert (pass_hat_k(c, n, k), pass_at_k(c, n, k)) == pytest.approx(brute_pass(verdicts, k), abs=1e-12)
            assert pass_hat_k(c, n, n + 1) is None and pass_at_k(c, n, n + 1) is None
            assert wilson(c, n) == pytest.approx(wilson_reference(c, n), abs=1e-12)
    assert wilson(0, 0) is None
    assert wilson(7, 10) == pytest.approx((0.3968, 0.8922), abs=1e-4)  # the usual worked example


def score(tmp_path, pass_k=2, baseline=True, collapsed=False, **fields):
    rows = [record(task, GOOD if passes else BAD, model=model, sample=i, cost=cost,
                   **({} if success is None else {"success": success}))
            for (model, task), runs in RUNS.items() for i, (passes, success, cost) in enumerate(runs)]
    write(tmp_path / "runs.jsonl", jsonl(*rows))
    write(tmp_path / "base.jsonl", jsonl(*(record(task, [(t, None) for t in tools], model="base", sample=i)
                                           for task, runs in BASELINE.items() for i, tools in enumerate(runs))))
    suite = TrajectorySuiteConfig.model_validate({
        "kind": "trajectory", "records": "runs.jsonl", "pass_k": pass_k,
        **({"baseline": "base.jsonl"} if baseline else {}),
        "expect": {"*": {"tools_called": ["get_weather"]}, "t1": {"max_steps": 2}, "t3": {"max_steps": 1}}, **fields})
    context = ScoringContext(GateConfig(version=1, suites={"s": suite}), FakeRuntime(), tmp_path)
    result = score_trajectory("s", suite, load_trajectory("s", suite, tmp_path), context)
    if collapsed:
        result = collapse(result, partial(KINDS["trajectory"].statistic, suite, columns=result.value_names()))
    return suite, result


def group(result, level, **key):
    return next(g for g in result.groups if g.level == level and dict(g.key) == key)


def test_the_per_task_values_are_the_references(tmp_path):
    _, result = score(tmp_path)
    for (model, task), runs in RUNS.items():
        metrics = group(result, "group", model=model, task_id=task).metrics
        passes = [p and s is not False for p, s, _ in runs]
        assert metrics["runs"] == len(runs)
        assert metrics["expectations_met_rate"] == pytest.approx(sum(p for p, _, _ in runs) / len(runs))
        assert metrics["pass_rate"] == pytest.approx(sum(passes) / len(runs))
        reported = [s for _, s, _ in runs if s is not None]
        assert metrics["success_rate"] == pytest.approx(sum(reported) / len(reported))
        assert metrics["cost_mean"] == pytest.approx(statistics.fmean(c for _, _, c in runs))
        assert metrics["steps_mean"] == 2 and metrics["tokens_mean"] == 20 and metrics["latency_mean"] == 1.0
        assert (metrics["pass_hat_k"], metrics["pass_at_k"]) == pytest.approx(brute_pass(passes, 2))
        distances = [min(levenshtein(tuple(b), tuple(t for t, _ in (GOOD if p else BAD))) for b in BASELINE[task])
                     for p, _, _ in runs]
        assert metrics["tool_edit_distance_mean"] == pytest.approx(statistics.fmean(distances))
    for item in result.items:
        key = dict(item.key)
        passes = RUNS[(key["model"], key["task_id"])][int(key["sample"])][0]
        tools = tuple(t for t, _ in (GOOD if passes else BAD))
        assert item.values["tool_edit_distance"] == min(levenshtein(tuple(b), tools) for b in BASELINE[key["task_id"]])
        assert item.values["tools"] == " → ".join(tools)
        assert item.values["failed"] == ("" if passes else "tools_called: get_weather never called")


def test_the_per_model_and_suite_values(tmp_path):
    _, result = score(tmp_path)
    for model in ("a", "b"):
        runs = [r for (m, _), rs in RUNS.items() if m == model for r in rs]
        metrics = group(result, "model", model=model).metrics
        assert metrics["pass_rate"] == pytest.approx(sum(p and s is not False for p, s, _ in runs) / len(runs))
        per_task = [brute_pass([p and s is not False for p, s, _ in rs], 2) for (m, _), rs in RUNS.items()
                    if m == model]
        assert metrics["pass_hat_k"] == pytest.approx(statistics.fmean(p for p, _ in per_task))
        assert metrics["pass_at_k"] == pytest.approx(statistics.fmean(p for _, p in per_task))
        assert metrics["missing_tasks"] == 1  # t3 is expected and never run
    assert result.metrics["runs"] == 16 and result.metrics["missing_tasks"] == 2
    everything = [brute_pass([p and s is not False for p, s, _ in rs], 2)[0] for rs in RUNS.values()]
    assert result.metrics["pass_hat_k"] == pytest.approx(statistics.fmean(everything))
    assert result.fingerprint["pass_k"] == 2 and result.fingerprint["baseline"].startswith("sha256:")


def test_k_defaults_to_each_tasks_runs_and_too_few_runs_is_unmeasured(tmp_path):
    _, result = score(tmp_path, pass_k=None)
    a_t2 = group(result, "group", model="a", task_id="t2").metrics  # 3 of 3 pass
    b_t2 = group(result, "group", model="b", task_id="t2").metrics  # 1 of 3 passes (success false on one)
    assert (a_t2["pass_hat_k"], a_t2["pass_at_k"]) == (1.0, 1.0)
    assert (b_t2["pass_hat_k"], b_t2["pass_at_k"]) == (0.0, 1.0)
    _, result = score(tmp_path, pass_k=4)
    short = group(result, "group", model="a", task_id="t2")
    assert short.metrics["pass_hat_k"] is None
    assert result.unmeasured_reason(short.key, "pass_hat_k") == "fewer runs with a verdict than k"


def test_every_mean_is_recomputed_from_the_items(tmp_path):
    suite, result = score(tmp_path)
    none = {"runs", "missing_tasks", "pass_hat_k", "pass_at_k"}
    assert assert_recomputed("trajectory", suite, result, ("group", "model"), none) == 6 * 8


def test_samples_merge_into_one_item_per_task_keeping_every_runs_details(tmp_path):
    _, result = score(tmp_path, collapsed=True)
    assert len(result.items) == 4 and all(i.draws in (3, 5) for i in result.items)
    item = next(i for i in result.items if dict(i.key) == {"model": "a", "task_id": "t1"})
    assert item.values["expectations_met"] == pytest.approx(3 / 5) and item.spread["expectations_met"] > 0
    assert [r.sample for r in item.details.runs] == ["0", "1", "2", "3", "4"]
    assert item.details.runs[2].failures == ("tools_called: get_weather never called",)
    model_a = group(result, "model", model="a").metrics  # each task weighs the same once merged
    assert model_a["expectations_met_rate"] == pytest.approx((3 / 5 + 1) / 2)
    assert model_a["pass_hat_k"] == pytest.approx(statistics.fmean(
        [brute_pass([True, True, False, True, False], 2)[0], 1.0]))  # as scored: not an item mean


def test_without_expectations_or_baseline_the_values_are_unmeasured_with_reasons(tmp_path):
    suite, result = score(tmp_path, baseline=False, expect=None)
    assert "tool_edit_distance" not in result.item_columns
    metrics = group(result, "model", model="a").metrics
    assert metrics["expectations_met_rate"] is None and "tool_edit_distance_mean" not in metrics
    assert metrics["pass_rate"] == pytest.approx(6 / 7)  # the harness's verdicts alone (one run gives none)
    assert result.unmeasured_reason(group(result, "model", model="a").key, "expectations_met_rate").startswith(
        "no run has expectations")


def test_an_arguments_pattern_past_its_time_limit_names_the_run(tmp_path, monkeypatch):
    """A hostile argument that makes the schema's `pattern` backtrack without end neither holds the run nor passes
    the constraint: the run stops with the record's line and the expression."""
    from gate.errors import InputError
    from gate.kinds import expressions

    monkeypatch.setattr(expressions, "SEARCH_SECONDS", 0.05)
    calls = [("get_weather", {"city": "a" * 5000 + "!"})]
    write(tmp_path / "runs.jsonl", jsonl(record("t1", [("get_weather", {"city": "Paris"})], sample=0),
                                         record("t1", calls, sample=1)))
    suite = TrajectorySuiteConfig.model_validate({
        "kind": "trajectory", "records": "runs.jsonl",
        "expect": {"*": {"arguments": {"get_weather": {"properties": {"city": {"pattern": "^(a|aa)+$"}}}}}}})
    context = ScoringContext(GateConfig(version=1, suites={"s": suite}), FakeRuntime(), tmp_path)
    with pytest.raises(InputError) as caught:
        score_trajectory("s", suite, load_trajectory("s", suite, tmp_path), context)
    [problem] = caught.value.problems
    assert (problem.file.endswith("runs.jsonl"), problem.line, problem.field) == (True, 2, "run")
    assert problem.found.startswith("'^(a|aa)+$' still searching after 0.05 s")
