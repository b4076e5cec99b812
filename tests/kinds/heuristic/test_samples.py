"""Heuristic records with a `sample` index: several generations per (model, category, prompt) (issue 20, item 9)."""

from __future__ import annotations

import json
import statistics
from functools import partial

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.kinds.base import ScoringContext
from gate.kinds.heuristic import HEURISTIC, score_heuristic
from gate.kinds.heuristic.config import ExpectedResponses, HeuristicSuiteConfig
from gate.kinds.heuristic.records import load_heuristic
from gate.kinds.heuristic.rules import score_response
from gate.kinds.samples import collapse
from tests.support.fake_runtime import FakeRuntime

CODE = 'def add(a, b):\n    """Add."""\n    return a + b\n'
RESPONSES = {"C01": (CODE, "Use a loop.", CODE + "# done\n"), "C02": ("Sort it first.", "", "Call sorted().")}
SAMPLED = [{"model": "a", "category": "coding", "prompt_id": p, "response": r, "sample": s}
           for p, draws in RESPONSES.items() for s, r in enumerate(draws)]


def score(directory, rows, name="r.jsonl", **fields):
    path = directory / name
    if name.endswith(".csv"):
        path.write_text(rows)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = HeuristicSuiteConfig(kind="heuristic", records=[name], **fields)
    data = load_heuristic("h", suite, directory)
    context = ScoringContext(GateConfig(version=1, suites={"h": suite}), FakeRuntime(), directory)
    return score_heuristic("h", suite, data, context), data, suite


def problems(directory, rows, name="r.jsonl") -> list:
    with pytest.raises(InputError) as caught:
        score(directory, rows, name)
    return list(caught.value.problems)


def test_three_samples_per_prompt_load_and_key_each_generation(in_tmp):
    result, _, _ = score(in_tmp, SAMPLED)
    assert len(result.items) == 6
    assert result.items[2].key == (("model", "a"), ("category", "coding"), ("prompt_id", "C01"), ("sample", "2"))
    assert result.item_columns[:4] == ("model", "category", "prompt_id", "sample")


def test_coverage_counts_prompts_not_generations(in_tmp):
    """Three prompts expected, two answered three times each, one generation of C02 empty."""
    result, _, _ = score(in_tmp, SAMPLED, expected=ExpectedResponses(prompts={"coding": 3}))
    group = result.groups_at("group")[0].metrics
    assert group["responses"] == 2
    assert group["missing_ratio"] == pytest.approx(1 / 3)   # six generations must not hide the absent prompt
    assert group["empty_ratio"] == pytest.approx(1 / 9)     # C02 is empty in 1 of its 3 samples: 1/3 of 3 prompts


def test_collapsed_items_are_each_prompts_mean(in_tmp):
    result, data, suite = score(in_tmp, SAMPLED)
    merged = collapse(result, partial(HEURISTIC.statistic, suite, columns=tuple(result.items[0].values)))
    finals = {p: [score_response(data.rubric, "coding", r, p).final_score for r in draws]
              for p, draws in RESPONSES.items()}
    assert [i.key for i in merged.items] == [(("model", "a"), ("category", "coding"), ("prompt_id", p))
                                             for p in RESPONSES]
    for item, prompt in zip(merged.items, RESPONSES, strict=True):
        assert item.draws == 3
        assert item.values["final_score"] == pytest.approx(statistics.mean(finals[prompt]))
        assert item.spread["final_score"] == pytest.approx(statistics.variance(finals[prompt]))
    group = merged.groups_at("group")[0].metrics
    assert group["final_score_mean"] == pytest.approx(statistics.mean(statistics.mean(f) for f in finals.values()))


def test_samples_in_a_csv_table_and_an_empty_cell_that_mixes(in_tmp):
    table = "model,category,prompt_id,response,sample\na,coding,C01,Use a loop.,0\na,coding,C01,Sort it.,1\n"
    result, _, _ = score(in_tmp, table, "r.csv")
    assert [dict(i.key)["sample"] for i in result.items] == ["0", "1"]
    [found] = problems(in_tmp, table + "a,coding,C01,Again.,\n", "r.csv")  # an empty cell: no sample
    assert (found.line, found.field) == (4, "sample") and "mixes records with and without `sample`" in found.found


def test_the_same_prompt_and_sample_twice_is_a_located_duplicate(in_tmp):
    [found] = problems(in_tmp, [*SAMPLED, {**SAMPLED[4], "sample": "1"}])
    assert (found.file, found.line, found.field) == ("r.jsonl", 7, "sample")
    assert "'C02' sample '1' again for a (first at r.jsonl:5)" in found.found


def test_mixing_records_with_and_without_sample_is_a_located_error(in_tmp):
    bare = {k: v for k, v in SAMPLED[0].items() if k != "sample"}
    [found] = problems(in_tmp, [bare, *SAMPLED])
    assert (found.line, found.field) == (2, "sample") and "r.jsonl:1" in found.found
    assert "prompt 'C01' of category 'coding' for model 'a' mixes records with and without `sample`" in found.found


@pytest.mark.parametrize("value", [-1, True, "", 2.5, ["0"]])
def test_a_sample_that_is_no_index_is_a_located_error(in_tmp, value):
    [found] = problems(in_tmp, [{**SAMPLED[0], "sample": value}])
    assert (found.line, found.field) == (1, "sample") and "non-negative whole number" in found.expected


def test_without_samples_keys_and_columns_are_unchanged(in_tmp):
    rows = [{k: v for k, v in r.items() if k != "sample"} for r in SAMPLED[::3]]
    result, _, _ = score(in_tmp, rows)
    assert [i.key for i in result.items] == [(("model", "a"), ("category", "coding"), ("prompt_id", p))
                                             for p in RESPONSES]
    assert "sample" not in result.item_columns
