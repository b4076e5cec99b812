"""The publisher's scope rules and comment modes against the loopback API: what the server stores is the evidence."""

from __future__ import annotations

import dataclasses

from gate.config import CommentMode, CommentWhen
from tests.publish.github.test_client import SHA, bundle, publisher


def scoped(scope: str, conclusion: str = "success", **fields):
    return dataclasses.replace(bundle(conclusion=conclusion), scope=scope, **fields)


def test_a_check_run_carries_its_scope_and_a_filtered_run_posts_beside_a_filtered_one(github_api):
    publisher(github_api).publish(scoped("filtered"), CommentMode.OFF, check_run=True)
    publisher(github_api).publish(scoped("filtered", "failure"), CommentMode.OFF, check_run=True)
    assert [(r["external_id"], r["conclusion"]) for r in github_api.check_runs] == [
        ("llm-quality-gate:v1:filtered", "success"), ("llm-quality-gate:v1:filtered", "failure")]


def test_a_check_run_of_another_app_or_commit_does_not_block(github_api):
    github_api.check_runs.append({"id": 1, "name": "feedback-quality", "head_sha": SHA, "conclusion": "failure",
                                  "external_id": "someone-else"})
    github_api.check_runs.append({"id": 2, "name": "feedback-quality", "head_sha": "f" * 40, "conclusion": "failure",
                                  "external_id": "llm-quality-gate:v1:full"})
    outcome = publisher(github_api).publish(scoped("skipped"), CommentMode.OFF, check_run=True)
    assert outcome.check_run_url and github_api.check_runs[-1]["external_id"] == "llm-quality-gate:v1:skipped"


def test_a_filtered_run_that_cannot_read_the_check_runs_posts_none(github_api):
    github_api.fail_next("GET", rf"/repos/.+/commits/{SHA}/check-runs", 404, "Not Found")
    outcome = publisher(github_api).publish(scoped("filtered"), CommentMode.OFF, check_run=True)
    assert github_api.check_runs == [] and outcome.check_run_url is None
    assert "check run not posted: could not read the check runs of commit 0123456" in outcome.notes[0]
    assert not outcome.failed  # a refusal, not a publishing failure


def test_the_status_fallback_keeps_the_same_rule(github_api):
    github_api.forbid_checks = True
    full = publisher(github_api).publish(scoped("full", "failure"), CommentMode.OFF, check_run=True)
    assert full.status_posted and github_api.statuses[-1]["description"].startswith("fail: ")
    skipped = publisher(github_api).publish(dataclasses.replace(scoped("skipped"), verdict="skipped"),
                                            CommentMode.OFF, check_run=True)
    assert not skipped.status_posted and len(github_api.statuses) == 1
    assert "commit status not posted: `feedback-quality` on commit 0123456 is a full run's (failure)" in \
        skipped.notes[-1]
    github_api.statuses.clear()
    filtered = publisher(github_api).publish(scoped("filtered"), CommentMode.OFF, check_run=True)
    assert filtered.status_posted and github_api.statuses[-1]["description"].startswith("pass (filtered): ")
    again = publisher(github_api).publish(scoped("filtered"), CommentMode.OFF, check_run=True)
    assert again.status_posted and len(github_api.statuses) == 2  # a filtered run's status may be replaced


def test_comment_mode_changes_creates_only_for_a_change_and_updates_an_existing_comment(github_api):
    quiet = publisher(github_api).publish(dataclasses.replace(bundle(), changed=False), CommentMode.STICKY, False,
                                          CommentWhen.CHANGES)
    assert quiet.comment_action == "not needed (comment_mode: changes)" and github_api.writes() == []
    changed = publisher(github_api).publish(dataclasses.replace(bundle(), changed=True), CommentMode.STICKY, False,
                                            CommentWhen.CHANGES)
    assert changed.comment_action == "created"
    back = publisher(github_api).publish(dataclasses.replace(bundle(comment="## ✅ passed, as before"),
                                                             changed=False), CommentMode.STICKY, False,
                                         CommentWhen.CHANGES)
    assert back.comment_action == "updated" and "as before" in github_api.comments[7][0]["body"]


def test_comment_mode_failures_with_new_comments_and_off(github_api):
    passed = publisher(github_api).publish(bundle(), CommentMode.NEW, False, CommentWhen.FAILURES)
    assert passed.comment_action == "not needed (comment_mode: failures)" and github_api.calls == []
    failed = publisher(github_api).publish(bundle(conclusion="failure"), CommentMode.NEW, False, CommentWhen.FAILURES)
    assert failed.comment_action == "created" and len(github_api.comments[7]) == 1
    off = publisher(github_api).publish(bundle(conclusion="failure"), CommentMode.STICKY, False, CommentWhen.OFF)
    assert off.comment_action == "unchanged" and len(github_api.writes()) == 1  # an existing comment is kept current


def test_one_publisher_reads_the_check_runs_again_once_it_has_posted_one(github_api):
    """The listing of a commit's check runs is shared by the rules of one publish, not kept past a post: a
    publisher that posted a full run's check run since it last listed sees it."""
    same = publisher(github_api)
    assert same.publish(scoped("filtered"), CommentMode.OFF, check_run=True).check_run_url
    assert same.publish(scoped("full", "failure"), CommentMode.OFF, check_run=True).check_run_url
    refused = same.publish(scoped("filtered"), CommentMode.OFF, check_run=True)
    assert refused.check_run_url is None and "is a full run's (failure" in refused.notes[0]
    assert [r["external_id"] for r in github_api.check_runs] == ["llm-quality-gate:v1:filtered",
                                                                 "llm-quality-gate:v1:full"]
