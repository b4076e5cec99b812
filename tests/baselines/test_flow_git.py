"""`llm-gate run --record-history` outside Actions records git's HEAD and branch, so that a re-run of one
commit is recorded once, as in Actions (where GITHUB_SHA and GITHUB_REF say it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.test_cli import run_cli

GATE = """\
version: 1
name: rubric-gate
suites:
  rubric: {kind: heuristic, records: heuristic/*.jsonl, checks: {final_score_mean: {min: 5.0}}}
report: {output_dir: out, formats: [json]}
history: {points: 5}
"""


def git(directory: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(directory)}
    return subprocess.run(["git", "-C", str(directory), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A gate over the example's rubric records in a git repository of one commit on branch `trunk`."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    for name in [n for n in list(os.environ) if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    (tmp_path / "heuristic").mkdir()
    shutil.copy(EXAMPLES / "heuristic" / "responses.jsonl", tmp_path / "heuristic" / "responses.jsonl")
    (tmp_path / "gate.yml").write_text(GATE)
    (tmp_path / ".gitignore").write_text("out/\nhistory/\n.gate-cache/\n")
    git(tmp_path, "init", "-q", "-b", "trunk")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "the gate")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def recorded(repo: Path) -> list[dict]:
    return [json.loads(line) for line in (repo / "history" / "rubric-gate.jsonl").read_text().splitlines()]


def test_a_rerun_of_one_commit_is_recorded_once_with_head_and_branch(repo, monkeypatch, capsys):
    for _ in range(2):
        assert run_cli(monkeypatch, "run", "-q", "--no-publish", "--record-history") == 0
    [entry] = recorded(repo)
    assert entry["commit"] == git(repo, "rev-parse", "HEAD") and len(entry["commit"]) == 40
    assert entry["ref"] == "refs/heads/trunk"
    assert "is already recorded; not recorded twice" in capsys.readouterr().out
    (repo / "NOTES").write_text("a second commit\n")
    git(repo, "add", "NOTES")
    git(repo, "commit", "-qm", "two")
    assert run_cli(monkeypatch, "run", "-q", "--no-publish", "--record-history") == 0
    assert [e["commit"] for e in recorded(repo)] == [entry["commit"], git(repo, "rev-parse", "HEAD")]


def test_a_detached_head_records_the_commit_without_a_branch(repo, monkeypatch):
    git(repo, "checkout", "-q", "--detach")
    assert run_cli(monkeypatch, "run", "-q", "--no-publish", "--record-history") == 0
    [entry] = recorded(repo)
    assert entry["commit"] == git(repo, "rev-parse", "HEAD") and entry["ref"] is None


def test_actions_values_win_over_git(repo, monkeypatch):
    monkeypatch.setenv("GITHUB_SHA", "a" * 40)
    monkeypatch.setenv("GITHUB_REF", "refs/heads/main")
    assert run_cli(monkeypatch, "run", "-q", "--no-publish", "--record-history") == 0
    [entry] = recorded(repo)
    assert (entry["commit"], entry["ref"]) == ("a" * 40, "refs/heads/main")
