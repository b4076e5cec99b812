"""Every text the check run carries is sized in the unit GitHub counts, and a write GitHub refuses is recovered:
a shorter text, then a commit status, never a commit without the gate's verdict (issue 32, items 1, 6 and 8)."""

from __future__ import annotations

import json

import pytest
import requests

from gate.config import CommentMode
from gate.judge import CheckVerdict
from gate.publish.bundle import PublishBundle
from gate.publish.github import GitHubPublisher, RetryPolicy
from gate.report.annotations import Annotation, Level
from tests.publish.test_fallback_and_counts import HEAD, many_checks_project, read_outputs
from tests.support.fake_github import REPO
from tests.test_cli import run_cli

TOKEN = "ghs_limits_0123456789"
SHA = "0123456789abcdef0123456789abcdef01234567"
RUN_URL = "https://github.example/octo/widgets/actions/runs/9"
CHECK_RUNS = rf"/repos/{REPO}/check-runs"


def bundle(summary: str = "## ❌ failed\n\n| a | b |\n|---|---|\n" + "| ❌ x | y |\n" * 3, conclusion="failure",
           leg: str = "", annotations=()) -> PublishBundle:
    return PublishBundle(gate="limits", verdict="fail" if conclusion == "failure" else "pass",
                         conclusion=conclusion, title="3 of 9 checks failed", summary=summary, comment=summary,
                         annotations=tuple(annotations), repository=REPO, pull_request=None, head_sha=SHA,
                         run_url=RUN_URL, check_name="limits", leg=leg)


def publisher(api) -> GitHubPublisher:
    return GitHubPublisher(TOKEN, api.base_url, REPO, retry=RetryPolicy(attempts=2, sleep=lambda s: None))


def test_a_10000_model_failing_gate_posts_a_check_run_within_githubs_bytes(github_api, tmp_path, monkeypatch):
    files = many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=9_000, warning=1_000)
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    [run] = github_api.check_runs
    summary = run["output"]["summary"]
    assert run["conclusion"] == "failure" and run["head_sha"] == HEAD
    assert len(summary.encode("utf-8")) <= 65_535 < len(summary) * 3  # bytes, as GitHub counts them
    assert "500 of 9,000 failed checks" in summary and "GitHub's limit" in summary  # annotations said
    assert "`final_score_mean`" in summary and "| ❌ | strict |" in summary  # the culprit: the failing checks
    assert len(run["annotations"]) == 500
    assert read_outputs(files["output"])["check_run_url"].endswith(f"/runs/{run['id']}")


def test_the_fake_github_refuses_what_github_refuses(github_api):
    def post(path, body):
        return requests.post(github_api.base_url + path, json=body, timeout=10)
    emoji = "❌" * 21_846  # 21,846 characters, 65,538 bytes
    refused = post(f"/repos/{REPO}/check-runs", {"name": "n", "head_sha": SHA, "output": {
        "title": "t", "summary": emoji}})
    assert refused.status_code == 422 and "summary exceeds a maximum bytesize of 65535" in refused.json()["message"]
    many = [{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "failure", "message": "m"}] * 51
    assert post(f"/repos/{REPO}/check-runs", {"name": "n", "head_sha": SHA, "output": {
        "title": "t", "summary": "s", "annotations": many}}).status_code == 422
    assert post(f"/repos/{REPO}/check-runs", {"name": "n", "head_sha": SHA, "output": {
        "title": "t" * 256, "summary": "s"}}).status_code == 422
    assert post(f"/repos/{REPO}/statuses/{SHA}", {"state": "failure", "description": "d" * 141}).status_code == 422
    assert post(f"/repos/{REPO}/issues/7/comments", {"body": "b" * 65_537}).status_code == 422
    assert post(f"/repos/{REPO}/issues/7/comments", {"body": "❌" * 65_536}).status_code == 201  # characters
    assert not github_api.check_runs and not github_api.statuses


def test_a_refused_summary_is_posted_again_shorter(github_api):
    github_api.fail_next("POST", CHECK_RUNS, 422, "Invalid request.\n\nsummary exceeds a maximum bytesize of 65535")
    outcome = publisher(github_api).publish(bundle(summary="## ❌ failed\n\n" + "| row |\n" * 5_000),
                                            CommentMode.OFF, True)
    [run] = github_api.check_runs
    assert run["conclusion"] == "failure" and outcome.check_run_url and not outcome.status_posted
    assert "shortened after GitHub refused the full summary" in run["output"]["summary"]
    assert len(run["output"]["summary"].encode()) < 17_000
    assert any("GitHub refused the check run (422" in n and "a shortened summary" in n for n in outcome.notes)


def test_a_check_run_github_never_takes_becomes_a_commit_status(github_api):
    for _ in range(3):
        github_api.fail_next("POST", CHECK_RUNS, 422, "Invalid request.\n\nNo such path")
    notes = [Annotation("x.jsonl", 1, Level.FAILURE, "t", "m")]
    outcome = publisher(github_api).publish(bundle(annotations=notes), CommentMode.OFF, True)
    tried = [c.body["output"] for c in github_api.writes() if c.path == f"/repos/{REPO}/check-runs"]
    assert len(tried) == 3 and tried[2]["annotations"] == [] and "**fail**" in tried[2]["summary"]
    assert not github_api.check_runs and not outcome.check_run_url
    [status] = github_api.statuses
    assert (status["sha"], status["state"], status["context"]) == (SHA, "failure", "limits")
    assert len(status["description"]) <= 140 and outcome.status_posted
    assert any(n.startswith("GitHub did not take the check run: 422") for n in outcome.notes)


def test_matrix_jobs_sharing_a_check_name_never_make_it_better(github_api):
    gh = publisher(github_api)
    gh.publish(bundle(conclusion="failure", leg="limits (suites: a)"), CommentMode.OFF, True)
    gh.publish(bundle(conclusion="success", leg="limits (suites: b)"), CommentMode.OFF, True)
    first, second = github_api.check_runs
    assert (first["conclusion"], second["conclusion"]) == ("failure", "failure")  # the later success did not win
    summary = second["output"]["summary"]
    assert "2 jobs of this workflow run posted this check" in summary
    assert "`limits (suites: a)` failure" in summary and "`limits (suites: b)` success (this job)" in summary
    assert second["output"]["title"].startswith("failure (an earlier job of this run); this job:")
    # the failing job re-run (same workflow run, fixed): its own verdict is replaced, the others' stay
    publisher(github_api).publish(bundle(conclusion="success", leg="limits (suites: a)"), CommentMode.OFF, True)
    assert github_api.check_runs[-1]["conclusion"] == "success"
    legs = json.loads(github_api.check_runs[-1]["output"]["text"].split("legs ", 1)[1].rsplit(" -->", 1)[0])
    assert {k: v[0] for k, v in legs["legs"].items()} == {"limits (suites: a)": "success",
                                                          "limits (suites: b)": "success"}


def test_annotations_never_point_into_a_spreadsheet(monkeypatch):
    """Rows of an .xlsx show on no line on GitHub: such a check points at its suite in gate.yml instead."""
    import tests.report.verdict_fixtures as fixtures
    from gate.io.source import SourceRef
    from gate.report.annotations import check_annotations

    monkeypatch.setattr(fixtures, "SourceRef", lambda file, line: SourceRef("data/answers.xlsx", line))
    result = fixtures.stability_result("stab", models=2, tasks=2, items=8)
    verdict = fixtures.gate(fixtures.judged(result, [fixtures.group_check(result, 0, CheckVerdict.FAIL)]))
    [found] = check_annotations(verdict, gate_file="gate.yml", suite_lines={"stab": 12})
    assert (found.path, found.line) == ("gate.yml", 12) and "of data/answers.xlsx" in found.message
    assert check_annotations(verdict) == []  # without gate.yml's place: none, never on the .xlsx
