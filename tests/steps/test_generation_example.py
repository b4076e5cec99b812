"""examples/generation/ runs offline: `llm-gate run` replays the committed cassettes (no provider is started, no
key is read), writes exactly the committed records, and passes against the committed snapshot; a changed prompt
stops the run with the command that records it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.cli import run_main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "generation"


def copy(tmp_path: Path) -> Path:
    root = tmp_path / "generation"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "assistant.py").write_text("raise SystemExit('replay must not start the provider')\n")
    (root / "outputs" / "rubric.jsonl").unlink()
    return root


def test_the_example_replays_its_cassettes(tmp_path, monkeypatch, capsys):
    root = copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, out, err = run_main(monkeypatch, capsys, "run", "--config", str(root / "gate.yml"), "--no-publish",
                              "--output-dir", str(tmp_path / "report"))
    assert code == 0, out + err
    assert (root / "outputs" / "rubric.jsonl").read_bytes() == (EXAMPLE / "outputs" / "rubric.jsonl").read_bytes()
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    (model,) = report["generation"]["suites"][0]["models"]
    assert (model["calls"], model["replayed"], model["recorded"]) == (32, 32, 0)
    assert report["suites"][0]["baseline"]["comparable"] is True
    assert report["suites"][0]["fingerprint"]["generated_by"] == ["support-bot-2026-11"]


def test_a_changed_prompt_is_a_miss_naming_the_command(tmp_path, monkeypatch, capsys):
    root = copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    prompts = root / "prompts.jsonl"
    prompts.write_text(prompts.read_text().replace("efficiently", "quickly", 1))
    code, out, err = run_main(monkeypatch, capsys, "run", "--config", str(root / "gate.yml"), "--no-publish",
                              "--output-dir", str(tmp_path / "report"))
    assert code == 2
    assert "--suite rubric --cassettes record-missing" in err and "quickly" in err
