"""`gate.baselines.snapshots` called directly: what a snapshot keeps, how a snapshot file is validated, what
makes a run not comparable with it, and a snapshot's age. Expected values are worked by hand."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from gate.baselines.fingerprints import fingerprint_differences
from gate.baselines.snapshots import (
    SCHEMA,
    Snapshot,
    SnapshotComparison,
    SnapshotGroup,
    SnapshotItem,
    age_in_days,
    compare,
)
from gate.results import GroupResult, Item, SuiteResult

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
FP = {"model": "m", "layer": 6, "libraries": {"torch": "2.13.0"}, "source": "cache: /a"}


def result(kind="drift", fingerprint=FP) -> SuiteResult:
    return SuiteResult(
        "s", kind, {"f1": 0.8, "gone": None},
        (GroupResult("group", (("model", "a"),), {"f1": 0.8, "gone": None}, 2),
         GroupResult("model", (("model", "a"),), {"f1": 0.7}, 2)),
        (Item((("id", "1"), ("model", "a")), {"f1": 0.9, "ok": True, "text": "hi", "none": None, "nan": math.nan,
                                               "inf": -math.inf, "id": 1, "n": 3}),
         Item((("id", "2"), ("model", "a")), {})),
        ("id", "model", "f1"), fingerprint=fingerprint)


def snapshot(**changes) -> Snapshot:
    fields = {"gate": "g", "suite": "s", "kind": "drift", "created_at": "2026-11-01T12:00:00Z", "commit": "abc",
              "fingerprint": FP, "inputs_digest": None, "metrics": {"f1": 0.8}}
    return Snapshot(**{**fields, **changes})


# ---------------------------------------------------------------- what a snapshot keeps


def test_from_result_keeps_finite_numbers_and_booleans_of_items_but_not_their_key_fields():
    snap = Snapshot.from_result(result(), gate="g", created_at="2026-11-01T12:00:00Z", commit=None,
                                inputs_digest="d", tool_version="1.2")
    first, second = snap.items
    assert first.key == (("id", "1"), ("model", "a"))
    assert first.values == {"f1": 0.9, "ok": 1.0, "n": 3.0}  # text, None, NaN, −inf and the key field 'id' dropped
    assert type(first.values["ok"]) is float and second.values == {}
    assert [(g.level, g.key, g.n) for g in snap.groups] == [("group", (("model", "a"),), 2),
                                                             ("model", (("model", "a"),), 2)]
    assert (snap.suite, snap.kind, snap.inputs_digest, snap.tool_version) == ("s", "drift", "d", "1.2")


def test_a_snapshot_survives_its_json_shape():
    snap = Snapshot.from_result(result(), gate="g", created_at="2026-11-01T12:00:00Z", commit="abc",
                                inputs_digest=None, tool_version="1")
    data = snap.to_dict()
    assert data["schema"] == SCHEMA == 2 and data["runs"] == 1 and "metric_runs" not in data  # one run
    assert data["groups"][0] == {"level": "group", "key": {"model": "a"}, "n": 2, "metrics": {"f1": 0.8, "gone": None}}
    assert data["items"][0] == {"key": {"id": "1", "model": "a"}, "values": {"f1": 0.9, "ok": 1.0, "n": 3.0}}
    again = Snapshot.from_dict(data)
    assert again == snap


@pytest.mark.parametrize("level, key, expected", [
    ("suite", (), 0.8),
    ("group", (("model", "a"),), 0.75),
    ("model", (("model", "a"),), 0.6),
    ("group", (("model", "b"),), None),  # no such group
    ("trait", (("model", "a"),), None),  # no such level
])
def test_group_value(level, key, expected):
    snap = snapshot(groups=(SnapshotGroup("group", (("model", "a"),), {"f1": 0.75}, 1),
                            SnapshotGroup("model", (("model", "a"),), {"f1": 0.6}, 1)))
    assert snap.group_value(level, key, "f1") == expected


@pytest.mark.parametrize("value", [None, math.nan, True, "0.8"])
def test_a_group_value_that_is_not_a_finite_number_is_none(value):
    snap = snapshot(metrics={"f1": value}, groups=(SnapshotGroup("group", (), {"f1": value}, 1),))
    assert snap.group_value("suite", (), "f1") is None and snap.group_value("group", (), "f1") is None
    assert snap.group_value("suite", (), "missing") is None


# ---------------------------------------------------------------- validating a snapshot file


def valid() -> dict:
    return snapshot(items=(SnapshotItem((("id", "1"),), {"f1": 0.5}),)).to_dict()


@pytest.mark.parametrize("change, message", [
    (lambda d: [d], "a JSON object, found list"),
    (lambda d: {**d, "schema": None}, "snapshot schema 2, found None (NoneType)"),
    (lambda d: {k: v for k, v in d.items() if k != "schema"}, "snapshot schema 2, found None"),
    (lambda d: {**d, "schema": 3}, "found 3 (int) (written by a newer llm-quality-gate)"),
    (lambda d: {**d, "schema": "1"}, "snapshot schema 2, found '1'"),
    (lambda d: {**d, "suite": 3}, "'suite' to be a str, found 3 (int)"),
    (lambda d: {**d, "fingerprint": []}, "'fingerprint' to be a dict"),
    (lambda d: {k: v for k, v in d.items() if k != "items"}, "'items' to be a list, found None"),
    (lambda d: {**d, "groups": [{"level": "group"}]}, "groups and items of the form"),
    (lambda d: {**d, "groups": ["x"]}, "groups and items of the form"),
    (lambda d: {**d, "items": [{"key": {"id": "1"}, "values": [1]}]}, "groups and items of the form"),
    (lambda d: {**d, "items": [{"values": {}}]}, "groups and items of the form"),
])
def test_invalid_snapshot_files_say_what_is_wrong(change, message):
    with pytest.raises(ValueError) as caught:
        Snapshot.from_dict(change(valid()))
    assert message in str(caught.value)


def test_reading_drops_item_values_that_are_not_finite_numbers_and_tolerates_optional_fields():
    data = valid()
    data["items"] = [{"key": {"id": 7}, "values": {"f1": 0.5, "x": None, "y": "text", "z": True}}]
    for optional in ("commit", "inputs_digest", "tool_version"):
        del data[optional]
    data["groups"] = [{"level": "group", "key": {"model": "a"}, "metrics": {"f1": 0.8}}]  # no n
    snap = Snapshot.from_dict(data)
    assert snap.items == (SnapshotItem((("id", "7"),), {"f1": 0.5}),)  # keys become strings; only finite numbers
    assert snap.groups[0].n == 0 and snap.commit is None and snap.inputs_digest is None and snap.tool_version == ""


# ---------------------------------------------------------------- comparability


def test_fingerprint_differences_walk_nested_settings_in_order():
    then = {"model": "m", "layer": 17, "libraries": {"torch": "2.12.0", "numpy": "2.0"}, "idf": False}
    now = {"model": "m", "layer": 6, "libraries": {"torch": "2.13.0", "numpy": "2.0"}, "rescale": True}
    assert fingerprint_differences(then, now) == [
        "idf: False → absent", "layer: 17 → 6", "libraries.torch: 2.12.0 → 2.13.0", "rescale: absent → True"]


def test_fingerprint_differences_ignore_the_load_source_and_json_tuples():
    then = {"source": "cache: /a", "weights": {"source": "x", "sha": "1"}, "shape": [1, 2]}
    now = {"source": "package: /b", "weights": {"source": "y", "sha": "1"}, "shape": (1, 2)}
    assert fingerprint_differences(then, now) == []
    assert fingerprint_differences({}, {}) == []


def test_fingerprint_differences_shorten_sha256_digests_only():
    a, b = "a" * 64, "b" * 64
    assert fingerprint_differences({"w": a}, {"w": b}) == [f"w: {'a' * 12}… → {'b' * 12}…"]
    assert fingerprint_differences({"w": "A" * 64}, {"w": "x"}) == [f"w: {'A' * 64} → x"]  # not lowercase hex
    assert fingerprint_differences({"w": {"x": 1}}, {"w": 1}) == ["w: {'x': 1} → 1"]  # a mapping vs a value


@pytest.mark.parametrize("created, expected", [
    ("2026-11-21T12:00:00Z", 1.0),
    ("2026-11-21T00:00:00+00:00", 1.5),
    ("2026-11-22T12:00:00+02:00", 2 / 24),  # 10:00 UTC
    ("2026-11-20T12:00:00", 2.0),  # no zone: compared as wall-clock times
    ("2026-11-23T12:00:00Z", 0.0),  # from the future: never negative
    ("2026-11-22", 0.5),
])
def test_age_in_days(created, expected):
    assert age_in_days(created, NOW) == pytest.approx(expected)


@pytest.mark.parametrize("created", ["", "yesterday", "2026-13-01T00:00:00Z"])
def test_an_unreadable_date_has_no_age(created):
    assert age_in_days(created, NOW) is None


def test_compare_without_a_snapshot():
    comparison = compare(None, result(), path="b/s.json", inputs_digest=None, now=NOW, max_age_days=1,
                         changed_in_pr=["b/s.json"])
    assert not comparison.comparable and comparison.age_days is None and not comparison.stale
    assert comparison.changed_in_pr == ("b/s.json",)
    assert comparison.not_comparable_reason == "no baseline snapshot at b/s.json (bless one: `llm-gate baseline bless`)"


def test_compare_lists_every_difference_kind_first():
    snap = snapshot(kind="rag", fingerprint={**FP, "layer": 9}, inputs_digest="old")
    comparison = compare(snap, result(), path="p", inputs_digest="new", now=NOW, max_age_days=None)
    assert comparison.differences == ("kind: rag → drift", "layer: 9 → 6",
                                      "baseline input files changed since the snapshot was blessed")
    assert not comparison.comparable
    assert comparison.not_comparable_reason == ("baseline not comparable: kind: rag → drift; layer: 9 → 6; "
                                                "baseline input files changed since the snapshot was blessed")


def test_a_comparable_snapshot_has_no_reason():
    comparison = compare(snapshot(fingerprint={**FP, "source": "elsewhere"}), result(), path="p",
                         inputs_digest=None, now=NOW, max_age_days=90)
    assert comparison.comparable and comparison.not_comparable_reason is None
    assert comparison.age_days == pytest.approx(21.0) and not comparison.stale


@pytest.mark.parametrize("age, max_age, stale", [(21, 20, True), (21, 21, False), (21, None, False), (0, 1, False)])
def test_stale_only_past_the_maximum_age(age, max_age, stale):
    created = (NOW - timedelta(days=age)).isoformat()
    comparison = compare(snapshot(created_at=created), result(), path="p", inputs_digest=None, now=NOW,
                         max_age_days=max_age)
    assert comparison.stale is stale and comparison.comparable  # an old snapshot is still comparable


def test_a_snapshot_with_an_unreadable_date_is_never_stale():
    comparison = compare(snapshot(created_at="garbage"), result(), path="p", inputs_digest=None, now=NOW,
                         max_age_days=1)
    assert comparison.age_days is None and comparison.stale is False


def test_comparison_defaults():
    empty = SnapshotComparison(snapshot(), "p")
    assert empty.comparable and empty.differences == () and empty.changed_in_pr == () and not empty.stale
