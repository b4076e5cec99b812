"""Stereotype records with a `sample` index: several generations per probe, in JSONL and in the seed's evaluation
files (issue 20, item 9). The paired test's reference is scipy's Wilcoxon over each probe's mean probabilities."""

from __future__ import annotations

import json
import statistics
from functools import partial

import pytest
from scipy import stats

from gate.config import GateConfig
from gate.errors import InputError
from gate.kinds.base import ScoringContext
from gate.kinds.samples import collapse
from gate.kinds.stereotype import ITEM_COLUMNS, STEREOTYPE, score_stereotype
from gate.kinds.stereotype.config import StereotypeSuiteConfig
from gate.kinds.stereotype.records import load_stereotype
from tests.support.fake_runtime import FakeRuntime

# probe k, sample s: P(stereotype) of the control and of the bias-injected answer
CONTROL = {(k, s): round(0.1 + 0.05 * k + 0.01 * s, 4) for k in range(6) for s in range(3)}
BIAS = {(k, s): round(0.1 + 0.07 * k - 0.03 * s + 0.005 * k * s, 4) for k in range(6) for s in range(3)}


def row(k: int, s=None, **extra) -> dict:
    return {"id": f"p{k}", "model": "m", "emgsd_text": f"emgsd {k}", "trait": "lazy" if k % 2 else "bad drivers",
            "control_response": f"control {k} {s}", "bias_response": f"bias {k} {s}",
            **({} if s is None else {"sample": s}), **extra}


SAMPLED = [row(k, s) for k in range(6) for s in range(3)]


def write(directory, rows, name="p.jsonl") -> None:
    (directory / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def score(directory, pattern="p.jsonl"):
    suite = StereotypeSuiteConfig(kind="stereotype", records=[pattern])
    probabilities = ({f"control {k} {s}": p for (k, s), p in CONTROL.items()}
                     | {f"bias {k} {s}": p for (k, s), p in BIAS.items()})
    runtime = FakeRuntime(probabilities=probabilities)
    data = load_stereotype("s", suite, directory)
    context = ScoringContext(GateConfig(version=1, suites={"s": suite}), runtime, directory)
    return score_stereotype("s", suite, data, context), suite


def problems(directory) -> list:
    with pytest.raises(InputError) as caught:
        load_stereotype("s", StereotypeSuiteConfig(kind="stereotype", records=["p.jsonl"]), directory)
    return list(caught.value.problems)


def test_three_samples_per_probe_load_and_key_each_generation(in_tmp):
    write(in_tmp, SAMPLED)
    result, _ = score(in_tmp)
    assert len(result.items) == 18
    assert result.items[1].key == (("id", "p0"), ("model", "m"), ("trait", "bad drivers"), ("sample", "1"))
    assert result.item_columns == (*ITEM_COLUMNS[:3], "sample", *ITEM_COLUMNS[3:])


def test_the_paired_test_and_the_count_are_per_probe(in_tmp):
    """Generations of one probe are not independent pairs: the test pairs each probe's mean probabilities."""
    write(in_tmp, SAMPLED)
    result, _ = score(in_tmp)
    [group] = result.groups_at("group")
    assert group.metrics["n"] == 6
    bias = [statistics.mean(BIAS[k, s] for s in range(3)) for k in range(6)]
    control = [statistics.mean(CONTROL[k, s] for s in range(3)) for k in range(6)]
    assert group.metrics["paired_test_p"] == pytest.approx(stats.wilcoxon(bias, control).pvalue)  # exact, n = 6


def test_collapsed_items_are_each_probes_mean(in_tmp):
    write(in_tmp, SAMPLED)
    result, suite = score(in_tmp)
    merged = collapse(result, partial(STEREOTYPE.statistic, suite, columns=tuple(result.items[0].values)))
    assert [i.draws for i in merged.items] == [3] * 6
    drift = [statistics.mean(abs(BIAS[k, s] - CONTROL[k, s]) for s in range(3)) for k in range(6)]
    assert [i.values["drift_drift_score"] for i in merged.items] == pytest.approx(drift)
    assert merged.groups_at("group")[0].metrics["drift_score_mean"] == pytest.approx(statistics.mean(drift))


def test_evaluation_files_give_a_sample_to_all_their_entries_or_per_entry(in_tmp):
    """One evaluation file per generation run: a top-level `sample` applies to the entries without their own."""
    for s in range(2):
        (in_tmp / f"run{s}.json").write_text(json.dumps({"model": "m", "sample": s, "results": [
            {k: v for k, v in row(k, s).items() if k not in ("model", "sample")} for k in range(6)]}, indent=2))
    (in_tmp / "run2.json").write_text(json.dumps({"model": "m", "results": [row(k, 2) for k in range(6)]}))
    result, _ = score(in_tmp, "run*.json")
    assert sorted(i.key for i in result.items) == sorted(
        (("id", f"p{k}"), ("model", "m"), ("trait", "lazy" if k % 2 else "bad drivers"), ("sample", str(s)))
        for k in range(6) for s in range(3))


def test_a_sample_without_an_id_is_a_located_error(in_tmp):
    write(in_tmp, [{k: v for k, v in row(0, 0).items() if k != "id"}])
    [found] = problems(in_tmp)
    assert (found.line, found.field) == (1, "id") and "`sample`" in found.expected


def test_the_same_probe_and_sample_twice_is_a_located_duplicate(in_tmp):
    write(in_tmp, [row(0, 0), row(0, 1), row(0, "1")])
    [found] = problems(in_tmp)
    assert (found.file, found.line, found.field) == ("p.jsonl", 3, "sample")
    assert "id 'p0' sample '1' again (first at p.jsonl:2)" in found.found


def test_mixing_records_with_and_without_sample_is_a_located_error(in_tmp):
    write(in_tmp, [row(0, 0), row(1), row(0), row(0, 1)])
    [found] = problems(in_tmp)
    assert (found.line, found.field) == (3, "sample") and "p.jsonl:1" in found.found
    assert "probe 'p0' mixes records with and without `sample`" in found.found


@pytest.mark.parametrize("value", [-3, True, " ", 0.25, {}])
def test_a_sample_that_is_no_index_is_a_located_error(in_tmp, value):
    write(in_tmp, [row(0, value)])
    [found] = problems(in_tmp)
    assert (found.line, found.field) == (1, "sample") and "non-negative whole number" in found.expected


def test_without_samples_keys_and_columns_are_unchanged(in_tmp):
    write(in_tmp, [row(k) for k in range(6)])
    result, _ = score(in_tmp)
    assert result.items[0].key == (("id", "p0"), ("model", "m"), ("trait", "bad drivers"))
    assert result.item_columns == ITEM_COLUMNS
