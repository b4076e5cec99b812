"""Matrix jobs and filtered or skipped runs on one commit never replace the full run's check or comment (issue 21,
item 3), and a push build finds its pull request (item 5): `llm-gate run` against the loopback GitHub API, with
what the server stored as the evidence."""

from __future__ import annotations

import json
import shutil

import pytest

from gate.publish.bundle import marker, posted_scope
from tests.conftest import EXAMPLES
from tests.support.fake_github import REPO
from tests.test_cli import run_cli

HEAD = "feedc0de" * 5
NEXT = "c0ffee00" * 5
GATE = """\
version: 1
name: quality
suites:
  rubric: {kind: heuristic, records: responses.jsonl, checks: {final_score_mean: {min: %s}}}
  style: {kind: heuristic, records: responses.jsonl, checks: {final_score_mean: {min: 0.0}}}
report: {formats: [markdown, json]}
"""


@pytest.fixture
def workflow(tmp_path, monkeypatch, github_api):
    """A pull request's workflow on the loopback API: a two-suite gate whose `rubric` fails until told not to."""
    shutil.copy(EXAMPLES / "heuristic" / "responses.jsonl", tmp_path / "responses.jsonl")
    (tmp_path / "gate.yml").write_text(GATE % "9.9")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": HEAD}}}))
    for key, value in {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": github_api.base_url, "GITHUB_REPOSITORY": REPO,
                       "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "5eed" * 10,
                       "GITHUB_RUN_ID": "99", "GITHUB_WORKSPACE": str(tmp_path), "INPUT_GITHUB_TOKEN": "ghs_seq_token",
                       "GITHUB_OUTPUT": str(tmp_path / "output.txt")}.items():
        monkeypatch.setenv(key, value)
    for name in ("GITHUB_TOKEN", "GITHUB_STEP_SUMMARY", "INPUT_SUITES", "INPUT_CHECK_NAME", "INPUT_COMMENT_TITLE",
                 "INPUT_COMMENT_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def latest(api, name: str, sha: str = HEAD) -> dict:
    return max((r for r in api.check_runs if r["name"] == name and r["head_sha"] == sha), key=lambda r: r["id"])


def comments(api) -> dict[str, str]:
    """The gate's comments on the pull request, by the title their marker names."""
    titles = ("quality", "quality (suites: style)")
    return {t: c["body"] for c in api.comments.get(7, []) for t in titles if c["body"].startswith(marker(t) + "\n")}


def test_filtered_and_skipped_runs_never_replace_the_full_runs_check_or_comment(workflow, github_api, capsys):
    # 1. the full run fails
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    full = latest(github_api, "quality")
    assert (full["conclusion"], full["external_id"]) == ("failure", "llm-quality-gate:v1:full")
    full_comment = comments(github_api)["quality"]
    assert posted_scope(full_comment) == ("full", HEAD) and "failed" in full_comment

    # 2. a filtered run told to use the full run's names posts neither, and says why
    capsys.readouterr()
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--suite", "style", "--check-name", "quality",
                   "--comment-title", "quality") == 0
    log = capsys.readouterr().out
    assert "the latest `quality` check run on commit feedc0d is a full run's (failure" in log
    assert "is a full run's for commit feedc0d, and this filtered run does not replace it" in log
    assert latest(github_api, "quality") == full and len(github_api.check_runs) == 1
    assert comments(github_api) == {"quality": full_comment}

    # 3. with the derived names it posts its own check run and its own comment beside the full run's
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--suite", "style") == 0
    own = latest(github_api, "quality (suites: style)")
    assert (own["conclusion"], own["external_id"]) == ("success", "llm-quality-gate:v1:filtered")
    assert comments(github_api)["quality"] == full_comment
    assert posted_scope(comments(github_api)["quality (suites: style)"]) == ("filtered", HEAD)

    # 4. a skipped run (a filter that matches nothing) on the same commit: the full run's failure stays the latest
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--suite", "nomatch*") == 0
    assert latest(github_api, "quality") == full
    assert [r["name"] for r in github_api.check_runs] == ["quality", "quality (suites: style)"]
    assert comments(github_api)["quality"] == full_comment

    # 5. a full run always replaces: now it passes, and both its check run and its comment say so
    (workflow / "gate.yml").write_text(GATE % "0.0")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    again = latest(github_api, "quality")
    assert again["id"] > full["id"] and again["conclusion"] == "success"
    assert "passed" in comments(github_api)["quality"] and posted_scope(comments(github_api)["quality"]) == (
        "full", HEAD)

    # 6. on a NEW commit a skipped run posts (how a path filter lets the required check pass)
    (workflow / "event.json").write_text(json.dumps({"number": 7, "pull_request": {"number": 7,
                                                                                   "head": {"sha": NEXT}}}))
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--suite", "nomatch*") == 0
    assert latest(github_api, "quality", NEXT)["conclusion"] == "neutral"
    assert posted_scope(comments(github_api)["quality"]) == ("skipped", NEXT)
    assert len(comments(github_api)) == 2


def test_a_filtered_runs_heading_and_check_run_name_its_filter(workflow, github_api):
    """A filtered run's comment never reads like the whole gate's verdict (issue 32, item 5)."""
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--suite", "style") == 0
    heading = comments(github_api)["quality (suites: style)"].split("\n")[2]
    assert heading == "## ✅ quality (suites: style): passed — a filtered run, not the whole gate"
    assert latest(github_api, "quality (suites: style)")["output"]["title"].startswith("filtered run (suites: style): ")
    # with a pinned check name the title still says what the run covered
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--suite", "style", "--check-name", "style-only") == 0
    assert latest(github_api, "style-only")["output"]["title"].startswith("filtered run (suites: style): ")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1  # the full run's heading is the gate's alone
    assert comments(github_api)["quality"].split("\n")[2] == "## ❌ quality: failed"
    assert not latest(github_api, "quality")["output"]["title"].startswith("filtered")


def test_comment_mode_failures_stays_quiet_on_a_pass_but_updates_an_earlier_failure(workflow, github_api, capsys):
    (workflow / "gate.yml").write_text(GATE % "0.0" + "publish: {comment_mode: failures}\n")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    assert github_api.comments.get(7, []) == [] and len(github_api.check_runs) == 1  # the check run still posts
    (workflow / "gate.yml").write_text(GATE % "9.9" + "publish: {comment_mode: failures}\n")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1  # a failure: commented
    [comment] = github_api.comments[7]
    assert comment["body"].split("\n")[2].startswith("## ❌")
    (workflow / "gate.yml").write_text(GATE % "0.0" + "publish: {comment_mode: failures}\n")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0  # a pass: the failure's comment is updated
    [comment] = github_api.comments[7]
    assert comment["body"].split("\n")[2].startswith("## ✅")  # no stale failure stays up
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--comment-mode", "off") == 0
    assert len(github_api.writes("PATCH")) == 1 and len(github_api.comments[7]) == 1


def test_a_push_build_comments_on_the_pull_request_whose_head_it_pushed(workflow, github_api, monkeypatch):
    (workflow / "event.json").write_text(json.dumps({"ref": "refs/heads/feature", "after": HEAD}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    monkeypatch.setenv("GITHUB_SHA", HEAD)
    github_api.commit_pulls[HEAD] = [{"number": 3, "state": "closed"}, {"number": 5, "head_sha": "0" * 40},
                                     {"number": 6, "head_repo": "someone/fork"}, {"number": 7}]
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    [comment] = github_api.comments[7]
    assert comment["body"].startswith(marker("quality") + f"\n<!-- llm-quality-gate:v1:full {HEAD} -->")
    assert set(github_api.comments) == {7}
    assert json.loads((workflow / "gate-report" / "publish.json").read_text())["pull_request"] == 7


def test_a_push_build_whose_commit_heads_two_pull_requests_comments_on_neither(workflow, github_api, monkeypatch,
                                                                                capsys):
    (workflow / "event.json").write_text(json.dumps({"ref": "refs/heads/feature", "after": HEAD}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    monkeypatch.setenv("GITHUB_SHA", HEAD)
    github_api.commit_pulls[HEAD] = [{"number": 7}, {"number": 8}]
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    assert github_api.comments == {} and latest(github_api, "quality")["conclusion"] == "failure"
    assert "commit feedc0d is the head of 2 open pull requests (#7, #8): no comment" in capsys.readouterr().out


def test_without_publishing_a_push_build_asks_github_nothing(workflow, github_api, monkeypatch):
    (workflow / "event.json").write_text(json.dumps({"ref": "refs/heads/feature"}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    monkeypatch.setenv("GITHUB_SHA", HEAD)
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--no-publish") == 1
    assert github_api.calls == []
