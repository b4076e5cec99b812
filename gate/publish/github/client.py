"""With `comments`, `checks` and `contents` of this package, the only modules that talk to GitHub (through
PyGithub): a push's pull request here, the sticky comment in `comments`, the check run or commit status in `checks`,
files on branches (the history) and a pull request's changed files in `contents`.

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
from functools import cached_property
from typing import Any, TypeVar

from gate.config import CommentMode, CommentWhen
from gate.config.settings import Settings
from gate.errors import PublishError
from gate.publish.bundle import PublishBundle
from gate.publish.github.checks import Checks
from gate.publish.github.comments import Comments
from gate.publish.github.contents import Contents
from gate.publish.github.hints import RATE_LIMITED_HINT, READ_ONLY, READ_ONLY_HINT, refusal_hint
from gate.publish.github.names import ChosenName, Names
from gate.publish.github.retry import Failure, RetryBudget, RetryPolicy, http_failure, unreachable_reason

T = TypeVar("T")
# PyGithub's spacing between requests and between writes (seconds), which keeps clear of GitHub's
# secondary rate limits; tests against a local server set both to 0.
REQUEST_SPACING = (0.25, 1.0)
TIMEOUT = 30  # seconds PyGithub waits for a connection or a reply: a stalled GitHub is a timeout, not a hang
__all__ = ["READ_ONLY", "READ_ONLY_HINT", "RATE_LIMITED_HINT", "GitHubPublisher", "PublishError", "PublishOutcome",
           "RetryPolicy", "publisher_for", "refusal_hint"]


@dataclass
class PublishOutcome:
    comment_url: str | None = None
    # created | updated | unchanged | kept (a full run's, for this commit) | kept (a newer run's) | off |
    # not needed (comment_mode: …) | no pull request | failed (gate.publish.github.comments)
    comment_action: str = "none"
    check_run_url: str | None = None
    status_posted: bool = False
    notes: list[str] = field(default_factory=list)
    # Why no check run was posted under a name gate.yml chose (`gate.publish.github.names`): not a warning, the
    # step fails (gate.publish.flow)
    refused_name: str | None = None

    @property
    def failed(self) -> bool:
        return self.refused_name is not None or any(n.startswith("could not") for n in self.notes)


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
        self._repository = repository
        self._retry = retry or RetryPolicy()
        self._budget = RetryBudget(self._retry)
        self._token = token
        self._contents = Contents(self._repo, self._call, self._retry)
        self._checks = Checks(self._repo, self._call)
        self._names = Names(self._repo, self._call, self._checks, self._contents)
        self._comments = Comments(self._repo, self._call, self._ours)

    def publish(self, bundle: PublishBundle, comment: CommentMode, check_run: bool,
                when: CommentWhen = CommentWhen.ALWAYS, chosen: ChosenName | None = None) -> PublishOutcome:
        """The comment (`comment` says how, `when` whether) and the check run; failures become notes. `chosen`:
        gate.yml chose the check run's name, which must not be another check's (`Names.check`)."""
        outcome = PublishOutcome(notes=list(bundle.notes))
        posted = self._comments.publish(bundle, comment, when, outcome.notes)
        outcome.comment_url, outcome.comment_action = posted.url, posted.action
        named = self._names.check(bundle.check_name, bundle.head_sha, chosen) \
            if check_run and bundle.head_sha and chosen is not None else None
        if named is not None:
            outcome.notes += named.notes
            outcome.refused_name = named.refusal
        if check_run and bundle.head_sha and outcome.refused_name is None and not (named and named.unverified):
            outcome.check_run_url, outcome.status_posted = self._checks.publish(bundle, bundle.head_sha,
                                                                                outcome.notes)
        elif check_run and not bundle.head_sha:
            outcome.notes.append("no commit sha known: no check run")
        return outcome

    def foreign_checks(self, name: str, head_sha: str) -> list[str]:
        """See `Checks.foreign`: what else on the commit is named `name`; PublishError when it cannot be read."""
        return self._checks.foreign(name, head_sha)

    def head_sha_of(self, pull_request: int) -> str | None:
        """The head commit of a pull request, or None when it cannot be read."""
        try:
            pull = self._call(lambda: self._repo.get_pull(pull_request))
            return pull.head.sha
        except PublishError:
            return None

    def pull_request_of_push(self, sha: str) -> tuple[int | None, str | None]:
        """The pull request a pushed commit is the head of: the one OPEN pull request of this repository whose head
        is `sha` (a fork's pull request, or one merely containing the commit, is not this push's). (number, None);
        (None, a note) when several are; (None, None) when none is or GitHub cannot say."""
        def heads() -> list[int]:
            found = []
            for pull in self._repo.get_commit(sha).get_pulls():
                repo = pull.head.repo
                if pull.state == "open" and pull.head.sha == sha and repo is not None \
                        and str(repo.full_name).lower() == self._repository.lower():
                    found.append(pull.number)
            return found
        try:
            numbers = sorted(self._call(heads))
        except PublishError:
            return None, None
        if len(numbers) > 1:
            listed = ", ".join(f"#{n}" for n in numbers)
            return None, f"commit {sha[:7]} is the head of {len(numbers)} open pull requests ({listed}): no comment"
        return (numbers[0] if numbers else None), None

    def pull_request_of_head(self, sha: str, head_repository: str, head_branch: str) -> tuple[int | None, str | None]:
        """The OPEN pull request of this repository from `head_repository`:`head_branch` whose head commit is `sha`
        (a fork's pull request, which a workflow_run event does not name). (number, None); (None, a note) when
        several are or none is; (None, None) when GitHub cannot say."""
        owner = head_repository.split("/", 1)[0]

        def heads() -> list[int]:
            found = []
            for pull in self._repo.get_pulls(state="open", head=f"{owner}:{head_branch}"):
                repo = pull.head.repo
                if pull.head.sha == sha and repo is not None \
                        and str(repo.full_name).lower() == head_repository.lower():
                    found.append(pull.number)
            return found
        try:
            numbers = sorted(self._call(heads))
        except PublishError:
            return None, None
        if len(numbers) != 1:
            listed = ", ".join(f"#{n}" for n in numbers) or "none"
            return None, (f"commit {sha[:7]} of {head_repository}:{head_branch} is the head of "
                          f"{len(numbers)} open pull requests ({listed}): no comment")
        return numbers[0], None

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

    def compared_files(self, base: str, head: str) -> list[str] | None:
        """See `Contents.compared_files`: None when the files between two commits cannot all be read."""
        return self._contents.compared_files(base, head)

    # ------------------------------------------------------------ comment (gate.publish.github.comments)

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
        unreachable = unreachable_reason(exc) if isinstance(exc, exceptions.ConnectionError) else None
        if unreachable is not None:  # nothing to wait for: tried `connect_attempts` times (gate.publish.github.retry)
            return Failure(self._scrub(f"network error: cannot connect to {self._github.requester.base_url} "
                                       f"({unreachable})"), transient=True, unreachable=True)
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


def publisher_for(settings: Settings) -> GitHubPublisher | None:
    """The client for the run's repository; None without a token or a repository (nothing to talk to)."""
    github = settings.github
    if not github.token or not github.repository:
        return None
    return GitHubPublisher(github.token, github.api_url, github.repository)
