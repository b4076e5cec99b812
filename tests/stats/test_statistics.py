"""`gate.stats.statistics`: each builder recomputes its metric as numpy does, on one block of rows and on a
stack of resamples at once (what the bootstrap in `change_test` relies on)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gate.stats import ItemStatistic, statistics

VALUES = np.array([0.3, 0.91, 0.5, 0.12, 0.77, 0.64, 0.05, 0.88, 0.42, 0.5])

CASES = [
    (statistics.mean("x"), np.mean, "mean of x"),
    (statistics.std("x"), np.std, "standard deviation of x"),  # population (ddof 0), as the seeds' np.std
    (statistics.maximum("x"), np.max, "maximum of x"),
    (statistics.minimum("x"), np.min, "minimum of x"),
    (statistics.median("x"), np.median, "median of x"),
    (statistics.percentile("x", 95), lambda v: np.percentile(v, 95), "95th percentile of x"),
    (statistics.percentile("x", 12.5), lambda v: np.percentile(v, 12.5), "12.5th percentile of x"),
    (statistics.reciprocal_mean("x"), lambda v: len(v) / np.sum(v), "items per total x"),
]


@pytest.mark.parametrize("statistic, reference, name", CASES, ids=[c[2] for c in CASES])
def test_each_builder_is_its_numpy_reference(statistic, reference, name):
    assert isinstance(statistic, ItemStatistic) and statistic.columns == ("x",) and statistic.name == name
    assert statistic(VALUES.reshape(-1, 1)) == pytest.approx(float(reference(VALUES)), rel=1e-12)
    assert isinstance(statistic(VALUES.reshape(-1, 1)), float)


@pytest.mark.parametrize("statistic, reference, name", CASES, ids=[c[2] for c in CASES])
def test_a_stack_of_resamples_is_one_call(statistic, reference, name):
    idx = np.random.default_rng(0).integers(0, len(VALUES), size=(7, len(VALUES)))
    block = VALUES.reshape(-1, 1)[idx]  # (7, n, 1)
    computed = statistic.compute(block)
    assert computed.shape == (7,)
    assert computed == pytest.approx([reference(VALUES[i]) for i in idx], rel=1e-12)


def test_only_a_plain_mean_is_linear():
    assert statistics.mean("x").linear is True
    assert not any(s.linear for s, _, _ in CASES[1:])


def test_a_percentile_interpolates_linearly_as_the_rag_summary_does():
    # [1, 2, 3, 4]: the 90th percentile sits at rank 0.9 · 3 = 2.7, between 3 and 4
    assert statistics.percentile("x", 90)(np.array([[4.0], [1.0], [3.0], [2.0]])) == pytest.approx(3.7)


def test_items_per_total_time_is_nan_without_time():
    assert math.isnan(statistics.reciprocal_mean("latency")(np.zeros((3, 1))))
    assert statistics.reciprocal_mean("latency")(np.array([[0.5], [1.5]])) == pytest.approx(1.0)  # 2 items / 2 s
