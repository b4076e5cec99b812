"""With `gate.github_contents`, the only modules that talk to GitHub (through PyGithub): sticky comment, check
run, commit status here; files on branches (the history) and a pull request's changed files there.

Every call is retried on transient failures (5xx, 429, secondary rate limits, timeouts) with
exponential backoff that honours `Retry-After`. A failure that remains is returned by `publish` as a
note, not raised: publishing never changes the gate's verdict or exit code, and the report files and
job summary are already written when this runs. The contents methods raise PublishError (scrubbed of
the token) or return None, and their callers decide.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gate.config import CommentMode
from gate.github_contents import ContentsMixin
from gate.publishing import PublishBundle, comment_body, comment_content, marker

T = TypeVar("T")
ANNOTATIONS_PER_REQUEST = 50  # GitHub's limit per check-run create/update
# PyGithub's spacing between requests and between writes (seconds), which keeps clear of GitHub's
# secondary rate limits; tests against a local server set both to 0.
REQUEST_SPACING = (0.25, 1.0)
STATUS_DESCRIPTION_LIMIT = 140


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(self.max_delay, max(0.0, retry_after))
        return min(self.max_delay, self.base_delay * 2 ** (attempt - 1))


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


class PublishError(Exception):
    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


READ_ONLY_HINT = ("the token cannot write here (a pull request from a fork gets a read-only token): upload the "
                  "report directory as an artifact and post it with `llm-gate publish` from a workflow_run "
                  "workflow (README: Pull requests from forks)")


class GitHubPublisher(ContentsMixin):
    def __init__(self, token: str, api_url: str, repository: str, *, retry: RetryPolicy | None = None,
                 timeout: int = 30):
        from github import Auth, Github

        # PyGithub's own retries are off: ours below are explicit, bounded and tested.
        self._github = Github(auth=Auth.Token(token), base_url=api_url.rstrip("/"), timeout=timeout, retry=None,
                              lazy=True, seconds_between_requests=REQUEST_SPACING[0],
                              seconds_between_writes=REQUEST_SPACING[1])
        self._repo = self._github.get_repo(repository)
        self._retry = retry or RetryPolicy()
        self._token = token

    def publish(self, bundle: PublishBundle, comment: CommentMode, check_run: bool) -> PublishOutcome:
        outcome = PublishOutcome()
        self._publish_comment(bundle, comment, outcome)
        if check_run and bundle.head_sha:
            self._publish_check(bundle, outcome)
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
                                                    if c.body and c.body.startswith(marker(bundle.gate) + "\n")),
                                                   None))
            if existing is None:
                created = self._call(lambda: issue.create_comment(body))
                outcome.comment_url, outcome.comment_action = created.html_url, "created"
            elif comment_content(existing.body) == comment_content(body):
                outcome.comment_url, outcome.comment_action = existing.html_url, "unchanged"
            else:
                self._call(lambda: existing.edit(body))
                outcome.comment_url, outcome.comment_action = existing.html_url, "updated"
        except PublishError as exc:
            outcome.comment_action = "failed"
            hint = f"; {READ_ONLY_HINT}" if exc.status in (403, 404) else ""
            outcome.notes.append(f"could not comment on pull request #{bundle.pull_request}: {exc}{hint}")

    # ------------------------------------------------------------ check run / status

    def _publish_check(self, bundle: PublishBundle, outcome: PublishOutcome) -> None:
        annotations = [a.to_check_run() for a in bundle.annotations]
        first, rest = annotations[:ANNOTATIONS_PER_REQUEST], annotations[ANNOTATIONS_PER_REQUEST:]
        output = {"title": bundle.title, "summary": bundle.summary, "annotations": first}
        try:
            run = self._call(lambda: self._repo.create_check_run(
                name=bundle.gate, head_sha=bundle.head_sha, status="completed", conclusion=bundle.conclusion,
                output=output, **({"details_url": bundle.run_url} if bundle.run_url else {})))
        except PublishError as exc:
            if exc.status != 403:
                outcome.notes.append(f"could not create the check run: {exc}")
                return
            outcome.notes.append(f"the token may not create check runs ({exc}); posted a commit status instead")
            self._publish_status(bundle, outcome)
            return
        outcome.check_run_url = getattr(run, "html_url", None)
        for start in range(0, len(rest), ANNOTATIONS_PER_REQUEST):
            batch = rest[start:start + ANNOTATIONS_PER_REQUEST]
            try:
                self._call(lambda b=batch: run.edit(output={"title": bundle.title, "summary": bundle.summary,
                                                            "annotations": b}))
            except PublishError as exc:
                outcome.notes.append(f"could not add annotations {start + 51}–{start + 50 + len(batch)}: {exc}")
                return

    def _publish_status(self, bundle: PublishBundle, outcome: PublishOutcome) -> None:
        state = {"success": "success", "failure": "failure"}.get(bundle.conclusion, "success")
        description = f"{bundle.verdict}: {bundle.title}"[:STATUS_DESCRIPTION_LIMIT]
        try:
            commit = self._repo.get_commit(bundle.head_sha)
            self._call(lambda: commit.create_status(state=state, description=description, context=bundle.gate,
                                                    **({"target_url": bundle.run_url} if bundle.run_url else {})))
            outcome.status_posted = True
        except PublishError as exc:
            outcome.notes.append(f"could not post a commit status either: {exc}")

    # ------------------------------------------------------------ retries

    def _call(self, request: Callable[[], T]) -> T:
        from github import GithubException
        from requests.exceptions import ConnectionError as RequestsConnectionError
        from requests.exceptions import Timeout

        attempt = 0
        while True:
            attempt += 1
            try:
                return request()
            except GithubException as exc:
                transient, retry_after = _transient(exc)
                if not transient or attempt >= self._retry.attempts:
                    raise PublishError(self._describe(exc), exc.status) from None
            except (Timeout, RequestsConnectionError) as exc:
                retry_after = None
                if attempt >= self._retry.attempts:
                    raise PublishError(self._scrub(f"network error: {type(exc).__name__}")) from None
            self._retry.sleep(self._retry.delay(attempt, retry_after))

    def _describe(self, exc: Any) -> str:
        message = ""
        if isinstance(exc.data, dict):
            message = str(exc.data.get("message", ""))
        return self._scrub(f"{exc.status} {message}".strip())

    def _scrub(self, text: str) -> str:
        """The token never appears in a message, whatever a server echoes back."""
        return text.replace(self._token, "***") if self._token else text


def _transient(exc: Any) -> tuple[bool, float | None]:
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    retry_after = _seconds(headers.get("retry-after"))
    if exc.status >= 500 or exc.status == 429:
        return True, retry_after
    if exc.status == 403:
        message = str(exc.data.get("message", "") if isinstance(exc.data, dict) else exc.data).lower()
        limited = "rate limit" in message or headers.get("x-ratelimit-remaining") == "0"
        if limited and retry_after is None and headers.get("x-ratelimit-reset"):
            retry_after = _seconds(headers["x-ratelimit-reset"], since_epoch=True)
        return limited, retry_after
    return False, None


def _seconds(value: str | None, since_epoch: bool = False) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    if number is None:
        return None
    return max(0.0, number - time.time()) if since_epoch else number
