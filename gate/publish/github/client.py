"""With `gate.publish.github.contents`, the only modules that talk to GitHub (through PyGithub): sticky comment,
check run, commit status here; files on branches (the history) and a pull request's changed files there.

Every call is retried on transient failures (5xx, 429, rate limits, timeouts, dropped connections) with
exponential backoff that honours `Retry-After` and `x-ratelimit-reset`, within bounds (`gate.publish.github.retry`):
a GitHub that is down or asks for an hour costs a run about two minutes, not a hung job. A failure that
remains is returned by `publish` as a note, not raised: publishing never changes the gate's verdict or exit
code, and the report files and job summary are already written when this runs. The contents methods raise
PublishError (scrubbed of the token) or return None, and their callers decide.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, TypeVar

from gate.config import CommentMode
from gate.errors import PublishError
from gate.publish.bundle import PublishBundle, comment_body, comment_content, marker
from gate.publish.github.contents import Contents
from gate.publish.github.retry import Failure, RetryBudget, RetryPolicy, http_failure
from gate.settings import Settings

T = TypeVar("T")
ANNOTATIONS_PER_REQUEST = 50  # GitHub's limit per check-run create/update
# PyGithub's spacing between requests and between writes (seconds), which keeps clear of GitHub's
# secondary rate limits; tests against a local server set both to 0.
REQUEST_SPACING = (0.25, 1.0)
STATUS_DESCRIPTION_LIMIT = 140
TIMEOUT = 30  # seconds PyGithub waits for a connection or a reply: a stalled GitHub is a timeout, not a hang
__all__ = ["GitHubPublisher", "PublishError", "PublishOutcome", "RetryPolicy", "publisher_for"]


@dataclass
class PublishOutcome:
    comment_url: str | None = None
    comment_action: str = "none"  # created | updated | unchanged | off | no pull request | failed
    check_run_url: str | None = None
    status_posted: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(n.startswith("could not") for n in self.notes)


READ_ONLY = "Resource not accessible by integration"  # GitHub's 403 for an Actions token without the permission
READ_ONLY_HINT = ("the token cannot write here (a pull request from a fork gets a read-only token): upload the "
                  "report directory as an artifact and post it with `llm-gate publish` from a workflow_run "
                  "workflow (README: Pull requests from forks)")
RATE_LIMITED_HINT = ("GitHub rate limited the token (too many requests in a short time, e.g. many jobs publishing "
                     "at once); the report files and job summary are complete: re-run the job later to publish")


def refusal_hint(exc: PublishError, what: str, permission: str) -> str:
    """What a refused request means, for its note ("" for other failures). GitHub answers a rate limit, a
    read-only token, a missing permission and a thing the token cannot see with 403 or 404 alike; each needs
    another remedy, so the note says which it was."""
    if exc.rate_limited:
        return f"; {RATE_LIMITED_HINT}"
    if exc.status == 404:
        return f"; not found ({what} does not exist or the token cannot see it)"
    if exc.status == 403 and READ_ONLY in str(exc):
        return f"; {READ_ONLY_HINT}"
    if exc.status == 403:
        return f"; forbidden: the token lacks `{permission}` permission"
    return ""


class GitHubPublisher:
    def __init__(self, token: str, api_url: str, repository: str, *, retry: RetryPolicy | None = None,
                 timeout: int | None = None):
        from github import Auth, Github

        self._timeout = max(1, int(timeout if timeout is not None else TIMEOUT))  # PyGithub takes whole seconds
        # PyGithub's own retries are off: ours below are explicit, bounded and tested.
        self._github = Github(auth=Auth.Token(token), base_url=api_url.rstrip("/"), timeout=self._timeout,
                              retry=None, lazy=True, seconds_between_requests=REQUEST_SPACING[0],
                              seconds_between_writes=REQUEST_SPACING[1])
        self._repo = self._github.get_repo(repository)
        self._retry = retry or RetryPolicy()
        self._budget = RetryBudget(self._retry)
        self._token = token
        self._contents = Contents(self._repo, self._call, self._retry)

    def publish(self, bundle: PublishBundle, comment: CommentMode, check_run: bool) -> PublishOutcome:
        outcome = PublishOutcome()
        self._publish_comment(bundle, comment, outcome)
        if check_run and bundle.head_sha:
            self._publish_check(bundle, bundle.head_sha, outcome)
        elif check_run:
            outcome.notes.append("no commit sha known: no check run")
        return outcome

    def head_sha_of(self, pull_request: int) -> str | None:
        """The head commit of a pull request, or None when it cannot be read."""
        try:
            pull = self._call(lambda: self._repo.get_pull(pull_request))
            return pull.head.sha
        except PublishError:
            return None

    # ------------------------------------------------------------ contents (gate.publish.github.contents)

    def read_branch_file(self, branch: str, path: str) -> bytes | None:
        """See `Contents.read_branch_file`: None when the branch or the file does not exist."""
        return self._contents.read_branch_file(branch, path)

    def append_line_to_branch_file(self, branch: str, path: str, line: str, message: str,
                                   unless: Callable[[bytes], bool] | None = None) -> str:
        """See `Contents.append_line_to_branch_file`: the history's compare-and-swap append."""
        return self._contents.append_line_to_branch_file(branch, path, line, message, unless)

    def pull_request_files(self, number: int) -> list[str] | None:
        """See `Contents.pull_request_files`: None when the pull request's files cannot be read."""
        return self._contents.pull_request_files(number)

    # ------------------------------------------------------------ comment

    def _publish_comment(self, bundle: PublishBundle, mode: CommentMode, outcome: PublishOutcome) -> None:
        if mode is CommentMode.OFF:
            outcome.comment_action = "off"
            return
        if bundle.pull_request is None:
            outcome.comment_action = "no pull request"
            return
        body = comment_body(bundle)
        try:
            issue = self._repo.get_issue(bundle.pull_request)
            existing = None
            if mode is CommentMode.STICKY:
                existing = self._call(lambda: next((c for c in issue.get_comments()
                                                    if c.body and c.body.startswith(marker(bundle.gate) + "\n")
                                                    and self._ours(c)), None))
            if existing is None:
                created = self._call(_once(lambda: issue.create_comment(body), lambda: next(
                    (c for c in issue.get_comments() if c.body == body), None)))
                outcome.comment_url, outcome.comment_action = created.html_url, "created"
            elif comment_content(existing.body) == comment_content(body):
                outcome.comment_url, outcome.comment_action = existing.html_url, "unchanged"
            else:
                self._call(lambda: existing.edit(body))
                outcome.comment_url, outcome.comment_action = existing.html_url, "updated"
        except PublishError as exc:
            outcome.comment_action = "failed"
            hint = refusal_hint(exc, f"pull request #{bundle.pull_request} or the gate's comment on it",
                                "pull-requests: write")
            outcome.notes.append(f"could not comment on pull request #{bundle.pull_request}: {exc}{hint}")

    def _ours(self, comment: Any) -> bool:
        """Whether this token's identity wrote `comment`. Anyone can post a comment that starts with the
        marker: editing theirs would put the gate's report under their name (and they could edit it back),
        and where the token may not edit it every run would fail to comment."""
        login = str(getattr(comment.user, "login", "") or "")
        if login.endswith("[bot]"):  # an app such as github-actions[bot]: a user cannot take such a name
            return True
        return bool(self._login) and login == self._login

    @cached_property
    def _login(self) -> str | None:
        """A personal access token's user; None for an app's installation token, which may not read /user."""
        try:
            return self._call(lambda: self._github.get_user().login)
        except PublishError:
            return None

    # ------------------------------------------------------------ check run / status

    def _publish_check(self, bundle: PublishBundle, head_sha: str, outcome: PublishOutcome) -> None:
        from github.GithubObject import NotSet  # PyGithub's "not sent"; imported with the client, lazily

        annotations = [a.to_check_run() for a in bundle.annotations]
        first, rest = annotations[:ANNOTATIONS_PER_REQUEST], annotations[ANNOTATIONS_PER_REQUEST:]
        output: dict[str, str | list[dict[str, str | int]]] = {
            "title": bundle.title, "summary": bundle.summary, "annotations": first}
        try:
            run = self._call(lambda: self._repo.create_check_run(
                name=bundle.gate, head_sha=head_sha, status="completed", conclusion=bundle.conclusion,
                output=output, details_url=bundle.run_url or NotSet))
        except PublishError as exc:
            hint = refusal_hint(exc, f"commit {head_sha[:7]}", "checks: write")
            if exc.status != 403 or exc.rate_limited:  # a rate-limited status would fare no better
                outcome.notes.append(f"could not create the check run: {exc}{hint}")
                return
            failure = self._publish_status(bundle, head_sha)
            if failure is None:  # said only once it is so
                outcome.status_posted = True
                outcome.notes.append(f"the token may not create check runs ({exc}); posted a commit status instead")
            else:
                outcome.notes.append(f"could not create the check run: {exc}{hint}")
                outcome.notes.append(f"could not post a commit status either: {failure}"
                                     + refusal_hint(failure, f"commit {head_sha[:7]}", "statuses: write"))
            return
        outcome.check_run_url = getattr(run, "html_url", None)
        for start in range(0, len(rest), ANNOTATIONS_PER_REQUEST):
            batch = rest[start:start + ANNOTATIONS_PER_REQUEST]
            try:
                self._call(partial(run.edit, output={"title": bundle.title, "summary": bundle.summary,
                                                     "annotations": batch}))
            except PublishError as exc:
                outcome.notes.append(f"could not add annotations {start + 51}–{start + 50 + len(batch)}: {exc}")
                return

    def _publish_status(self, bundle: PublishBundle, head_sha: str) -> PublishError | None:
        """Post the verdict as a commit status (the check run's stand-in); the failure, None when posted."""
        state = {"success": "success", "failure": "failure"}.get(bundle.conclusion, "success")
        description = f"{bundle.verdict}: {bundle.title}"[:STATUS_DESCRIPTION_LIMIT]
        try:
            commit = self._repo.get_commit(head_sha)
            self._call(lambda: commit.create_status(state=state, description=description, context=bundle.gate,
                                                    **({"target_url": bundle.run_url} if bundle.run_url else {})))
        except PublishError as exc:
            return exc
        return None

    # ------------------------------------------------------------ retries

    def _call(self, request: Callable[[], T]) -> T:
        """`request()`, retried while its failure is transient and the budget lasts; else PublishError."""
        if self._budget.exhausted:
            raise PublishError(f"not tried: {self._scrub(self._budget.exhausted)}")
        attempt = 0
        while True:
            attempt += 1
            started = self._retry.clock()
            try:
                return request()
            except PublishError:  # a nested call's, already retried and described
                raise
            except Exception as exc:  # every failure becomes a note, never a traceback
                failure = self._failure(exc)
            self._budget.charge(self._retry.clock() - started)
            delay, why = self._budget.wait(attempt, failure)
            if delay is None:  # a 403 or 429 that was worth retrying is a rate limit
                raise PublishError(why, failure.status, failure.transient and failure.status in (403, 429)) from None
            self._retry.sleep(delay)
            self._budget.charge(delay)

    def _failure(self, exc: Exception) -> Failure:
        from github import GithubException
        from requests import exceptions

        if isinstance(exc, GithubException):
            return http_failure(exc.status, self._describe(exc), exc.headers, exc.data)
        if isinstance(exc, exceptions.Timeout):
            return Failure(f"network error: no reply within {self._timeout} s (timeout)", transient=True)
        if isinstance(exc, (exceptions.ConnectionError, exceptions.ChunkedEncodingError)):
            return Failure(self._scrub(f"network error: {type(exc).__name__} (connection refused, reset or "
                                       "dropped)"), transient=True)
        # A malformed reply, an unexpected shape: trying again would get the same
        return Failure(self._scrub(f"unexpected reply: {type(exc).__name__}: {exc}"[:300]))

    def _describe(self, exc: Any) -> str:
        message = ""
        if isinstance(exc.data, dict):
            message = str(exc.data.get("message", ""))
        return self._scrub(f"{exc.status} {message}".strip())

    def _scrub(self, text: str) -> str:
        """The token never appears in a message, whatever a server echoes back."""
        return text.replace(self._token, "***") if self._token else text


def _once(create: Callable[[], T], find: Callable[[], T | None]) -> Callable[[], T]:
    """`create` for `_call`, whose retries first `find` what an earlier try made: a POST whose reply was lost
    (a timeout, a reset, a 502 from a proxy) may have been done, and a second comment would be noise."""
    tries = 0

    def attempt() -> T:
        nonlocal tries
        tries += 1
        made = find() if tries > 1 else None
        return made if made is not None else create()
    return attempt


def publisher_for(settings: Settings) -> GitHubPublisher | None:
    """The client for the run's repository; None without a token or a repository (nothing to talk to)."""
    github = settings.github
    if not github.token or not github.repository:
        return None
    return GitHubPublisher(github.token, github.api_url, github.repository)
