"""Startup: `llm-gate --help` and suites without model work never import torch (cold import costs seconds)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import EXAMPLES

PROBE = """
import sys
from typer.testing import CliRunner
from gate.cli import app
result = CliRunner().invoke(app, {args!r})
heavy = [m for m in ("torch", "transformers", "sentence_transformers", "bert_score") if m in sys.modules]
sys.stdout.write(f"exit={{result.exit_code}} heavy={{','.join(heavy)}}\\n")
"""


def run_probe(args: list[str], cwd) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_help_imports_no_ml_library(tmp_path):
    assert run_probe(["--help"], tmp_path) == "exit=0 heavy="
    assert run_probe(["run", "--help"], tmp_path) == "exit=0 heavy="


def test_model_free_suites_run_without_torch(tmp_path):
    """A heuristic rubric and a RAG suite without embeddings: scored, judged and reported, torch never imported."""
    import json
    import shutil

    shutil.copytree(EXAMPLES / "heuristic", tmp_path / "heuristic")
    shutil.copy(EXAMPLES / "rag" / "enhanced.jsonl", tmp_path / "rag.jsonl")
    (tmp_path / "gate.yml").write_text(
        "version: 1\nname: model-free\nsuites:\n"
        "  rubric: {kind: heuristic, records: [heuristic/*.jsonl], checks: {final_score_mean: {min: 0}}}\n"
        "  retrieval: {kind: rag, records: rag.jsonl, embedding_metrics: false, checks: {mrr: {min: 0}}}\n")
    args = ["run", "--config", str(tmp_path / "gate.yml"), "--no-publish", "--quiet",
            "--output-dir", str(tmp_path / "out")]
    assert run_probe(args, tmp_path) == "exit=0 heavy="
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [s["name"] for s in report["suites"]] == ["rubric", "retrieval"] and report["runtime"] is None
    retrieval = report["suites"][1]["groups"][0]["metrics"]
    assert retrieval["mrr"] > 0 and retrieval["rouge_l"] > 0 and retrieval["faithfulness"] is None
