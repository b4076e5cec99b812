"""What a run publishes: the PR and commit it belongs to, the conclusion, the comment's content key."""

from __future__ import annotations

import pytest

from gate.config.settings import FailOn
from gate.judge import Verdict
from gate.publish.bundle import (
    PublishBundle,
    Target,
    comment_body,
    comment_content,
    conclusion,
    target_from_event,
)
from gate.report.annotations import Annotation, Level


@pytest.mark.parametrize("name, event, expected", [
    ("pull_request", {"pull_request": {"number": 7, "head": {"sha": "head"}}}, Target(7, "head")),
    ("pull_request_target", {"pull_request": {"number": 8, "head": {"sha": "h2"}}}, Target(8, "h2")),
    ("push", {"ref": "refs/heads/main"}, Target(None, "merge")),
    ("workflow_run", {"workflow_run": {"head_sha": "h3", "pull_requests": [{"number": 9}]}}, Target(9, "h3")),
    ("workflow_run", {"workflow_run": {"head_sha": "h4", "pull_requests": []}}, Target(None, "h4")),
    ("issue_comment", {"issue": {"number": 5, "pull_request": {}}}, Target(5, "merge")),
    ("pull_request", None, Target(None, "merge")),
    # A merge queue: the queue's head commit, no pull request (a group may hold several)
    ("merge_group", {"merge_group": {"head_sha": "mq", "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-ab",
                                     "base_sha": "base"}}, Target(None, "mq")),
    ("merge_group", {"merge_group": {}}, Target(None, "merge")),
])
def test_target_from_event(name, event, expected):
    assert target_from_event(name, event, "merge") == expected


@pytest.mark.parametrize("verdict, fail_on, expected", [
    (Verdict.PASS, FailOn.FAIL, "success"), (Verdict.WARN, FailOn.FAIL, "success"),
    (Verdict.WARN, FailOn.WARN, "failure"), (Verdict.FAIL, FailOn.FAIL, "failure"),
    (Verdict.SKIPPED, FailOn.FAIL, "neutral"),
])
def test_conclusion(verdict, fail_on, expected):
    assert conclusion(verdict, fail_on) == expected


def bundle(**changes) -> PublishBundle:
    values = dict(gate="g", verdict="fail", conclusion="failure", title="t", summary="s", comment="## body",
                  annotations=(Annotation("a.jsonl", 3, Level.FAILURE, "title", "message"),), repository="o/r",
                  pull_request=7, head_sha="a" * 40, run_url="https://x/runs/1")
    return PublishBundle(**{**values, **changes})


def test_bundle_round_trips_through_json():
    original = bundle()
    assert PublishBundle.from_dict(original.to_dict()) == original
    with pytest.raises(ValueError, match="schema"):
        PublishBundle.from_dict({**original.to_dict(), "schema": 99})


def test_footer_is_not_content():
    first = comment_body(bundle(run_url="https://x/runs/1"))
    rerun = comment_body(bundle(run_url="https://x/runs/2"))
    assert first != rerun and comment_content(first) == comment_content(rerun)
    assert comment_content(first) != comment_content(comment_body(bundle(comment="## other")))
