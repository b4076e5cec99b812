"""`bless --add` keeps each item's third moment (issue 35, item 5: the skew of rare leaks), checked against numpy
and scipy on the runs themselves: Pébay's pairwise update, a snapshot folded run by run, and its file form."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gate.baselines.moments import Moments, merge
from gate.baselines.snapshots import Snapshot
from gate.results import Item, SuiteResult


def moments_of(x: np.ndarray) -> Moments:
    return Moments(len(x), float(x.mean()), float(((x - x.mean()) ** 2).sum()), float(((x - x.mean()) ** 3).sum()))


@pytest.mark.parametrize("sizes", [(1, 1), (3, 1), (1, 4), (5, 7), (20, 2)])
def test_merging_two_sets_is_their_union(sizes):
    rng = np.random.default_rng(sum(sizes))
    a, b = rng.exponential(1.0, sizes[0]), rng.exponential(2.0, sizes[1]) + 1
    both = np.concatenate([a, b])
    merged = merge(moments_of(a), moments_of(b))
    assert merged.n == len(both) and merged.mean == pytest.approx(both.mean(), rel=1e-12)
    assert merged.variance == pytest.approx(both.var(ddof=1), rel=1e-10)
    assert merged.third == pytest.approx(stats.moment(both, 3), rel=1e-9, abs=1e-12)


def run(values: dict[str, float], r: int) -> Snapshot:
    items = tuple(Item((("id", key),), {"x": v}) for key, v in values.items())
    result = SuiteResult("s", "drift", {}, (), items, ("id", "x"))
    return Snapshot.from_result(result, gate="g", created_at=f"2026-01-0{r + 1}T00:00:00Z", commit=None,
                                inputs_digest=None, tool_version="t")


def test_a_snapshot_folded_run_by_run_keeps_each_items_mean_variance_and_third_moment():
    rng = np.random.default_rng(4)
    values = rng.exponential(0.1, (6, 3)) + 0.3 * (rng.random((6, 3)) < 0.2)  # 6 runs of 3 items, rare jumps
    snapshot = run({"a": values[0, 0], "b": values[0, 1], "c": values[0, 2]}, 0)
    for r in range(1, 6):
        row = {"a": values[r, 0], "b": values[r, 1]}
        if r != 3:
            row["c"] = values[r, 2]  # item c is missing from run 4
        snapshot = snapshot.add_run(run(row, r))
    items = {dict(i.key)["id"]: i for i in snapshot.items}
    for name, column in (("a", values[:, 0]), ("b", values[:, 1]), ("c", np.delete(values[:, 2], 3))):
        item = items[name]
        assert item.values["x"] == pytest.approx(column.mean(), rel=1e-12)
        assert item.variances["x"] == pytest.approx(column.var(ddof=1), rel=1e-10)
        assert item.thirds["x"] == pytest.approx(stats.moment(column, 3), rel=1e-9, abs=1e-15)
    assert items["c"].count("x") == 5
    again = Snapshot.from_dict(snapshot.to_dict())
    assert {i.key: dict(i.thirds) for i in again.items} == {i.key: dict(i.thirds) for i in snapshot.items}


def test_a_snapshot_without_third_moments_still_loads_and_a_one_run_one_has_none():
    one = run({"a": 0.5, "b": 0.7}, 0)
    assert all(not i.thirds for i in one.items) and "thirds" not in one.to_dict()["items"][0]
    two = one.add_run(run({"a": 0.6, "b": 0.7}, 1)).to_dict()
    for item in two["items"]:
        item.pop("thirds")  # written before third moments were kept
    loaded = Snapshot.from_dict(two)
    assert all(not i.thirds for i in loaded.items) and loaded.items[0].variances["x"] == pytest.approx(0.005)
