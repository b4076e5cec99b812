"""The GitHub publisher: real PyGithub over HTTP against a fake API on loopback."""

from __future__ import annotations

import pytest

from gate.config import CommentMode
from gate.publish.bundle import FOOTER_MARKER, PublishBundle, marker
from gate.publish.github import GitHubPublisher, RetryPolicy
from gate.report.annotations import Annotation, Level
from tests.support.fake_github import REPO

TOKEN = "ghs_testtoken1234567890"
SHA = "0123456789abcdef0123456789abcdef01234567"


class Sleeps:
    def __init__(self):
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def bundle(gate="feedback-quality", comment="## ✅ passed\n\nall good", conclusion="success", annotations=(),
           pr=7, sha=SHA) -> PublishBundle:
    return PublishBundle(gate=gate, verdict="pass" if conclusion == "success" else "fail", conclusion=conclusion,
                         title="3 of 3 checks passed", summary=comment, comment=comment,
                         annotations=tuple(annotations), repository=REPO, pull_request=pr, head_sha=sha,
                         run_url="https://github.example/octo/widgets/actions/runs/1")


def publisher(api, sleeps=None) -> GitHubPublisher:
    return GitHubPublisher(TOKEN, api.base_url, REPO, retry=RetryPolicy(attempts=4, base_delay=1.0,
                                                                        sleep=sleeps or Sleeps()))


def test_first_run_creates_one_comment_and_one_check_run(github_api):
    outcome = publisher(github_api).publish(bundle(), CommentMode.STICKY, check_run=True)
    [comment] = github_api.comments[7]
    assert comment["body"].startswith(marker("feedback-quality") + f"\n<!-- llm-quality-gate:v1:full {SHA} -->\n"
                                      "## ✅ passed")
    assert f"Updated for commit `{SHA[:7]}`" in comment["body"] and FOOTER_MARKER in comment["body"]
    [run] = github_api.check_runs
    assert (run["name"], run["head_sha"], run["status"], run["conclusion"]) == (
        "feedback-quality", SHA, "completed", "success")
    assert run["output"]["summary"] == "## ✅ passed\n\nall good"
    assert run["details_url"].endswith("/actions/runs/1")
    assert outcome.comment_action == "created" and outcome.comment_url.endswith(f"#issuecomment-{comment['id']}")
    assert outcome.check_run_url and not outcome.notes
    assert all(c.headers.get("Authorization") == f"token {TOKEN}" or
               c.headers.get("Authorization") == f"Bearer {TOKEN}" for c in github_api.calls)


def test_second_run_edits_the_same_comment_and_a_rerun_changes_nothing(github_api):
    github_api.comments[7] = [{"id": 1, "body": "an unrelated human comment"}]
    publisher(github_api).publish(bundle(), CommentMode.STICKY, check_run=False)
    second = publisher(github_api).publish(bundle(comment="## ❌ failed\n\nnow worse"), CommentMode.STICKY, False)
    assert second.comment_action == "updated"
    assert len(github_api.comments[7]) == 2  # the human's and ours
    assert "now worse" in github_api.comments[7][1]["body"]
    assert len(github_api.writes("PATCH")) == 1
    third = publisher(github_api).publish(bundle(comment="## ❌ failed\n\nnow worse"), CommentMode.STICKY, False)
    assert third.comment_action == "unchanged"
    assert len(github_api.writes()) == 2  # one create, one edit: no edit noise


def test_two_gates_keep_two_comments(github_api):
    publisher(github_api).publish(bundle(gate="quality"), CommentMode.STICKY, False)
    publisher(github_api).publish(bundle(gate="fairness"), CommentMode.STICKY, False)
    publisher(github_api).publish(bundle(gate="quality", comment="changed"), CommentMode.STICKY, False)
    bodies = [c["body"] for c in github_api.comments[7]]
    assert len(bodies) == 2
    assert bodies[0].startswith(marker("quality")) and "changed" in bodies[0]
    assert bodies[1].startswith(marker("fairness"))


def test_a_gate_whose_name_prefixes_another_is_not_confused(github_api):
    publisher(github_api).publish(bundle(gate="quality-extended"), CommentMode.STICKY, False)
    publisher(github_api).publish(bundle(gate="quality"), CommentMode.STICKY, False)
    assert len(github_api.comments[7]) == 2


def test_sticky_comment_is_found_beyond_the_first_page(github_api):
    github_api.comments[7] = [{"id": i, "body": f"chatter {i}"} for i in range(1, 45)]
    publisher(github_api).publish(bundle(), CommentMode.STICKY, False)
    publisher(github_api).publish(bundle(comment="v2"), CommentMode.STICKY, False)
    ours = [c for c in github_api.comments[7] if c["body"].startswith(marker("feedback-quality"))]
    assert len(ours) == 1 and "v2" in ours[0]["body"]


def test_comment_modes_new_and_off(github_api):
    publisher(github_api).publish(bundle(), CommentMode.NEW, False)
    publisher(github_api).publish(bundle(), CommentMode.NEW, False)
    assert len(github_api.comments[7]) == 2
    outcome = publisher(github_api).publish(bundle(), CommentMode.OFF, False)
    # `comment: off` keeps the oldest of the gate's comments at the current verdict and deletes none
    assert outcome.comment_action == "updated" and len(github_api.comments[7]) == 2
    assert "## ✅ passed\n\nThis pull request's comment is no longer updated" in github_api.comments[7][0]["body"]


def test_no_pull_request_means_no_comment_but_a_check_run(github_api):
    outcome = publisher(github_api).publish(bundle(pr=None), CommentMode.STICKY, True)
    assert outcome.comment_action == "no pull request" and not github_api.comments
    assert len(github_api.check_runs) == 1


def test_failing_gate_gets_failure_with_annotations_batched_by_50(github_api):
    notes = [Annotation(f"outputs/m{i % 3}.jsonl", i + 1, Level.FAILURE, f"fb: bertscore_f1 failed {i}", "low")
             for i in range(120)]
    publisher(github_api).publish(bundle(conclusion="failure", annotations=notes), CommentMode.OFF, True)
    [run] = github_api.check_runs
    assert run["conclusion"] == "failure"
    posted = [c.body["output"]["annotations"] for c in github_api.writes() if "check-runs" in c.path]
    assert [len(a) for a in posted] == [50, 50, 20]
    assert len(run["annotations"]) == 120
    first = run["annotations"][0]
    assert first == {"path": "outputs/m0.jsonl", "start_line": 1, "end_line": 1, "annotation_level": "failure",
                     "title": "fb: bertscore_f1 failed 0", "message": "low"}


def test_server_errors_are_retried_with_backoff(github_api):
    sleeps = Sleeps()
    github_api.fail_next("POST", rf"/repos/{REPO}/issues/7/comments", 502)
    github_api.fail_next("POST", rf"/repos/{REPO}/issues/7/comments", 503)
    outcome = publisher(github_api, sleeps).publish(bundle(), CommentMode.STICKY, False)
    assert outcome.comment_action == "created" and len(github_api.comments[7]) == 1
    assert sleeps.calls == [1.0, 2.0]


def test_rate_limits_honour_retry_after(github_api):
    sleeps = Sleeps()
    github_api.fail_next("POST", rf"/repos/{REPO}/check-runs", 429, "slow down", {"Retry-After": "7"})
    github_api.fail_next("POST", rf"/repos/{REPO}/check-runs", 403, "You have exceeded a secondary rate limit",
                         {"Retry-After": "3"})
    outcome = publisher(github_api, sleeps).publish(bundle(), CommentMode.OFF, True)
    assert outcome.check_run_url and sleeps.calls == [7.0, 3.0]


def test_forbidden_check_runs_fall_back_to_a_commit_status(github_api):
    github_api.forbid_checks = True
    outcome = publisher(github_api).publish(bundle(conclusion="failure"), CommentMode.OFF, True)
    assert not github_api.check_runs
    [status] = github_api.statuses
    assert (status["sha"], status["state"], status["context"]) == (SHA, "failure", "feedback-quality")
    assert status["target_url"].endswith("/actions/runs/1") and len(status["description"]) <= 140
    assert outcome.status_posted and not outcome.failed
    assert any("commit status instead" in n for n in outcome.notes)


def test_read_only_token_does_not_crash_and_says_what_to_do(github_api):
    github_api.read_only = True
    outcome = publisher(github_api).publish(bundle(), CommentMode.STICKY, True)
    assert outcome.failed and outcome.comment_action == "failed"
    assert any("workflow_run" in n and "fork" in n for n in outcome.notes)
    assert not github_api.comments and not github_api.check_runs and not github_api.statuses


def test_persistent_failure_gives_up_and_never_shows_the_token(github_api):
    sleeps = Sleeps()
    for _ in range(4):
        github_api.fail_next("POST", rf"/repos/{REPO}/issues/7/comments", 500, f"bad token {TOKEN}")
    outcome = publisher(github_api, sleeps).publish(bundle(), CommentMode.STICKY, False)
    assert outcome.failed and len(sleeps.calls) == 3
    assert all(TOKEN not in note for note in outcome.notes)
    assert any("***" in note for note in outcome.notes)


def test_unreachable_server_is_a_note_not_a_crash():
    sleeps = Sleeps()
    gh = GitHubPublisher(TOKEN, "http://127.0.0.1:9", REPO, retry=RetryPolicy(attempts=2, sleep=sleeps))
    outcome = gh.publish(bundle(), CommentMode.STICKY, True)
    # the comment is tried twice (connection refused); the check run and its commit status are not tried
    assert outcome.failed and sleeps.calls == [1.0]
    assert "network error: cannot connect to http://127.0.0.1:9 (connection refused)" in outcome.notes[0]
    assert all("not tried: GitHub could not be reached" in n for n in outcome.notes[1:])


def test_client_errors_are_not_retried(github_api):
    sleeps = Sleeps()
    github_api.fail_next("POST", rf"/repos/{REPO}/issues/7/comments", 422, "Validation Failed")
    outcome = publisher(github_api, sleeps).publish(bundle(), CommentMode.STICKY, False)
    assert outcome.failed and sleeps.calls == []
    assert "422 Validation Failed" in outcome.notes[0]


@pytest.mark.parametrize("name", ["a --> b", "x<!--y", "plain name"])
def test_marker_cannot_end_the_html_comment(name):
    text = marker(name)
    assert text.startswith("<!-- llm-quality-gate:") and text.endswith(" -->")
    assert "-->" not in text[len("<!-- "):-len(" -->")] and "<!--" not in text[4:]
