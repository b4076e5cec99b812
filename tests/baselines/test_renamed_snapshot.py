"""A snapshot blessed before a kind renamed a metric (the RAG `faithfulness`, now `context_similarity`) is read under
the new name — the same measure, so it stays comparable — with a warning; nothing else in it changes."""

from __future__ import annotations

import json
from pathlib import Path

from gate.baselines.comparison import read_snapshot
from gate.kinds.rag.config import RagSuiteConfig

BEFORE = Path(__file__).parent / "data" / "retrieval-before-rename.json"  # examples/ before the rename (5 runs)
AFTER = Path(__file__).parents[2] / "examples" / "baselines" / "metrics" / "retrieval.json"


def test_old_names_are_read_as_new_ones_with_a_warning(capsys):
    raw = json.loads(BEFORE.read_text())
    snapshot = read_snapshot(BEFORE, RagSuiteConfig.renamed)
    err = capsys.readouterr().err
    assert "`context_similarity` was called `faithfulness`" in err and not err.startswith("::")
    group = raw["groups"][0]
    assert "faithfulness" in group["metrics"]
    ours = snapshot.groups[0]
    assert "faithfulness" not in ours.metrics and ours.metrics["context_similarity"] == group["metrics"]["faithfulness"]
    assert ours.runs["context_similarity"] == tuple(group["runs"]["faithfulness"])
    item = next(i for i in raw["items"] if "faithfulness" in i["values"])
    mine = next(i for i in snapshot.items if dict(i.key) == item["key"])
    assert mine.values["context_similarity"] == item["values"]["faithfulness"]
    assert "faithfulness" not in mine.values
    assert snapshot.fingerprint == raw["fingerprint"]  # the fingerprint's keys are not metric names


def test_the_migrated_snapshot_equals_the_one_written_with_new_names(capsys):
    old = read_snapshot(BEFORE, RagSuiteConfig.renamed)
    new = read_snapshot(AFTER, RagSuiteConfig.renamed)
    assert capsys.readouterr().err.count("warning") == 1  # only the old file warns
    assert old.to_dict() == new.to_dict()


def test_without_renames_nothing_moves():
    assert "faithfulness" in read_snapshot(BEFORE).groups[0].metrics


def test_history_entries_recorded_before_the_rename_continue_the_trend(tmp_path):
    """A history entry holds `faithfulness`; read for a gate whose RAG suite now says `context_similarity`, the
    trend continues under the new name (the suite's other kind-less or other-kind suites are left alone)."""
    from gate.baselines import flow
    from gate.baselines.history import Entry
    from gate.baselines.trends import headline
    from gate.run import read_config

    (tmp_path / "gate.yml").write_text("version: 1\nname: g\nsuites:\n  r: {kind: rag, records: r.jsonl}\n"
                                       "  h: {kind: heuristic, records: h.jsonl}\nhistory: {path: hist.jsonl}\n")
    old = {"kind": "rag", "metrics": {}, "fingerprint": {},
           "groups": [{"level": "group", "key": {"system": "s"}, "metrics": {"faithfulness": 0.75, "mrr": 0.5}}]}
    other = {"kind": "heuristic", "metrics": {"faithfulness": 1.0}, "groups": []}  # not the rag kind's name
    newer = {**old, "groups": [{**old["groups"][0], "metrics": {"context_similarity": 0.8}}]}
    entries = [Entry(1, "g", "a" * 40, "refs/heads/main", "2026-11-01T00:00:00Z", "pass", {"r": old, "h": other}),
               Entry(1, "g", "b" * 40, "refs/heads/main", "2026-11-02T00:00:00Z", "pass", {"r": newer})]
    (tmp_path / "hist.jsonl").write_text("".join(e.to_json() + "\n" for e in entries))
    config = read_config(tmp_path / "gate.yml")
    read = flow.read_history(config, tmp_path, None)
    assert [headline(e.suites["r"], "context_similarity") for e in read.entries] == [0.75, 0.8]
    assert read.entries[0].suites["r"]["groups"][0]["metrics"]["mrr"] == 0.5
    assert read.entries[0].suites["h"]["metrics"] == {"faithfulness": 1.0}
