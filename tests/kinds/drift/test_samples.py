"""Drift candidates with a `sample` index: several generations of one submission's feedback (issue 20, item 9).

Scripted BERTScores (no model); expected means are worked by hand from the scripted values.
"""

from __future__ import annotations

from functools import partial

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.kinds.base import ScoringContext
from gate.kinds.drift import DRIFT, ITEM_COLUMNS, score_drift
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import load_drift
from gate.kinds.samples import collapse
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime

BASE = feedback(("Roles", "Names both roles.", 2.0))
# (submission, sample) -> (candidate credits, scripted F1)
DRAWS = {(1, 0): (2.0, 0.90), (1, 1): (1.0, 0.80), (1, 2): (2.0, 0.85),
         (2, 0): (0.0, 0.60), (2, 1): (2.0, 0.70), (2, 2): (1.0, 0.50)}


def suite() -> DriftSuiteConfig:
    return DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])


def _cand(sub: int, sample, credits: float = 2.0) -> dict:
    record = candidate(7, sub, "m", feedback((f"title {sub}.{sample}", f"text {sub}.{sample}", credits)))
    return record if sample is None else record | {"sample": sample}


def _write(in_tmp, records: list[dict]) -> None:
    write_exercise(in_tmp / "baselines", 7, [submission(1, BASE), submission(2, BASE)])
    write_candidates(in_tmp / "outputs" / "m.jsonl", records)


def _score(in_tmp):
    data = load_drift("fb", suite(), in_tmp)
    texts = {(f"title {s}.{k}\ntext {s}.{k}", "Roles\nNames both roles."): (f1, f1, f1)
             for (s, k), (_, f1) in DRAWS.items()}
    context = ScoringContext(GateConfig(version=1, suites={"fb": suite()}), FakeRuntime(texts), in_tmp)
    return score_drift("fb", suite(), data, context)


def problems_of(in_tmp) -> str:
    with pytest.raises(InputError) as caught:
        load_drift("fb", suite(), in_tmp)
    return "\n".join(p.render() for p in caught.value.problems)


def test_three_samples_per_submission_load_and_key_each_generation(in_tmp):
    _write(in_tmp, [_cand(s, k, c) for (s, k), (c, _) in DRAWS.items()])
    result = _score(in_tmp)
    assert len(result.items) == 6
    assert result.items[0].key == (("exercise", "7"), ("submission", "1"), ("model", "m"), ("sample", "0"))
    assert [dict(i.key)["sample"] for i in result.items] == ["0", "1", "2"] * 2
    assert result.item_columns == (*ITEM_COLUMNS[:3], "sample", *ITEM_COLUMNS[3:])
    group = next(g for g in result.groups_at("group"))
    # coverage counts submissions answered, not generations: 2 of 2, never 6 of 2
    assert group.metrics["coverage"] == 1.0
    assert next(g for g in result.groups_at("model")).metrics["coverage"] == 1.0


def test_collapsed_items_are_each_submissions_mean_and_spread(in_tmp):
    _write(in_tmp, [_cand(s, k, c) for (s, k), (c, _) in DRAWS.items()])
    result = _score(in_tmp)
    merged = collapse(result, partial(DRIFT.statistic, suite(), columns=tuple(result.items[0].values)))
    assert [i.key for i in merged.items] == [(("exercise", "7"), ("submission", str(s)), ("model", "m"))
                                             for s in (1, 2)]
    first, second = merged.items
    assert first.draws == 3 and first.values["bertscore_f1"] == pytest.approx(0.85)   # (0.90 + 0.80 + 0.85) / 3
    assert first.spread["bertscore_f1"] == pytest.approx(0.0025)                      # ddof 1: 0.005 / 2
    assert second.values["bertscore_f1"] == pytest.approx(0.60)                       # (0.6 + 0.7 + 0.5) / 3
    # credit drift |candidate − 2|: submission 1 → 0, 1, 0; submission 2 → 2, 0, 1
    assert first.values["credit_drift"] == pytest.approx(1 / 3)
    assert second.values["credit_drift"] == pytest.approx(1.0)
    group = merged.groups_at("group")[0]
    assert group.metrics["bertscore_f1"] == pytest.approx(0.725)                     # (0.85 + 0.60) / 2
    assert group.metrics["coverage"] == 1.0


def test_the_same_sample_twice_is_a_located_duplicate(in_tmp):
    _write(in_tmp, [_cand(1, 0), _cand(1, 1), _cand(1, "1")])  # 1 and "1" name the same draw
    rendered = problems_of(in_tmp)
    assert "m.jsonl:3" in rendered and "field 'sample'" in rendered
    assert "a second candidate for exercise '7' submission '1' sample '1' (first at outputs/m.jsonl:2)" in rendered


def test_different_samples_of_one_submission_are_no_duplicates_but_other_models_are_separate(in_tmp):
    _write(in_tmp, [_cand(1, 0), _cand(1, 1), _cand(1, 0) | {"model": "n"}])
    data = load_drift("fb", suite(), in_tmp)
    assert [(c.model, c.sample) for c in data.candidates] == [("m", "0"), ("m", "1"), ("n", "0")]


def test_mixing_records_with_and_without_sample_is_a_located_error(in_tmp):
    _write(in_tmp, [_cand(1, None), _cand(2, 0), _cand(1, 0), _cand(2, 1)])
    with pytest.raises(InputError) as caught:
        load_drift("fb", suite(), in_tmp)
    (problem,) = caught.value.problems
    assert problem.line == 3 and problem.field == "sample" and problem.file.endswith("m.jsonl")
    assert "mixes records with and without `sample`" in problem.render()
    assert "outputs/m.jsonl:1" in problem.render()  # where the other kind of record is


@pytest.mark.parametrize("value", [-1, True, "", "  ", 1.5, [1], {"n": 1}])
def test_a_sample_that_is_no_index_is_a_located_error(in_tmp, value):
    _write(in_tmp, [_cand(1, 0), _cand(1, value)])
    with pytest.raises(InputError) as caught:
        load_drift("fb", suite(), in_tmp)
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (2, "sample")
    assert "non-negative whole number or a non-empty string" in problem.expected and problem.fix


def test_without_samples_keys_and_columns_are_unchanged(in_tmp):
    _write(in_tmp, [_cand(1, None), _cand(2, None)])
    result = _score(in_tmp)
    assert [i.key for i in result.items] == [(("exercise", "7"), ("submission", str(s)), ("model", "m"))
                                             for s in (1, 2)]
    assert result.item_columns == ITEM_COLUMNS
    assert collapse(result, lambda metric: None) is result
