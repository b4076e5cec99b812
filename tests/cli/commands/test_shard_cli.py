"""`llm-gate run --shard i/N` then `llm-gate merge`: the merged report equals the unsharded run's."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import EXAMPLES
from tests.test_cli import run_cli


@pytest.fixture
def example(tmp_path, monkeypatch):
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=shutil.ignore_patterns("gate-report", ".gate-cache"))
    monkeypatch.chdir(tmp_path)
    # small blocks so that three shards each get work on the stability suite's 200 answers
    config = tmp_path / "examples" / "gate.yml"
    config.write_text(config.read_text().replace("version: 1\n", "version: 1\nruntime: {batch_size: 8}\n", 1))
    return tmp_path


def report(path) -> dict:
    data = json.loads(path.read_text())
    data.pop("generated_at")
    data.pop("runtime")  # what the model work cost: a merge computes none
    for suite in data["suites"]:  # the snapshot's age moves on between the two runs
        (suite.get("baseline") or {}).pop("age_days", None)
    return data


def test_sharded_then_merged_equals_unsharded(example, monkeypatch, capsys):
    common = ["-c", "examples/gate.yml", "-q", "--suite", "stability", "--suite", "stereotype"]
    for index in (1, 2, 3):
        assert run_cli(monkeypatch, "run", *common, "--shard", f"{index}/3", "--output-dir", "parts") == 0
    assert "shard 3/3 of feedback-quality" in capsys.readouterr().out
    assert sorted(p.name for p in (example / "parts" / "shards").iterdir()) == [
        "shard-1-of-3.npz", "shard-2-of-3.npz", "shard-3-of-3.npz"]
    merged = run_cli(monkeypatch, "merge", "parts/shards", *common, "--no-publish", "--output-dir", "merged")
    plain = run_cli(monkeypatch, "run", *common, "--no-publish", "--output-dir", "plain")
    assert merged == plain == 0
    assert report(example / "merged" / "report.json") == report(example / "plain" / "report.json")
    assert (example / "merged" / "stability" / "items.csv").read_bytes() == (
        example / "plain" / "stability" / "items.csv").read_bytes()


def test_merge_refuses_incomplete_or_foreign_shards(example, monkeypatch, capsys):
    common = ["-c", "examples/gate.yml", "-q", "--suite", "stability"]
    for index in (1, 2):
        assert run_cli(monkeypatch, "run", *common, "--shard", f"{index}/3", "--output-dir", "parts") == 0
    capsys.readouterr()
    assert run_cli(monkeypatch, "merge", "parts/shards", *common, "--no-publish") == 2
    assert "3" in capsys.readouterr().err  # names the missing shard
    assert run_cli(monkeypatch, "run", *common, "--shard", "3/3", "--output-dir", "parts") == 0
    # the same shards cannot be merged into a run over other inputs
    assert run_cli(monkeypatch, "merge", "parts/shards", "-c", "examples/gate.yml", "-q", "--suite", "stereotype",
                   "--no-publish") == 2
    assert run_cli(monkeypatch, "merge", "nowhere", *common, "--no-publish") == 2
    assert run_cli(monkeypatch, "run", *common, "--shard", "4/3") == 2
    assert "--shard" in capsys.readouterr().err


def test_a_shard_keeps_the_cache_within_its_size_cap(example, monkeypatch):
    """A sharded run finishes the cache as a plain run does: least recently used files evicted down to the cap."""
    config = example / "examples" / "gate.yml"
    config.write_text(config.read_text().replace("runtime: {batch_size: 8}", "runtime: {batch_size: 8, "
                                                 "cache_max_mb: 1}", 1))
    assert run_cli(monkeypatch, "run", "-c", "examples/gate.yml", "-q", "--suite", "feedback-drift", "--shard",
                   "1/1", "--output-dir", "parts") == 0
    files = [p for p in (example / ".gate-cache" / "vectors").rglob("*") if p.is_file()]
    assert files and sum(p.stat().st_size for p in files) <= 2**20  # ~20 MB without the cap
