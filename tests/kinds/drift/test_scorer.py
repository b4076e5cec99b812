"""The drift scorer against hand-worked values from the seed's formulas (no model: scripted BERTScores)."""

from __future__ import annotations

import math

import pytest

from gate.config import CheckConfig, GateConfig, UnmeasuredPolicy
from gate.judge import CheckVerdict, judge_suite
from gate.kinds.base import ScoringContext
from gate.kinds.drift import credit_differences, score_drift
from gate.kinds.drift.config import CreditDriftMode, DriftSuiteConfig
from gate.kinds.drift.records import FeedbackItem, load_drift
from gate.kinds.drift.view import quality_drift_report, seed_summary
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime


def items(*credits: float) -> list[FeedbackItem]:
    return [FeedbackItem(title=f"t{i}", description="d", credits=c) for i, c in enumerate(credits)]


def test_credit_drift_total_mode_is_absolute_difference_of_sums():
    assert credit_differences(items(2.0, 1.5), items(2.0, 1.0), CreditDriftMode.TOTAL) == (0.5,)
    assert credit_differences(items(3.0, 0.0), items(1.0), CreditDriftMode.TOTAL) == (2.0,)
    assert credit_differences(items(1.0), items(), CreditDriftMode.TOTAL) == (1.0,)


def test_credit_drift_item_mode_is_the_seeds_positional_variant():
    # min(len) pairs, |b - t| each: the seed's calculate_credit_drift
    assert credit_differences(items(1, 1, 1), items(1, 2, 1, 4), CreditDriftMode.ITEM) == (0, 1, 0)
    assert credit_differences(items(3.0, 0.0), items(1.0), CreditDriftMode.ITEM) == (2.0,)
    assert credit_differences(items(1.0), items(), CreditDriftMode.ITEM) is None  # unmeasured, not 0


BASE = {1: (2.0, 1.5), 2: (3.0, 0.0), 3: (1.0, 1.0, 1.0)}
CAND = {1: (2.0, 1.0), 2: (1.0,), 3: (1.0, 2.0, 1.0, 4.0)}
F1 = {("good", 1): 0.9, ("good", 2): 0.7, ("good", 3): 0.8, ("bad", 1): 0.8, ("bad", 2): 0.78, ("bad", 3): 0.79}


def _fb(sub: int, credits: tuple[float, ...], who: str) -> list[dict]:
    return feedback(*[(f"{who} {sub} title {i}", f"{who} {sub} text {i}", c) for i, c in enumerate(credits)])


@pytest.fixture
def scored(in_tmp):
    def run(mode: CreditDriftMode = CreditDriftMode.TOTAL, checks=None):
        write_exercise(in_tmp / "baselines", 1, [submission(s, _fb(s, BASE[s], "base")) for s in BASE])
        records = [candidate(1, s, m, _fb(s, CAND[s], m)) for m in ("good", "bad") for s in CAND]
        write_candidates(in_tmp / "outputs" / "c.jsonl", records)
        suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"],
                                 credit_drift_mode=mode, checks=checks)
        data = load_drift("fb", suite, in_tmp)
        texts = {}
        for s in BASE:
            base = "\n".join(p for i, _ in enumerate(BASE[s]) for p in (f"base {s} title {i}", f"base {s} text {i}"))
            for m in ("good", "bad"):
                cand = "\n".join(p for i, _ in enumerate(CAND[s]) for p in (f"{m} {s} title {i}", f"{m} {s} text {i}"))
                texts[(cand, base)] = (F1[m, s] + 0.01, F1[m, s] - 0.01, F1[m, s])
        runtime = FakeRuntime(texts)
        config = GateConfig(version=1, suites={"fb": suite})
        return score_drift("fb", suite, data, ScoringContext(config, runtime, in_tmp)), suite, runtime
    return run


def group(result, level, **key):
    return next(g for g in result.groups_at(level) if dict(g.key) == key)


def test_group_aggregates_total_mode(scored):
    result, _, runtime = scored()
    good = group(result, "group", exercise="1", model="good")
    assert good.n == 3
    assert good.metrics["bertscore_f1"] == pytest.approx(0.8)             # (0.9 + 0.7 + 0.8) / 3
    assert good.metrics["bertscore_precision"] == pytest.approx(0.81)
    assert good.metrics["bertscore_recall"] == pytest.approx(0.79)
    assert good.metrics["credit_drift_mean"] == pytest.approx(2.5)        # (0.5 + 2 + 5) / 3
    assert good.metrics["credit_drift_std"] == pytest.approx(math.sqrt(3.5))  # population std
    assert good.metrics["credit_drift_max"] == 5.0
    assert good.metrics["coverage"] == 1.0
    assert group(result, "model", model="bad").metrics["bertscore_f1"] == pytest.approx(0.79)
    assert result.metrics["bertscore_f1"] == pytest.approx(0.795)         # over all six submissions
    assert len(runtime.calls) == 1                                         # one batched model call
    assert runtime.calls[0][3] == []                                       # no idf corpus unless asked


def test_group_aggregates_item_mode_pool_positional_differences(scored):
    result, _, _ = scored(CreditDriftMode.ITEM)
    good = group(result, "group", exercise="1", model="good")
    pooled = [0.0, 0.5, 2.0, 0.0, 1.0, 0.0]                                 # s1: 0, .5; s2: 2; s3: 0, 1, 0
    assert good.metrics["credit_drift_mean"] == pytest.approx(3.5 / 6)
    assert good.metrics["credit_drift_std"] == pytest.approx(0.7312470322826767)
    assert good.metrics["credit_drift_max"] == max(pooled)
    per_item = {dict(i.key)["submission"]: i.values["credit_drift"]
                for i in result.items if dict(i.key)["model"] == "good"}
    assert per_item == {"1": 0.25, "2": 2.0, "3": pytest.approx(1 / 3)}


def test_seed_pass_rule_and_export(scored):
    result, suite, _ = scored()
    verdict = judge_suite(result, {"bertscore_f1": CheckConfig(min=0.8), "credit_drift_mean": CheckConfig(max=3.0)},
                          UnmeasuredPolicy.WARN)
    # good: F1 0.8 >= 0.8 (the seed's >=) and drift 2.5 <= 3 -> passed; bad: F1 0.79 < 0.8 -> failed
    assert seed_summary(verdict) == (1, 2, "Tests: 1/2 passed (min F1 >= 0.8, max credit drift <= 3)")
    export = quality_drift_report(verdict)
    entry = export["exercises"]["1"]
    assert entry["exercise_id"] == 1 and entry["exercise_file"] == "sampled_exercise-1.json"
    assert entry["baseline"] == {"model": "base-model", "generated_at": "2025-08-28T10:00:00Z"}
    assert entry["thresholds"] == {"min_bertscore_f1": 0.8, "max_avg_credit_drift": 3.0}
    assert entry["model_results"]["good"] == {"avg_bertscore_f1": pytest.approx(0.8), "avg_credit_drift": 2.5,
                                              "passed": True}
    assert entry["model_results"]["bad"]["passed"] is False


def test_missing_candidates_are_partial_and_a_model_without_any_is_unmeasured(in_tmp):
    write_exercise(in_tmp / "baselines", 1, [submission(s, _fb(s, BASE[s], "base")) for s in BASE])
    write_exercise(in_tmp / "baselines", 2, [submission(9, _fb(9, (1.0,), "base"))])
    write_candidates(in_tmp / "outputs" / "c.jsonl", [candidate(1, 1, "m", _fb(1, CAND[1], "m"))])
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
    data = load_drift("fb", suite, in_tmp)
    result = score_drift("fb", suite, data, ScoringContext(GateConfig(version=1, suites={"fb": suite}),
                                                            FakeRuntime(), in_tmp))
    partial = group(result, "group", exercise="1", model="m")
    assert partial.n == 1 and partial.metrics["coverage"] == pytest.approx(1 / 3)
    assert any("2 of 3 submissions of exercise 1 have no candidate (2, 3)" in n for n in result.notes)
    empty = group(result, "group", exercise="2", model="m")
    assert empty.metrics["bertscore_f1"] is None and empty.metrics["coverage"] == 0.0
    assert result.unmeasured_reason(empty.key, "bertscore_f1") == "no candidate feedback for this exercise"
    verdict = judge_suite(result, {"bertscore_f1": CheckConfig(min=0.1)}, UnmeasuredPolicy.WARN)
    unmeasured = [c for c in verdict.checks if c.verdict is CheckVerdict.UNMEASURED]
    assert [dict(c.key) for c in unmeasured] == [{"exercise": "2", "model": "m"}]
    assert verdict.verdict.value == "warn"  # never a pass
    assert group(result, "model", model="m").metrics["coverage"] == pytest.approx(1 / 4)


def test_both_texts_empty_is_unmeasured_not_zero(in_tmp):
    write_exercise(in_tmp / "baselines", 1, [submission(1, [])])
    write_candidates(in_tmp / "outputs" / "c.jsonl", [candidate(1, 1, "m", [])])
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
    data = load_drift("fb", suite, in_tmp)
    result = score_drift("fb", suite, data, ScoringContext(GateConfig(version=1, suites={"fb": suite}),
                                                            FakeRuntime(), in_tmp))
    [item] = result.items
    assert item.values["bertscore_f1"] is None and item.values["credit_drift"] == 0.0
    assert result.unmeasured_reason(item.key, "bertscore_f1") == "baseline and candidate feedback are both empty"


def test_idf_corpus_is_each_baseline_once(scored, in_tmp):
    result, suite, runtime = scored()
    suite = suite.model_copy(update={"bertscore": GateConfig(version=1, suites={"fb": suite}).models.bertscore
                                     .model_copy(update={"idf": True})})
    data = load_drift("fb", suite, in_tmp)
    score_drift("fb", suite, data, ScoringContext(GateConfig(version=1, suites={"fb": suite}), runtime, in_tmp))
    spec, _, references, corpus = runtime.calls[-1]
    assert spec.idf is True
    assert len(corpus) == 3 and set(corpus) == set(references)


def test_windowed_texts_are_counted_and_noted(in_tmp):
    class WindowingRuntime(FakeRuntime):
        def bertscore(self, spec, candidates, references, idf_corpus=()):
            scores = super().bertscore(spec, candidates, references, idf_corpus)
            return type(scores)(**{**scores.__dict__, "windowed": tuple(True for _ in candidates)})

    write_exercise(in_tmp / "baselines", 1, [submission(1, _fb(1, BASE[1], "base"))])
    write_candidates(in_tmp / "outputs" / "c.jsonl", [candidate(1, 1, "m", _fb(1, CAND[1], "m"))])
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
    result = score_drift("fb", suite, load_drift("fb", suite, in_tmp),
                         ScoringContext(GateConfig(version=1, suites={"fb": suite}), WindowingRuntime(), in_tmp))
    assert result.details.settings.windowed_submissions == 1
    assert result.items[0].values["windowed"] is True
    assert any("longer than the model's 512-token limit" in n and "not truncated" in n for n in result.notes)


def test_float_noise_past_the_bertscore_bound_is_snapped_but_real_excursions_are_kept(in_tmp):
    """float32 BERTScore of identical texts can come back as 1.0000000180620137; quality_drift_report.json must
    say 1.0. A value well outside [-1, 1] is a bug upstream and stays visible."""
    noisy = 1.0000000180620137
    write_exercise(in_tmp / "baselines", 1, [submission(s, feedback((f"t{s}", f"d{s}", 1.0))) for s in (1, 2, 3)])
    write_candidates(in_tmp / "outputs" / "c.jsonl", [candidate(1, s, m, feedback((f"t{s}", f"d{s}", 1.0)))
                                                      for s, m in ((1, "same"), (2, "same"), (3, "broken"))])
    scripted = {("t1\nd1", "t1\nd1"): (noisy, 1.0 + 9e-7, noisy), ("t2\nd2", "t2\nd2"): (1.0, -1.0 - 5e-7, 1.0),
                ("t3\nd3", "t3\nd3"): (1.5, 1.0 + 2e-6, -1.2)}
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
    result = score_drift("fb", suite, load_drift("fb", suite, in_tmp),
                         ScoringContext(GateConfig(version=1, suites={"fb": suite}), FakeRuntime(scripted), in_tmp))
    values = {dict(i.key)["submission"]: i.values for i in result.items}
    assert (values["1"]["bertscore_precision"], values["1"]["bertscore_recall"], values["1"]["bertscore_f1"]) == (
        1.0, 1.0, 1.0)
    assert values["2"]["bertscore_recall"] == -1.0  # noise below -1, not rescaled: back on the bound
    # real excursions (more than 1e-6 out) are not hidden
    assert (values["3"]["bertscore_precision"], values["3"]["bertscore_recall"], values["3"]["bertscore_f1"]) == (
        1.5, 1.0 + 2e-6, -1.2)
    export = quality_drift_report(judge_suite(result, {"bertscore_f1": CheckConfig(min=0.8)}, UnmeasuredPolicy.WARN))
    assert export["exercises"]["1"]["model_results"]["same"]["avg_bertscore_f1"] == 1.0


def test_snap_puts_only_float_noise_back_on_a_bound():
    import numpy as np

    from gate.stats.similarity import cosine_matrix, snap

    assert snap(1.0000000180620137, 0.0, 1.0) == 1.0 and snap(-1e-9, 0.0, 1.0) == 0.0
    assert snap(1.01, 0.0, 1.0) == 1.01 and snap(-0.5, 0.0, 1.0) == -0.5 and snap(None, 0.0, 1.0) is None
    assert math.isnan(snap(float("nan"), 0.0, 1.0))
    v = np.array([[-0.45772582566733916, 0.2201951234700494, -1.009618183538736, -0.20917557487171307,
                   -0.15922500991447772, 0.5408455846858077, 0.2146591225063409]])
    unit = v / np.linalg.norm(v)
    assert (unit @ unit.T)[0, 0] > 1.0  # the raw product overshoots by an ulp
    assert cosine_matrix(v)[0, 0] == 1.0


@pytest.mark.parametrize("bad", [[0.0, 0.0], [float("inf"), 1.0], [float("nan"), 1.0]])
def test_a_cosine_matrix_with_a_vector_of_no_direction_is_nan_there_without_a_warning(bad):
    import warnings

    import numpy as np

    from gate.stats.similarity import cosine_matrix

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        matrix = cosine_matrix(np.array([[1.0, 0.0], bad, [0.0, 2.0]]))
    assert np.isnan(matrix[1]).all() and np.isnan(matrix[:, 1]).all()
    assert matrix[0, 2] == 0.0 and matrix[0, 0] == matrix[2, 2] == 1.0
