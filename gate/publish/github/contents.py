"""Repository contents through PyGithub, for `gate.publish.github.client.GitHubPublisher`: files kept on a
branch, and the files a pull request changes. With the client, this package (`gate.publish.github`) is the
boundary to GitHub: no other module talks to it. The client composes one `Contents` and hands it its repository,
its retried call and its retry policy, so this module never imports the client (no cycle).

A history file is JSON Lines on a dedicated branch (like github-action-benchmark's gh-pages data): each run
appends one line through the contents API, so concurrent jobs race on the file's blob sha. The loser of a race
gets 409 (or 422) and re-reads and retries, a few times, with backoff.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from typing import Any

from gate.baselines.history import ALREADY  # append_line_to_branch_file's answer when `unless` held
from gate.errors import PublishError
from gate.publish.github.retry import RetryPolicy

HISTORY_ATTEMPTS = 5
FILE_MODE = "100644"
COMPARE_FILE_LIMIT = 300  # the compare API lists at most this many files
CONFLICT = (409, 422)  # a stale blob sha; a file or branch that another job created meanwhile
WRITE_HINT = ("the token cannot push to this repository: it needs `contents: write` permission (a pull request "
              "from a fork gets a read-only token, so record history from push or workflow_run workflows)")


class Contents:
    """Reading and appending files on branches; the files of a pull request. One per GitHubPublisher, sharing its
    repository, its `call` (retries within the publisher's one budget) and its retry policy."""

    def __init__(self, repo: Any, call: Callable[[Callable[[], Any]], Any], retry: RetryPolicy):
        self._repo = repo
        self._call = call
        self._retry = retry

    def read_branch_file(self, branch: str, path: str) -> bytes | None:
        """The file's bytes on `branch`; None when the branch or the file does not exist.

        Other failures raise PublishError (scrubbed of the token)."""
        found = self._read(branch, path)
        return None if found is None else found[0]

    def append_line_to_branch_file(self, branch: str, path: str, line: str, message: str,
                                   unless: Callable[[bytes], bool] | None = None) -> str:
        """Append one line to a file on `branch`, creating the file, or the branch as an orphan holding only it.

        Returns "created branch", "created file", "appended" or ALREADY. A concurrent writer (409, 422) makes it
        re-read and retry, up to HISTORY_ATTEMPTS times; a line that a retried write already stored is not added
        again. `unless` sees the file's bytes on every attempt, the ones the compare-and-swap is made against: when
        it returns True nothing is written (ALREADY) — so a concurrent job's entry for the same commit, which
        caused the conflict, is seen. Raises PublishError when the entry cannot be appended (403: the token cannot
        write, with a hint)."""
        line = line.rstrip("\n")
        if "\n" in line:
            raise ValueError("a history entry must be a single line")
        where = f"{path} on branch {branch}"
        for attempt in range(1, HISTORY_ATTEMPTS + 1):
            try:
                return self._append_once(branch, path, line, message, retrying=attempt > 1, unless=unless)
            except PublishError as exc:
                if exc.status == 403 and not exc.rate_limited:  # a rate limit is not a read-only token
                    raise PublishError(f"could not append the history entry to {where}: {exc}; {WRITE_HINT}",
                                       exc.status) from None
                if exc.status not in CONFLICT or attempt == HISTORY_ATTEMPTS:
                    tries = f" after {attempt} attempts" if attempt > 1 else ""
                    raise PublishError(f"could not append the history entry to {where}{tries}: {exc}",
                                       exc.status, exc.rate_limited) from None
            delay = self._retry.delay(attempt, None)
            self._retry.sleep(delay * (1 + random.random() / 2))  # jitter, so racing jobs fall out of step
        raise AssertionError("unreachable")

    def pull_request_files(self, number: int) -> list[str] | None:
        """The paths a pull request changes, with the former paths of renamed files; None when it cannot be read
        (no such pull request, no permission, or GitHub failing): callers treat None as unknown."""
        def files() -> list[str]:
            paths: list[str] = []
            for changed in self._repo.get_pull(number).get_files():
                paths.append(changed.filename)
                previous = changed.previous_filename  # None unless renamed
                if previous and previous not in paths:
                    paths.append(previous)
            return paths

        try:
            return self._call(files)
        except PublishError:
            return None

    def compared_files(self, base: str, head: str) -> list[str] | None:
        """The paths changed between the merge base of `base` and `head`, and `head` (a merge queue's candidate
        against its base), with the former paths of renamed files; None when GitHub cannot say, or when it lists
        only part of them (the compare API stops at COMPARE_FILE_LIMIT files)."""
        def files() -> list[str] | None:
            changed = self._repo.compare(base, head).files or []
            if len(changed) >= COMPARE_FILE_LIMIT:
                return None
            paths: list[str] = []
            for file in changed:
                paths += [name for name in (file.filename, file.previous_filename) if name and name not in paths]
            return paths

        try:
            return self._call(files)
        except PublishError:
            return None

    # ------------------------------------------------------------ internals

    def _append_once(self, branch: str, path: str, line: str, message: str, retrying: bool,
                     unless: Callable[[bytes], bool] | None) -> str:
        entry = line.encode("utf-8") + b"\n"
        found = self._read(branch, path)
        if found is None:
            try:
                self._call(lambda: self._repo.get_branch(branch))
            except PublishError as exc:
                if exc.status != 404:
                    raise
                self._create_orphan_branch(branch, path, entry.decode("utf-8"), message)
                return "created branch"
            self._call(lambda: self._repo.create_file(path, message, entry, branch=branch))
            return "created file"
        content, sha = found
        if retrying and line.encode("utf-8") in content.splitlines():
            return "appended"  # an earlier write went through though its response was lost
        if unless is not None and unless(content):
            return ALREADY  # e.g. another job recorded this commit: the conflict that made us re-read
        if content and not content.endswith(b"\n"):
            content += b"\n"
        self._call(lambda: self._repo.update_file(path, message, content + entry, sha, branch=branch))
        return "appended"

    def _create_orphan_branch(self, branch: str, path: str, text: str, message: str) -> None:
        from github import InputGitTreeElement

        tree = self._call(lambda: self._repo.create_git_tree(
            [InputGitTreeElement(path, FILE_MODE, "blob", content=text)]))
        commit = self._call(lambda: self._repo.create_git_commit(message, tree, []))
        self._call(lambda: self._repo.create_git_ref(f"refs/heads/{branch}", commit.sha))

    def _read(self, branch: str, path: str) -> tuple[bytes, str] | None:
        """(bytes, blob sha) of the file on the branch; None on 404."""
        try:
            found = self._call(lambda: self._repo.get_contents(path, ref=branch))
        except PublishError as exc:
            if exc.status == 404:
                return None
            raise
        if isinstance(found, list) or found.type != "file":
            raise PublishError(f"{path} on branch {branch} is not a file")
        if found.encoding == "base64":
            return base64.b64decode(found.content or ""), found.sha
        # Over 1 MB the contents API leaves the content out (encoding "none"): fetch the blob itself.
        blob = self._call(lambda: self._repo.get_git_blob(found.sha))
        if blob.encoding != "base64":
            raise PublishError(f"{path} on branch {branch}: unsupported blob encoding {blob.encoding!r}")
        return base64.b64decode(blob.content or ""), found.sha
