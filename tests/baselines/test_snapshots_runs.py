"""A snapshot blessed from K runs (`Snapshot.add_run`, `bless --add`) is a distribution: per item the mean and
the run-to-run sample variance of its values, per metric and group the value of every run. Checked against
numpy over the same K runs, through the JSON shape, and for a schema-1 file (one run)."""

from __future__ import annotations

import numpy as np
import pytest

from gate.baselines.snapshots import SCHEMA, Snapshot
from gate.results import GroupResult, Item, SuiteResult

K, N = 4, 6
MODELS = ("a", "b")


def run_result(values: np.ndarray, present=None) -> SuiteResult:
    """values[model, item, column] for columns (f1, latency); `present`: the item ids this run has."""
    present = range(N) if present is None else present
    items, groups = [], []
    for m, model in enumerate(MODELS):
        ids = list(present)
        items += [Item((("id", str(i)), ("model", model)), {"f1": float(values[m, i, 0]),
                                                              "latency": float(values[m, i, 1])}) for i in ids]
        groups.append(GroupResult("group", (("model", model),), {"f1": float(values[m, ids, 0].mean())}, len(ids)))
    return SuiteResult("s", "drift", {"f1": float(values[:, list(present), 0].mean())}, tuple(groups), tuple(items),
                       ("id", "model", "f1", "latency"))


def snap(result: SuiteResult, day: int = 1) -> Snapshot:
    return Snapshot.from_result(result, gate="g", created_at=f"2026-11-{day:02d}T00:00:00Z", commit=f"c{day}",
                                inputs_digest=None, tool_version="1")


def blessed(runs: list[SuiteResult]) -> Snapshot:
    snapshot = snap(runs[0], 1)
    for day, result in enumerate(runs[1:], start=2):
        snapshot = snapshot.add_run(snap(result, day))
    return snapshot


@pytest.fixture
def draws() -> np.ndarray:
    rng = np.random.default_rng(17)
    return rng.normal([0.8, 1.5], [0.05, 0.3], size=(K, len(MODELS), N, 2))  # (run, model, item, column)


def test_k_runs_give_numpys_mean_and_sample_variance_per_item(draws):
    snapshot = blessed([run_result(d) for d in draws])
    assert snapshot.runs == K and len(snapshot.items) == len(MODELS) * N
    for item in snapshot.items:
        key = dict(item.key)
        m, i = MODELS.index(key["model"]), int(key["id"])
        assert item.runs == K
        for c, column in enumerate(("f1", "latency")):
            assert item.values[column] == pytest.approx(draws[:, m, i, c].mean(), rel=1e-12)
            assert item.variances[column] == pytest.approx(draws[:, m, i, c].var(ddof=1), rel=1e-9)


def test_each_metric_keeps_its_value_in_every_run_and_their_mean_and_sd(draws):
    snapshot = blessed([run_result(d) for d in draws])
    suite_f1 = [draws[k, :, :, 0].mean() for k in range(K)]
    assert snapshot.metric_runs["f1"] == pytest.approx(suite_f1, rel=1e-12)
    assert snapshot.group_value("suite", (), "f1") == pytest.approx(np.mean(suite_f1), rel=1e-12)
    assert snapshot.group_sd("suite", (), "f1") == pytest.approx(np.std(suite_f1, ddof=1), rel=1e-9)
    for m, model in enumerate(MODELS):
        key = (("model", model),)
        per_run = [draws[k, m, :, 0].mean() for k in range(K)]
        [group] = [g for g in snapshot.groups if g.key == key]
        assert group.runs["f1"] == pytest.approx(per_run, rel=1e-12)
        assert snapshot.group_value("group", key, "f1") == pytest.approx(np.mean(per_run), rel=1e-12)
        assert snapshot.group_sd("group", key, "f1") == pytest.approx(np.std(per_run, ddof=1), rel=1e-9)
    assert (snapshot.created_at, snapshot.commit) == (f"2026-11-{K:02d}T00:00:00Z", f"c{K}")  # the latest run


def test_a_one_run_snapshot_knows_no_noise(draws):
    one = snap(run_result(draws[0]))
    assert one.runs == 1 and one.group_sd("suite", (), "f1") is None
    assert one.group_sd("group", (("model", "a"),), "f1") is None
    assert all(i.runs == 1 and not i.variances for i in one.items)


def test_the_distribution_survives_the_json_round_trip(draws):
    snapshot = blessed([run_result(d) for d in draws])
    data = snapshot.to_dict()
    assert data["schema"] == SCHEMA == 2 and data["runs"] == K
    assert data["metric_runs"]["f1"] == pytest.approx(list(snapshot.metric_runs["f1"]))
    assert data["items"][0]["runs"] == K and set(data["items"][0]["variances"]) == {"f1", "latency"}
    again = Snapshot.from_dict(data)
    assert again == snapshot
    assert again.group_sd("group", (("model", "b"),), "f1") == snapshot.group_sd("group", (("model", "b"),), "f1")


def test_a_schema_1_file_reads_as_one_run(draws):
    data = snap(run_result(draws[0])).to_dict()
    old = {k: v for k, v in data.items() if k not in ("runs", "metric_runs")} | {"schema": 1}
    snapshot = Snapshot.from_dict(old)
    assert snapshot.runs == 1 and snapshot.metric_runs == {} and all(i.runs == 1 for i in snapshot.items)
    assert snapshot.group_sd("suite", (), "f1") is None
    more = snapshot.add_run(snap(run_result(draws[1]), 2))  # and a second run folds into it
    assert more.runs == 2 and more.metric_runs["f1"] == pytest.approx([draws[0, :, :, 0].mean(),
                                                                       draws[1, :, :, 0].mean()])


def test_items_absent_from_a_run_keep_their_earlier_values(draws):
    """Item 5 is missing from runs 2 and 3, item 0 from run 1: each keeps the mean of the runs it was in."""
    runs = [run_result(draws[0], present=range(1, N)), run_result(draws[1], present=range(N - 1)),
            run_result(draws[2], present=range(N - 1))]
    snapshot = blessed(runs)
    items = {(dict(i.key)["model"], dict(i.key)["id"]): i for i in snapshot.items}
    assert len(items) == len(MODELS) * N
    late, gone = items[("a", "0")], items[("a", "5")]
    assert (late.runs, gone.runs) == (2, 1)
    assert late.values["f1"] == pytest.approx(draws[1:3, 0, 0, 0].mean(), rel=1e-12)
    assert late.variances["f1"] == pytest.approx(draws[1:3, 0, 0, 0].var(ddof=1), rel=1e-9)
    assert gone.values == {"f1": draws[0, 0, 5, 0], "latency": draws[0, 0, 5, 1]} and not gone.variances
    middle = items[("b", "3")]
    assert middle.runs == 3 and middle.values["latency"] == pytest.approx(draws[:3, 1, 3, 1].mean(), rel=1e-12)


def test_a_value_missing_from_one_run_is_the_mean_of_the_runs_that_measured_it(draws):
    first, second, third = (snap(run_result(d), day) for day, d in enumerate(draws[:3], start=1))
    key = first.items[0].key
    second = Snapshot.from_dict({**second.to_dict(), "items": [
        {"key": dict(i.key), "values": {k: v for k, v in i.values.items() if not (i.key == key and k == "f1")}}
        for i in second.items]})  # item 0 of model a has no f1 in run 2
    item = next(i for i in first.add_run(second).add_run(third).items if i.key == key)
    assert item.values["f1"] == pytest.approx((draws[0, 0, 0, 0] + draws[2, 0, 0, 0]) / 2, rel=1e-12)
    assert item.variances["f1"] == pytest.approx(np.var([draws[0, 0, 0, 0], draws[2, 0, 0, 0]], ddof=1), rel=1e-9)


def test_a_group_first_seen_in_a_later_run_keeps_every_value(draws):
    def without_b(result: SuiteResult) -> SuiteResult:
        return SuiteResult("s", "drift", dict(result.metrics), tuple(g for g in result.groups if g.key != (("model",
                           "b"),)), tuple(i for i in result.items if dict(i.key)["model"] != "b"), result.item_columns)

    snapshot = blessed([without_b(run_result(draws[0])), run_result(draws[1]), run_result(draws[2])])
    per_run = [draws[1, 1, :, 0].mean(), draws[2, 1, :, 0].mean()]
    assert snapshot.group_value("group", (("model", "b"),), "f1") == pytest.approx(np.mean(per_run), rel=1e-12)
    assert snapshot.group_sd("group", (("model", "b"),), "f1") == pytest.approx(np.std(per_run, ddof=1), rel=1e-9)
