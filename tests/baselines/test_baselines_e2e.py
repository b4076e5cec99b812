"""Baselines, history and trends end to end through the CLI, on the example's rubric suite (no model, fast)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import xmlschema
import yaml

from tests.conftest import EXAMPLES, REPO
from tests.support.fake_github import REPO as GITHUB_REPO
from tests.test_cli import run_cli

GATE = """\
version: 1
name: rubric-gate
suites:
  rubric:
    kind: heuristic
    records: heuristic/*.jsonl
    checks:
      final_score_mean: {{min: 5.0, max_decrease: 0.2, significant: true}}
report: {{output_dir: out, formats: [markdown, json, junit]}}
{extra}
"""


@pytest.fixture
def gate(tmp_path, monkeypatch) -> Path:
    """A gate over the example's rubric records, in its own directory; no GitHub environment."""
    for name in [n for n in list(os.environ) if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    (tmp_path / "heuristic").mkdir()
    shutil.copy(EXAMPLES / "heuristic" / "responses.jsonl", tmp_path / "heuristic" / "responses.jsonl")
    (tmp_path / "gate.yml").write_text(GATE.format(extra="history: {points: 5}"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def report(directory: Path) -> dict:
    return json.loads((directory / "out" / "report.json").read_text())


def change_checks(data: dict) -> list[dict]:
    return [c for s in data["suites"] for c in s["checks"] if "change" in c]


def degrade(path: Path, model: str) -> None:
    """Cut one model's answers to their first sentence: a real, consistent drop in rubric scores."""
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["model"] == model:
            record["response"] = record["response"].split(".")[0] + "."
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")


def test_bless_then_run_compares_with_the_snapshot(gate, monkeypatch, capsys):
    # no snapshot yet: change checks could not tell; `inconclusive: neutral` (the default) exits 0
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 0
    assert {c["verdict"] for c in change_checks(report(gate))} == {"inconclusive"}
    assert report(gate)["verdict"] == "inconclusive"
    assert run_cli(monkeypatch, "baseline", "bless") == 0
    snapshot = json.loads((gate / "baselines" / "metrics" / "rubric.json").read_text())
    assert snapshot["schema"] == 2 and snapshot["runs"] == 1 and snapshot["fingerprint"]["rubric"] == "seed-v1"
    assert len(snapshot["items"]) == 32 and "final_score" in snapshot["items"][0]["values"]
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 0
    checks = change_checks(report(gate))
    assert checks and all(c["verdict"] == "pass" and c["value"] == 0 for c in checks)
    assert all(c["change"]["n"] >= 2 and c["change"]["p_value"] == 1.0 and c["change"]["alpha"] == 0.05
               for c in checks)
    markdown = (gate / "out" / "report.md").read_text()
    assert "📌 Baseline snapshot `baselines/metrics/rubric.json`" in markdown and "Δ final_score_mean" in markdown


def test_a_real_drop_fails_as_significantly_worse(gate, monkeypatch):
    assert run_cli(monkeypatch, "baseline", "bless") == 0
    degrade(gate / "heuristic" / "responses.jsonl", "gpt-4.1-mini")
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 1
    failed = [c for c in change_checks(report(gate)) if c["verdict"] == "fail"]
    assert failed and {c["key"]["model"] for c in failed} == {"gpt-4.1-mini"}
    for check in failed:
        change = check["change"]
        assert change["significant"] is True and change["p_adjusted"] <= 0.05 and check["value"] < -0.2
        assert change["p_value"] <= change["p_adjusted"] and change["mde"] > 0
    junit = (gate / "out" / "junit.xml").read_text()
    xmlschema.XMLSchema(str(REPO / "tests" / "support" / "junit.xsd")).validate(junit)
    assert "Δ final_score_mean [model gpt-4.1-mini, category coding] (max_decrease 0.2)" in junit


def test_a_snapshot_from_another_fingerprint_is_not_comparable(gate, monkeypatch):
    assert run_cli(monkeypatch, "baseline", "bless") == 0
    path = gate / "baselines" / "metrics" / "rubric.json"
    snapshot = json.loads(path.read_text())
    snapshot["fingerprint"]["rubric_hash"] = "0" * 64
    snapshot["created_at"] = "2025-01-01T00:00:00Z"
    path.write_text(json.dumps(snapshot))
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 0  # inconclusive: neutral by default
    checks = change_checks(report(gate))
    assert {c["verdict"] for c in checks} == {"inconclusive"}
    assert all("not comparable" in c["reason"] and "rubric_hash" in c["reason"] for c in checks)
    suite = report(gate)["suites"][0]
    assert suite["baseline"]["comparable"] is False and suite["baseline"]["stale"] is True
    markdown = (gate / "out" / "report.md").read_text()
    assert "**not comparable** with this run" in markdown and "days old" in markdown


def git(directory: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(directory), *args], check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin"}).stdout.strip()


def test_a_pull_request_that_changes_the_baseline_is_flagged(gate, monkeypatch, tmp_path):
    assert run_cli(monkeypatch, "baseline", "bless") == 0
    git(gate, "init", "-q", "-b", "main")
    git(gate, "add", "-A")
    git(gate, "commit", "-qm", "base")
    base = git(gate, "rev-parse", "HEAD")
    assert run_cli(monkeypatch, "baseline", "bless", "--commit", "feature") == 0  # re-blessed on the branch
    git(gate, "commit", "-qam", "re-bless")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 3, "base": {"sha": base}, "head": {"sha": "f" * 40}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 0
    assert report(gate)["suites"][0]["baseline"]["changed_in_pr"] == ["baselines/metrics/rubric.json"]
    assert "🔁 This pull request changes baselines: `baselines/metrics/rubric.json`" in (
        gate / "out" / "report.md").read_text()


def actions(monkeypatch, tmp_path, event_name: str, ref: str, sha: str, event: dict) -> None:
    path = tmp_path / f"{event_name}-{sha[:4]}.json"
    path.write_text(json.dumps(event))
    for key, value in {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event_name, "GITHUB_REF": ref,
                       "GITHUB_SHA": sha, "GITHUB_EVENT_PATH": str(path), "GITHUB_REPOSITORY": GITHUB_REPO}.items():
        monkeypatch.setenv(key, value)


def test_default_branch_runs_are_recorded_once_and_pull_requests_see_the_trend(gate, monkeypatch, tmp_path):
    main = {"repository": {"default_branch": "main"}}
    for sha in ("a" * 40, "b" * 40, "b" * 40):  # the last one is a re-run of the same commit
        actions(monkeypatch, tmp_path, "push", "refs/heads/main", sha, main)
        assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 0
    actions(monkeypatch, tmp_path, "push", "refs/heads/feature", "c" * 40, main)  # not the default branch
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 0
    lines = (gate / "history" / "rubric-gate.jsonl").read_text().splitlines()
    assert [json.loads(line)["commit"] for line in lines] == ["a" * 40, "b" * 40]
    assert all(json.loads(line)["schema"] == 1 and json.loads(line)["ref"] == "refs/heads/main" for line in lines)
    degrade(gate / "heuristic" / "responses.jsonl", "llama-3.1-8b-instruct")
    actions(monkeypatch, tmp_path, "pull_request", "refs/pull/3/merge", "d" * 40,
            {"pull_request": {"number": 3, "head": {"sha": "e" * 40}}})
    run_cli(monkeypatch, "run", "-q", "--no-publish")
    assert len((gate / "history" / "rubric-gate.jsonl").read_text().splitlines()) == 2  # PRs are not recorded
    markdown = (gate / "out" / "report.md").read_text()
    assert "**Default branch trend** (2 comparable runs)" in markdown
    row = next(line for line in markdown.splitlines() if line.startswith("| `final_score_mean` |"))
    assert "(`bbbbbbb`)" in row and "−" in row  # the delta to the last main run, negative
    assert "```mermaid\nxychart-beta" in markdown and '"aaaaaaa", "bbbbbbb", "this run"' in markdown


def test_history_on_a_dedicated_branch(gate, monkeypatch, tmp_path, github_api):
    (gate / "gate.yml").write_text(GATE.format(extra="history: {branch: gate-history}"))
    monkeypatch.setenv("GITHUB_API_URL", github_api.base_url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_history_token")
    actions(monkeypatch, tmp_path, "push", "refs/heads/main", "a" * 40, {"repository": {"default_branch": "main"}})
    assert run_cli(monkeypatch, "run", "-q") == 0
    [line] = github_api.branches["gate-history"]["history/rubric-gate.jsonl"].decode().splitlines()
    assert json.loads(line)["commit"] == "a" * 40
    (gate / "history").exists() and shutil.rmtree(gate / "history")  # the PR's checkout has no local history
    actions(monkeypatch, tmp_path, "pull_request", "refs/pull/3/merge", "d" * 40,
            {"pull_request": {"number": 3, "head": {"sha": "e" * 40}}})
    run_cli(monkeypatch, "run", "-q")
    assert "**Default branch trend** (1 comparable run)" in (gate / "out" / "report.md").read_text()
    assert "gate-history" in github_api.branches and len(github_api.branches) >= 1


def test_history_command_prints_trends(gate, monkeypatch, capsys):
    for _ in range(3):
        assert run_cli(monkeypatch, "run", "-q", "--no-publish", "--record-history") == 0
    capsys.readouterr()
    assert run_cli(monkeypatch, "history") == 0
    out = capsys.readouterr().out
    assert "rubric-gate: 3 recorded runs" in out and "final_score_mean" in out and "▄▄▄" in out
    assert run_cli(monkeypatch, "history", "--json") == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["suite"] == "rubric" and len(row["points"]) == 3


def test_calibrate_writes_a_snippet_that_loads(gate, monkeypatch, capsys):
    base = report_for_calibration()
    paths = []
    for run, shift in enumerate((0.0, 0.01, -0.01, 0.02)):
        data = json.loads(json.dumps(base))
        for group in data["suites"][0]["groups"]:
            group["metrics"]["bertscore_f1"] += shift
        path = gate / f"run{run}.json"
        path.write_text(json.dumps(data))
        paths.append(str(path))
    assert run_cli(monkeypatch, "calibrate", *paths, "--output", "proposed.yml") == 0
    proposed = yaml.safe_load((gate / "proposed.yml").read_text())
    check, change = proposed["suites"]["fb"]["checks"]["bertscore_f1"]  # a floor per group, a change check
    assert check["min"] < check["warn"] < 0.8 and check["scope"] == "group"
    assert change["significant"] is True and change["max_decrease"] == 0
    assert run_cli(monkeypatch, "calibrate", paths[0]) == 2  # one run cannot show noise


def report_for_calibration() -> dict:
    groups = [{"level": "group", "key": {"model": m}, "metrics": {"bertscore_f1": v}}
              for m, v in (("a", 0.8), ("b", 0.9))]
    return {"schema": 1, "gate": "g", "verdict": "pass",
            "suites": [{"name": "fb", "kind": "drift", "fingerprint": {}, "metrics": {}, "groups": groups}]}
