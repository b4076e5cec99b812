"""The sticky comment's rules against the loopback API (`gate.publish.github.comments`): concurrent jobs converge
on one comment with the newest run's verdict, and `comment_mode: off` / `comment: off` never leave a stale
failure up. What the server stores is the evidence."""

from __future__ import annotations

import dataclasses
import itertools
import re

import pytest
from pytest_httpserver import HTTPServer

from gate.config import CommentMode, CommentWhen
from gate.publish.bundle import marker
from gate.publish.github.comments import posted_run
from tests.publish.github.test_client import bundle, publisher
from tests.support.fake_github import REPO, FakeGitHub

COMMENTS = rf"/repos/{REPO}/issues/(7/comments|comments/\d+)"
VERDICTS = {101: "❌ failed", 102: "✅ passed", 103: "⚠️ warned", 104: "✅ passed again"}


@pytest.fixture
def threaded_api(monkeypatch):
    """The fake API on a threaded server: a job run inside another job's request (`interfere`) is served while
    that request waits."""
    from gate.publish.github import client as gate_github

    monkeypatch.setattr(gate_github, "REQUEST_SPACING", (0, 0))
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    fake = FakeGitHub(base_url=server.url_for("").rstrip("/"))
    server.expect_request(re.compile(".*")).respond_with_handler(fake.handle)
    yield fake
    server.clear()
    server.stop()


def run_bundle(run: int, **fields):
    verdict = VERDICTS[run]
    return dataclasses.replace(bundle(comment=f"## {verdict}\n\nrun {run}", conclusion="success"
                                      if "passed" in verdict else "failure"),
                               run_url=f"https://github.example/{REPO}/actions/runs/{run}", **fields)


def job(fake: FakeGitHub, run: int, outcomes: list):
    return lambda: outcomes.append(publisher(fake).publish(run_bundle(run), CommentMode.STICKY, False))


def chained(fake: FakeGitHub, jobs: list, points: list[tuple[str, int]]) -> None:
    """jobs[0] publishes; just before its `points[0]` request (method, n-th on the comments) jobs[1] publishes
    whole, and so on down the chain: the later job reads, writes and converges inside the earlier one's gap. A job
    whose point never comes starts after the chain."""
    started: set[int] = set()

    def start(i: int) -> None:
        started.add(i)
        if i + 1 < len(jobs):
            method, nth = points[i]
            seen = [0]

            def action(_: FakeGitHub) -> None:
                seen[0] += 1
                if seen[0] == nth and i + 1 not in started:
                    start(i + 1)
            fake.interfere(method, COMMENTS, action, times=nth)
        jobs[i]()
    start(0)
    fake.interference.clear()
    for i, rest in enumerate(jobs):
        if i not in started:
            started.add(i)
            rest()


def gate_comments(fake: FakeGitHub) -> list[dict]:
    return [c for c in fake.comments.get(7, []) if c["body"].startswith(marker("feedback-quality"))]


# Where the next job runs: before the first listing, the create, the listing that verifies, a delete. Not before
# an edit: an edit decided on a listing and applied after another job's whole publish is the one interleaving
# GitHub cannot guard (no conditional edit of a comment; gate.publish.github.comments)
POINTS = [("GET", 1), ("POST", 1), ("GET", 2), ("DELETE", 1)]
ROUNDS = [(order, points) for order, points in zip(itertools.cycle(itertools.permutations((101, 102, 103))),
                                                    itertools.product(POINTS, repeat=2))]


@pytest.mark.parametrize(("order", "points"), ROUNDS, ids=[f"{o}-{p[0][0]}{p[0][1]}-{p[1][0]}{p[1][1]}"
                                                            for o, p in ROUNDS])
def test_three_jobs_started_together_leave_one_comment_with_the_newest_verdict(threaded_api, order, points):
    outcomes: list = []
    chained(threaded_api, [job(threaded_api, run, outcomes) for run in order], list(points))
    [survivor] = gate_comments(threaded_api)
    assert "## ⚠️ warned\n\nrun 103" in survivor["body"] and posted_run(survivor["body"]) == 103
    assert len(outcomes) == 3 and not any(n.startswith("could not") for o in outcomes for n in o.notes)


@pytest.mark.parametrize("order", list(itertools.permutations((102, 103, 104))))
@pytest.mark.parametrize("points", [[("GET", 1), ("GET", 2)], [("GET", 2), ("GET", 2)], [("GET", 2), ("GET", 1)]])
def test_jobs_over_an_old_failure_comment_converge_on_the_newest(threaded_api, order, points):
    stale = publisher(threaded_api).publish(run_bundle(101), CommentMode.STICKY, False)
    assert stale.comment_action == "created"
    chained(threaded_api, [job(threaded_api, run, []) for run in order], points)
    [survivor] = gate_comments(threaded_api)
    assert "run 104" in survivor["body"] and "❌" not in survivor["body"]


def test_a_stale_run_never_writes_over_a_newer_runs_comment(github_api):
    publisher(github_api).publish(run_bundle(103), CommentMode.STICKY, False)
    late = publisher(github_api).publish(run_bundle(101), CommentMode.STICKY, False)
    assert late.comment_action == "kept (a newer run's)" and "workflow run 103's, newer" in late.notes[0]
    [survivor] = gate_comments(github_api)
    assert "run 103" in survivor["body"] and github_api.writes("PATCH") == []


def test_duplicates_left_by_an_older_gate_are_merged_into_the_oldest(github_api):
    """Comments three racing jobs of an older gate left: the next run keeps the oldest, deletes the others."""
    body = publisher(github_api).publish(run_bundle(101), CommentMode.NEW, False)
    assert body.comment_action == "created"
    for run in (102, 103):
        publisher(github_api).publish(run_bundle(run), CommentMode.NEW, False)
    first = github_api.comments[7][0]["id"]
    publisher(github_api).publish(run_bundle(104), CommentMode.STICKY, False)
    [survivor] = gate_comments(github_api)
    assert survivor["id"] == first and "run 104" in survivor["body"]
    assert len(github_api.writes("DELETE")) == 2


def test_a_comment_another_job_deleted_first_is_not_a_failure(github_api):
    for run in (101, 102):
        publisher(github_api).publish(run_bundle(run), CommentMode.NEW, False)
    second = github_api.comments[7][1]["id"]
    github_api.interfere("DELETE", rf"/repos/{REPO}/issues/comments/{second}",
                         lambda fake: fake.comments[7].pop(1))  # another job's delete just before ours
    outcome = publisher(github_api).publish(run_bundle(103), CommentMode.STICKY, False)
    assert outcome.comment_action == "updated" and not outcome.notes
    [survivor] = gate_comments(github_api)
    assert "run 103" in survivor["body"]


def test_a_retried_edit_does_not_replay_over_a_newer_run(github_api):
    """A 502 on the edit; before the retry a newer run wrote the comment: the retry reads it and leaves it."""
    publisher(github_api).publish(run_bundle(101), CommentMode.STICKY, False)
    comment = github_api.comments[7][0]
    newer = run_bundle(103)

    def newer_run(fake: FakeGitHub) -> None:
        comment["body"] = comment["body"].replace("run 101", "run 103").replace("runs/101", "runs/103") \
            .replace("❌ failed", "⚠️ warned")
    github_api.fail_next("PATCH", rf"/repos/{REPO}/issues/comments/\d+", 502)
    github_api.interfere("GET", rf"/repos/{REPO}/issues/comments/\d+", newer_run)
    outcome = publisher(github_api).publish(run_bundle(102), CommentMode.STICKY, False)
    assert newer.comment.split("\n")[0] in comment["body"] and "run 103 -->" in comment["body"]
    assert len(github_api.writes("PATCH")) == 1 and outcome.comment_action == "updated"


# ---------------------------------------------------------------- comment_mode: off, comment: off


def test_comment_mode_off_still_updates_a_stale_failure(github_api):
    publisher(github_api).publish(run_bundle(101), CommentMode.STICKY, False)
    outcome = publisher(github_api).publish(run_bundle(102), CommentMode.STICKY, False, CommentWhen.OFF)
    assert outcome.comment_action == "updated"
    [comment] = gate_comments(github_api)
    assert "## ✅ passed\n\nrun 102" in comment["body"] and "❌" not in comment["body"]


def test_comment_mode_off_creates_nothing(github_api):
    outcome = publisher(github_api).publish(run_bundle(101), CommentMode.STICKY, False, CommentWhen.OFF)
    assert outcome.comment_action == "off (comment_mode: off)" and not github_api.writes()


def test_comment_off_reduces_a_stale_failure_to_the_current_verdict(github_api):
    publisher(github_api).publish(run_bundle(101), CommentMode.STICKY, False)
    outcome = publisher(github_api).publish(run_bundle(102), CommentMode.OFF, False)
    assert outcome.comment_action == "updated"
    [comment] = gate_comments(github_api)
    assert "## ✅ passed\n\nThis pull request's comment is no longer updated in full (`comment: off`)" in \
        comment["body"]
    assert "❌" not in comment["body"] and "\n\nrun 102" not in comment["body"]  # the verdict line, not the report
    again = publisher(github_api).publish(run_bundle(102), CommentMode.OFF, False)
    assert again.comment_action == "unchanged" and len(github_api.writes("PATCH")) == 1


def test_comment_off_without_a_comment_posts_nothing(github_api):
    outcome = publisher(github_api).publish(run_bundle(101), CommentMode.OFF, False)
    assert outcome.comment_action == "off" and not github_api.writes()
