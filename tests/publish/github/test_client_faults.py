"""GitHub failing while the gate publishes: real PyGithub against real local HTTP servers that answer 5xx,
403 (read-only fork tokens, rate limits), 429, stall past the timeout, drop connections or answer garbage.

Retries are bounded (attempts, the longest single wait, a total budget per publisher) and honour
Retry-After / x-ratelimit-reset; waits are recorded, not slept. What remains is a note, never a traceback.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from gate.config import CommentMode
from gate.publish.bundle import PublishBundle
from gate.publish.github import GitHubPublisher, RetryPolicy
from gate.publish.github.retry import SECONDARY_LIMIT_WAIT
from tests.support.fake_github import REPO, FakeGitHub

TOKEN = "ghs_faulttoken_0123456789"
SHA = "0123456789abcdef0123456789abcdef01234567"
COMMENTS = rf"/repos/{REPO}/issues/7/comments"
CHECK_RUNS = rf"/repos/{REPO}/check-runs"


class Waits(list):
    """Stands in for time.sleep: records the waits."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def bundle(pr: int | None = 7) -> PublishBundle:
    return PublishBundle(gate="faults", verdict="fail", conclusion="failure", title="1 of 1 checks failed",
                         summary="## ❌ failed", comment="## ❌ failed", repository=REPO, pull_request=pr, head_sha=SHA)


def publisher(base_url: str, waits: Waits, timeout: int | None = None, **policy) -> GitHubPublisher:
    return GitHubPublisher(TOKEN, base_url, REPO, retry=RetryPolicy(sleep=waits, **policy), timeout=timeout)


# ---------------------------------------------------------------- 5xx, 429, rate limits


def test_a_github_that_keeps_failing_costs_a_bounded_total_wait(github_api):
    for _ in range(50):
        github_api.fail_next("GET", COMMENTS, 502, "Bad Gateway")
        github_api.fail_next("POST", CHECK_RUNS, 503, "Service Unavailable")
    waits = Waits()
    gh = publisher(github_api.base_url, waits, max_total=20)
    outcome = gh.publish(bundle(), CommentMode.STICKY, True)
    assert waits == [1.0, 2.0, 4.0, 8.0, 1.0, 2.0]  # exponential per call; a 4 s wait would pass the 20 s budget
    assert outcome.failed and outcome.comment_action == "failed" and not outcome.check_run_url
    comment_note, check_note, status_note = outcome.notes
    assert comment_note.startswith("could not comment on pull request #7: 502 Bad Gateway (after 5 attempts)")
    assert check_note == ("could not create the check run: 503 Service Unavailable (after 3 attempts; the 20 s "
                          "retry budget is spent)")
    assert status_note.startswith("could not post a commit status either: not tried: GitHub kept failing")
    requests = len(github_api.calls)
    again = gh.publish(bundle(), CommentMode.STICKY, True)  # once spent, calls fail at once
    assert len(github_api.calls) == requests and len(waits) == 6
    assert again.notes[0].endswith("not tried: GitHub kept failing and the 20 s the gate spends on retries are "
                                   "spent (last: 503 Service Unavailable)")


def test_retry_after_and_the_rate_limit_reset_are_honoured(github_api):
    reset = str(int(time.time()) + 5)
    github_api.fail_next("POST", COMMENTS, 429, "slow down", {"Retry-After": "7"})
    github_api.fail_next("POST", COMMENTS, 403, "API rate limit exceeded",
                         {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    github_api.fail_next("POST", CHECK_RUNS, 403, "You have exceeded a secondary rate limit")  # no header
    waits = Waits()
    outcome = publisher(github_api.base_url, waits).publish(bundle(), CommentMode.STICKY, True)
    assert waits[0] == 7.0 and 3.0 <= waits[1] <= 5.0 and waits[2] == SECONDARY_LIMIT_WAIT
    assert outcome.comment_action == "created" and outcome.check_run_url and not outcome.notes
    assert len(github_api.comments[7]) == 1


@pytest.mark.parametrize("headers", [{"Retry-After": "3600"},
                                     {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "{in_an_hour}"}])
def test_a_rate_limit_longer_than_the_gate_waits_is_not_waited_for(github_api, headers):
    headers = {k: v.format(in_an_hour=int(time.time()) + 3600) for k, v in headers.items()}
    github_api.fail_next("POST", COMMENTS, 403, "API rate limit exceeded for installation", headers)
    waits = Waits()
    outcome = publisher(github_api.base_url, waits).publish(bundle(), CommentMode.STICKY, False)
    assert waits == [] and outcome.failed
    assert "GitHub asks to wait 3" in outcome.notes[0] and "longer than the 60 s the gate waits" in outcome.notes[0]


def test_a_fork_pull_requests_read_only_token_is_not_retried_and_says_what_to_do(github_api):
    github_api.read_only = True  # 403 "Resource not accessible by integration" on every write
    waits = Waits()
    outcome = publisher(github_api.base_url, waits).publish(bundle(), CommentMode.STICKY, True)
    assert waits == []
    assert outcome.comment_action == "failed" and not outcome.status_posted
    assert "Resource not accessible by integration" in outcome.notes[0] and "workflow_run" in outcome.notes[0]
    assert any(n.startswith("could not post a commit status either: 403") for n in outcome.notes)
    assert not any("posted a commit status instead" in n for n in outcome.notes)  # it was not
    assert all(TOKEN not in n for n in outcome.notes)


# ---------------------------------------------------------------- what a 403 or a 404 meant


def test_a_secondary_rate_limit_is_reported_as_a_rate_limit_not_a_read_only_token(github_api):
    github_api.fail_next("GET", COMMENTS, 403, "You have exceeded a secondary rate limit", {"Retry-After": "3600"})
    github_api.fail_next("POST", CHECK_RUNS, 403, "You have exceeded a secondary rate limit", {"Retry-After": "3600"})
    waits = Waits()
    outcome = publisher(github_api.base_url, waits).publish(bundle(), CommentMode.STICKY, True)
    comment_note, check_note = outcome.notes  # the commit status is tried once: never a commit without a verdict
    assert comment_note.startswith("could not comment on pull request #7: 403 You have exceeded a secondary rate")
    for note in (comment_note, check_note):
        assert "GitHub rate limited the token" in note and "re-run the job later" in note
        assert "fork" not in note and "read-only" not in note
    assert check_note.startswith("GitHub did not take the check run: 403") and check_note.endswith(
        "posted a commit status instead")
    [status] = github_api.statuses
    assert (status["sha"], status["state"]) == (SHA, "failure")


def test_a_missing_pull_request_is_reported_as_not_found(github_api):
    github_api.fail_next("GET", COMMENTS, 404, "Not Found")
    outcome = publisher(github_api.base_url, Waits()).publish(bundle(), CommentMode.STICKY, False)
    [note] = outcome.notes
    assert note == ("could not comment on pull request #7: 404 Not Found; not found (pull request #7 or the gate's "
                    "comment on it does not exist or the token cannot see it)")


def test_a_403_without_the_read_only_message_names_the_missing_permission(github_api):
    github_api.fail_next("POST", COMMENTS, 403, "Must have admin rights to Repository.")
    outcome = publisher(github_api.base_url, Waits()).publish(bundle(), CommentMode.STICKY, False)
    [note] = outcome.notes
    assert note.endswith("403 Must have admin rights to Repository.; forbidden: the token lacks "
                         "`pull-requests: write` permission")


def test_the_status_fallback_is_announced_only_once_it_is_posted(github_api):
    github_api.forbid_checks = True
    github_api.fail_next("POST", rf"/repos/{REPO}/statuses/{SHA}", 403, "Resource not accessible by integration")
    outcome = publisher(github_api.base_url, Waits()).publish(bundle(), CommentMode.OFF, True)
    assert not outcome.status_posted and outcome.failed
    check_note, status_note = outcome.notes
    assert check_note.startswith("could not create the check run: 403 Resource not accessible by integration")
    assert status_note.startswith("could not post a commit status either: 403") and "workflow_run" in status_note
    again = publisher(github_api.base_url, Waits()).publish(bundle(), CommentMode.OFF, True)
    assert again.status_posted and not again.failed and len(github_api.statuses) == 1
    assert again.notes == ["the token may not create check runs (403 Resource not accessible by integration); "
                           "posted a commit status instead"]


@pytest.mark.parametrize("body", ["<html>upstream garbage", "[1, 2]", '[{"id": "x", "body": 5}]'])
def test_a_malformed_reply_is_a_note_not_a_crash(github_api, body):
    github_api.scripted.append(("GET", COMMENTS, Response(body, status=200, content_type="application/json")))
    waits = Waits()
    outcome = publisher(github_api.base_url, waits).publish(bundle(), CommentMode.STICKY, True)
    assert outcome.comment_action == "failed" and waits == []  # the same question gets the same garbage
    assert outcome.notes[0].startswith("could not comment on pull request #7: unexpected reply: ")
    assert outcome.check_run_url  # the rest is still published


# ---------------------------------------------------------------- timeouts and dropped connections


@pytest.fixture
def threaded_server():
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


def test_a_stalled_github_times_out_and_gives_up_in_bounded_time():
    with socket.socket() as stalled:  # accepts connections (the kernel's backlog), never answers
        stalled.bind(("127.0.0.1", 0))
        stalled.listen(64)
        waits = Waits()
        started = time.monotonic()
        outcome = publisher(f"http://127.0.0.1:{stalled.getsockname()[1]}", waits, timeout=1, attempts=2,
                            max_total=4).publish(bundle(), CommentMode.STICKY, True)
        elapsed = time.monotonic() - started
    assert outcome.failed and outcome.comment_action == "failed"
    assert "no reply within 1 s (timeout) (after 2 attempts)" in outcome.notes[0]
    assert "the 4 s retry budget is spent" in outcome.notes[1]  # 3 timeouts and a wait: 4 s
    assert waits == [1.0] and elapsed < 10


def test_a_comment_whose_reply_was_lost_is_not_posted_twice(threaded_server, monkeypatch):
    from gate.publish.github import client as gate_github

    monkeypatch.setattr(gate_github, "REQUEST_SPACING", (0, 0))
    fake = FakeGitHub(base_url=threaded_server.url_for("").rstrip("/"))
    lost = []

    def handle(request: Request) -> Response:
        response = fake.handle(request)
        if request.method == "POST" and request.path.endswith("/comments") and not lost:
            lost.append(request.path)
            time.sleep(1.6)  # the comment exists, but the reply comes after the client gave up
        return response

    threaded_server.expect_request("").respond_with_handler(handle)  # every path
    waits = Waits()
    outcome = publisher(fake.base_url, waits, timeout=1).publish(bundle(), CommentMode.NEW, False)
    assert lost and waits == [1.0]
    assert outcome.comment_action == "created" and len(fake.comments[7]) == 1


def test_connections_reset_by_the_server_are_retried_then_a_note():
    resets = []

    def serve(listener: socket.socket) -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connection.recv(65536)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            resets.append(1)  # before the reset: once the client has seen the last one, the count is complete
            connection.close()  # RST instead of a reply

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        threading.Thread(target=serve, args=(listener,), daemon=True).start()
        waits = Waits()
        outcome = publisher(f"http://127.0.0.1:{listener.getsockname()[1]}", waits, attempts=3).publish(
            bundle(), CommentMode.STICKY, False)
    assert outcome.failed and "network error" in outcome.notes[0] and "(after 3 attempts)" in outcome.notes[0]
    assert waits == [1.0, 2.0] and len(resets) == 3


# ---------------------------------------------------------------- no connection at all (no network, a wrong URL)


def closed_port() -> int:
    with socket.socket() as probe:  # bound, never listening, closed: a connection to it is refused
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_is_tried_twice_then_no_later_call_waits():
    waits = Waits()
    started = time.monotonic()
    outcome = publisher(f"http://127.0.0.1:{closed_port()}", waits).publish(bundle(), CommentMode.STICKY, True)
    elapsed = time.monotonic() - started
    assert waits == [1.0]  # one retry, not 1 + 2 + 4 + 8 s per call
    assert outcome.failed and outcome.comment_action == "failed" and not outcome.check_run_url
    comment_note, *later = outcome.notes  # the check run (and the commit status, where tried)
    assert "cannot connect to http://127.0.0.1:" in comment_note and "(connection refused)" in comment_note
    assert "(after 2 attempts; GitHub cannot be reached, later calls are not tried)" in comment_note
    assert later and all("not tried: GitHub could not be reached" in note for note in later)
    assert elapsed < 10


def test_a_name_that_does_not_resolve_fails_fast(monkeypatch):
    def no_dns(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    waits = Waits()
    outcome = publisher("http://github.invalid", waits).publish(bundle(), CommentMode.STICKY, True)
    assert waits == [1.0]
    assert "cannot connect to http://github.invalid (the name does not resolve)" in outcome.notes[0]
    assert "not tried: GitHub could not be reached" in outcome.notes[1]


def test_an_unreachable_network_is_named_and_a_reset_is_not_unreachable():
    import errno

    from gate.publish.github.retry import unreachable_reason

    wrapped = ConnectionError("max retries")
    wrapped.__cause__ = OSError(errno.ENETUNREACH, "Network is unreachable")
    assert unreachable_reason(wrapped) == "network unreachable"
    assert unreachable_reason(ConnectionResetError(errno.ECONNRESET, "reset")) is None
    assert unreachable_reason(TimeoutError()) is None


def test_an_unreachable_github_still_retries_server_errors_with_backoff():
    from gate.publish.github.retry import Failure, RetryBudget

    budget = RetryBudget(RetryPolicy(sleep=Waits()))
    server_error = Failure("502 Bad Gateway", 502, transient=True)
    assert [budget.wait(attempt, server_error)[0] for attempt in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 8.0]
    assert budget.wait(2, Failure("refused", transient=True, unreachable=True))[0] is None
    assert budget.exhausted and "could not be reached" in budget.exhausted
