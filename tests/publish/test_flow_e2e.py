"""`llm-gate run` and `llm-gate publish` end to end against a local GitHub API, as in Actions."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from gate.publish.bundle import marker
from tests.conftest import EXAMPLES
from tests.support.fake_github import REPO
from tests.test_cli import run_cli

TOKEN = "ghs_e2e_token_abcdef"
HEAD = "feedc0de" * 5
MERGE = "5eed" * 10


@pytest.fixture
def actions_env(tmp_path, monkeypatch, github_api):
    """The environment a Docker action sees: GITHUB_* variables, INPUT_* inputs, a PR event file."""
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLES, workspace / "examples", ignore=shutil.ignore_patterns("gate-report"))
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 7,
                                 "pull_request": {"number": 7, "head": {"sha": HEAD}}}))
    files = tmp_path / "file_commands"
    files.mkdir()
    env = {
        "GITHUB_ACTIONS": "true", "GITHUB_API_URL": github_api.base_url, "GITHUB_REPOSITORY": REPO,
        "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": MERGE,
        "GITHUB_RUN_ID": "99", "GITHUB_SERVER_URL": "https://github.example", "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(files / "summary.md"), "GITHUB_OUTPUT": str(files / "output.txt"),
        "INPUT_CONFIG": "examples/gate.yml", "INPUT_GITHUB_TOKEN": TOKEN, "INPUT_FAIL_ON": "fail",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.chdir(workspace)
    return workspace, files


def outputs(files) -> dict[str, str]:
    return dict(line.split("=", 1) for line in (files / "output.txt").read_text().splitlines() if "=" in line)


def test_run_in_actions_publishes_comment_check_run_summary_and_outputs(actions_env, github_api, capsys):
    workspace, files = actions_env
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1  # settings come from INPUT_* and GITHUB_*
    [comment] = github_api.comments[7]
    assert comment["body"].startswith(marker("feedback-quality") + f"\n<!-- llm-quality-gate:v1:full {HEAD} -->\n"
                                      "## ❌ feedback-quality: failed")
    assert f"commit `{HEAD[:7]}`" in comment["body"]  # the PR head, not the merge commit
    assert "/actions/runs/99" in comment["body"]
    [run] = github_api.check_runs
    assert (run["name"], run["head_sha"], run["conclusion"]) == ("feedback-quality", HEAD, "failure")
    assert run["output"]["title"] == "6 of 59 checks failed, 8 warned"
    failures = [a for a in run["annotations"] if a["annotation_level"] == "failure"]
    assert {a["path"] for a in failures} == {"examples/outputs/feedback/llama-3.1-8b-instruct.jsonl"}
    lines = sorted(a["start_line"] for a in failures)
    assert lines == [1, 1, 11, 11, 22, 22]  # the first record of each failing exercise x model
    warnings = [a for a in run["annotations"] if a["annotation_level"] == "warning"]
    assert {(a["path"], a["start_line"]) for a in warnings} >= {
        ("examples/stereotype/mistral_7b.jsonl", 1),  # the first record of the warned model / model x task
        ("examples/stability/tinyllama-1.1b-chat.jsonl", 1), ("examples/stability/tinyllama-1.1b-chat.jsonl", 51)}
    # the rows of an .xlsx show on no line on GitHub: its missing prompts point at the suite in gate.yml
    assert not any(a["path"].endswith(".xlsx") for a in run["annotations"])
    assert any(a["path"] == "examples/gate.yml" and "mistral-7b-instruct.xlsx" in a["message"] for a in warnings)
    summary = (files / "summary.md").read_text()
    assert summary == (workspace / "gate-report" / "report.md").read_text()
    out = outputs(files)
    assert out["verdict"] == "fail" and out["conclusion"] == "failure" and out["failed_checks"] == "6"
    assert out["comment_url"].endswith(f"#issuecomment-{comment['id']}")
    assert out["check_run_url"].endswith(f"/runs/{run['id']}")
    stdout = capsys.readouterr().out
    assert "::error" not in stdout  # the check run carries the annotations
    assert TOKEN not in stdout


def test_a_second_run_edits_the_comment(actions_env, github_api):
    run_cli(pytest.MonkeyPatch(), "run", "-q")
    (actions_env[0] / "examples" / "outputs" / "feedback" / "llama-3.1-8b-instruct.jsonl").unlink()
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    [comment] = github_api.comments[7]
    assert "## ⚠️ feedback-quality: passed with warnings" in comment["body"]
    assert [c.method for c in github_api.writes() if "comments" in c.path] == ["POST", "PATCH"]
    assert [r["conclusion"] for r in github_api.check_runs] == ["failure", "success"]


def test_publishing_failure_keeps_exit_code_summary_and_artifact(actions_env, github_api, capsys):
    workspace, files = actions_env
    github_api.read_only = True
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    assert (files / "summary.md").read_text().startswith("## ❌ feedback-quality: failed")
    assert (workspace / "gate-report" / "publish.json").is_file()
    out = outputs(files)
    assert out["verdict"] == "fail" and out["comment_url"] == "" and out["check_run_url"] == ""
    stdout = capsys.readouterr().out
    assert "::warning title=llm-quality-gate%3A publishing::could not comment" in stdout
    assert "::error file=examples/outputs/feedback/llama-3.1-8b-instruct.jsonl,line=1" in stdout  # fallback


def test_skipped_gate_is_a_neutral_check_run(actions_env, github_api, monkeypatch):
    monkeypatch.setenv("INPUT_SUITES", "fairness-*")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    [run] = github_api.check_runs
    assert run["conclusion"] == "neutral" and run["output"]["title"].startswith("skipped")


def test_the_outputs_count_every_failed_check_not_only_the_annotated_ones(tmp_path, monkeypatch):
    """600 failing groups: the check run takes 500 annotations, the step outputs still say 600 (and 40 warnings)."""
    models = [f"m{i:03d}" for i in range(640)]
    rows = [{"model": m, "category": "coding", "prompt_id": "P01", "response": "def f(x):\n    return x\n"}
            for m in models]
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "gate.yml").write_text(
        "version: 1\nname: many\nsuites:\n"
        f"  strict:\n    kind: heuristic\n    records: h.jsonl\n    models: {json.dumps(models[:600])}\n"
        "    checks:\n      final_score_mean: {min: 9.9}\n"
        f"  lenient:\n    kind: heuristic\n    records: h.jsonl\n    models: {json.dumps(models[600:])}\n"
        "    checks:\n      final_score_mean: {min: 0, warn: 9.9}\n")
    outputs = tmp_path / "outputs.txt"
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--output-dir", "out", "-q") == 1
    found = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert (found["failed_checks"], found["warned_checks"]) == ("600", "40")
    bundle = json.loads((tmp_path / "out" / "publish.json").read_text())
    assert len(bundle["annotations"]) == 500 and (bundle["failed_checks"], bundle["warned_checks"]) == (600, 40)


FORK = "mallory/widgets"


def trusted_job(tmp_path, monkeypatch, github_api, workspace):
    """The trusted workflow_run job of a fork's pull request: the workspace is the base branch's checkout; the
    fork's run uploaded its candidate files, downloaded to `.gate-candidates`; GitHub's event names no pull request
    (a fork's never does), so the gate asks GitHub for the open one with the run's head repository, branch and sha."""
    event = tmp_path / "workflow_run.json"
    event.write_text(json.dumps({"workflow_run": {
        "event": "pull_request", "head_sha": HEAD, "head_branch": "feature", "pull_requests": [],
        "head_repository": {"full_name": FORK}, "id": 4242}}))
    github_api.open_pulls.append({"number": 7, "head_sha": HEAD, "head_repo": FORK, "head_ref": "feature"})
    github_api.pulls[7] = HEAD
    github_api.pull_files[7] = [{"filename": "examples/outputs/feedback/gpt-4o-2024-11-20.jsonl"}]
    for name, value in {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(event),
                        "INPUT_CANDIDATES_DIR": ".gate-candidates", "INPUT_CHECK_NAME": "feedback-quality",
                        "INPUT_COMMENT_TITLE": "feedback-quality"}.items():
        monkeypatch.setenv(name, value)
    artifact = workspace / ".gate-candidates"
    shutil.copytree(workspace / "examples", artifact / "examples")
    return artifact


def test_the_trusted_job_judges_a_forks_candidates_with_the_base_branchs_gate(actions_env, github_api, tmp_path,
                                                                              monkeypatch):
    """Everything the fork's artifact holds besides its candidate files is ignored: a gate.yml with no checks, a
    forged publish.json and report, a snapshot that halves the baseline, a cache of forged model outputs, a link
    to the runner's files. The regressed candidates (llama drifts) fail, on the PR's head, with the pinned name."""
    workspace, files = actions_env
    artifact = trusted_job(tmp_path, monkeypatch, github_api, workspace)
    (artifact / "examples" / "gate.yml").write_text("version: 1\nname: tests\nsuites: {}\n")
    (artifact / "gate-report").mkdir()
    (artifact / "gate-report" / "publish.json").write_text(json.dumps({
        "verdict": "pass", "conclusion": "success", "title": "All 99 checks passed", "check_name": "tests"}))
    for snapshot in (artifact / "examples" / "baselines" / "metrics").glob("*.json"):
        snapshot.write_text("{}")
    (artifact / ".gate-cache" / "vectors").mkdir(parents=True)
    (artifact / ".gate-cache" / "vectors" / "forged.npy").write_bytes(b"\x93NUMPY forged")
    (artifact / "examples" / "outputs" / "secret.jsonl").symlink_to("/etc/hostname")
    # the trusted checkout's own copy of the candidates is not what is judged: only the artifact's
    for path in (workspace / "examples" / "outputs" / "feedback").glob("*.jsonl"):
        path.write_text("not json\n")
    # the pull request's own gate.yml, as GitHub serves it at the head commit: a waiver for the failing check
    proposed = (EXAMPLES / "gate.yml").read_text() + (
        "\nwaivers:\n  - {suite: feedback-drift, metric: bertscore_f1, reason: trust me, owner: '@mallory', "
        "expires: 2026-12-20}\n")
    github_api.branches[HEAD] = {"examples/gate.yml": proposed.encode()}
    github_api.pull_files[7].append({"filename": "examples/gate.yml"})
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    [run] = github_api.check_runs
    assert (run["name"], run["head_sha"], run["conclusion"]) == ("feedback-quality", HEAD, "failure")
    changes = json.loads((workspace / "gate-report" / "report.json").read_text())["gate_changes"]
    assert [c["what"] for c in changes["changes"]] == ["waiver added"] and not changes["applied"]
    assert changes["source"] == f"GitHub (pull request #7 at {HEAD[:7]})"
    failures = {a["path"] for a in run["output"]["annotations"] if a["annotation_level"] == "failure"} \
        if "annotations" in run["output"] else {a["path"] for a in run["annotations"]
                                                 if a["annotation_level"] == "failure"}
    assert failures == {"examples/outputs/feedback/llama-3.1-8b-instruct.jsonl"}  # the PR's file, not the download
    [comment] = github_api.comments[7]
    assert "❌ feedback-quality: failed" in comment["body"] and "All 99 checks passed" not in comment["body"]
    assert outputs(files)["conclusion"] == "failure"


def test_the_trusted_job_refuses_candidate_files_that_lead_out_of_the_download(actions_env, github_api, tmp_path,
                                                                                monkeypatch, capsys):
    workspace, _ = actions_env
    artifact = trusted_job(tmp_path, monkeypatch, github_api, workspace)
    target = artifact / "examples" / "outputs" / "feedback" / "gpt-4o-2024-11-20.jsonl"
    target.unlink()
    target.symlink_to(workspace / "examples" / "outputs" / "feedback" / "gpt-4o-2024-11-20.jsonl")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 2
    err = capsys.readouterr().err
    assert "outside it" in err and "candidate data" in err
    assert not github_api.check_runs and not github_api.comments.get(7)


def test_publish_is_removed_and_says_what_replaces_it(actions_env, github_api, capsys):
    """An old workflow's `command: publish` fails loudly (exit 2) with the trusted recipe, and posts nothing."""
    assert run_cli(pytest.MonkeyPatch(), "publish", "--report", "gate-report") == 2
    err = capsys.readouterr().err
    assert "candidates_dir" in err and "removed" in err
    assert not github_api.calls
