"""The benchmark's workload builder (benchmarks/workload.py) writes inputs the gate's loaders accept.

No timing and no model: a tiny scale, loaded through the same config and loaders as `llm-gate run`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import workload  # noqa: E402

from gate.run import read_config  # noqa: E402
from gate.steps import load_suites, select_suites  # noqa: E402


def _load(root: Path) -> dict:
    config_path = workload.write_config(root, "gate.yml", root / "cache")
    config = read_config(config_path)
    return {s.name: s.data for s in load_suites(select_suites(config, ()), config_path.parent)}


def test_workload_loads_with_the_gate_loaders(tmp_path):
    sizes = workload.build(tmp_path, scale=0.01, seed=3)
    data = _load(tmp_path)
    assert set(data) == {"feedback-drift", "stereotype", "stability", "rubric", "retrieval"}
    assert len(data["feedback-drift"].candidates) == 3 * sizes["exercises"] * sizes["submissions"]
    assert len(data["stability"].records) == 4 * 4 * sizes["questions"] * sizes["variants"]
    assert len(data["stereotype"].records) == 4 * sizes["probes"]
    assert len(data["retrieval"].candidates) == len(data["retrieval"].baseline) == sizes["queries"]
    assert len(data["rubric"].records) == 3 * 2 * sizes["prompts"]
    answers = [r.response for r in data["stability"].records]
    lengths = [len(t.split()) for t in answers]
    assert min(lengths) >= 60 and max(lengths) <= 430  # ~80-400 words, rewording varies them
    assert len(set(answers)) > 0.9 * len(answers)  # distinct texts


def test_workload_is_deterministic_and_the_pr_changes_one_model_per_suite(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    workload.build(first, scale=0.01, seed=5)
    workload.build(second, scale=0.01, seed=5)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    changed = workload.apply_pr(second, seed=5)
    differ = {str(f) for f in files if (first / f).read_bytes() != (second / f).read_bytes()}
    assert differ == {"outputs/feedback/llama-3.1-8b-instruct.jsonl", "stability/mistral-7b-instruct.jsonl",
                      "stereotype/qwen2_7b.jsonl", "rag/enhanced.jsonl", "heuristic/mistral.jsonl"}
    assert changed["retrieval"] == "enhanced"
    before = [json.loads(line) for line in (first / "rag" / "enhanced.jsonl").read_text().splitlines()]
    after = [json.loads(line) for line in (second / "rag" / "enhanced.jsonl").read_text().splitlines()]
    assert [r["retrieved_ids"] for r in before] == [r["retrieved_ids"] for r in after]  # only answers change
    assert all(a["actual_answer"] != b["actual_answer"] for a, b in zip(before, after, strict=True))
    assert _load(second)["stability"].records


def test_figures_split_model_time_by_engine_and_pass_targets_on_their_bounds():
    import figures

    runtime = {"engines": [{"kind": "bertscore", "model": "m", "layer": 6, "model_seconds": 2.0},
                           {"kind": "embedding", "model": "m", "model_seconds": 28.5},
                           {"kind": "embedding", "model": "other", "model_seconds": 1.5}]}
    assert figures.engine_seconds(runtime) == {"bertscore": 2.0, "embedding": 30.0}
    assert figures.engine_seconds({"model_seconds": 3.0}) == {} == figures.engine_seconds(None)  # older gates
    runs = {"a": {"seconds": 300.0, "ok": True}, "b": {"seconds": 100.0, "ok": True},
            "c": {"seconds": 60.0, "ok": True, "peak_rss_bytes": 2**30}, "d": {"seconds": 31.0, "ok": True}}
    status = {t["target"]: t["status"] for t in figures.targets(runs, 70.0, 48.0)}
    assert status == {"cold >= 3x faster than (a)": "PASS", "cold no slower than (b)": "PASS",
                      "warm >= 10x faster than (a)": "FAIL", "model time <= 1.5x lower bound": "PASS",
                      "peak RSS of (c) <= 2 GiB": "PASS"}
