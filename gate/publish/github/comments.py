"""The gate's sticky comment on a pull request, for `gate.publish.github.client.GitHubPublisher`.

One comment per gate (`comment_title`), found by its hidden marker among the comments this token's identity wrote,
edited in place. Three rules keep it one comment with the newest verdict:

* **Newest run wins.** Each posted body ends with a hidden run line (`RUN_LINE`): the workflow run id in the
  bundle's `run_url` (GitHub numbers runs in the order they are created; a re-run keeps its number). A run never
  writes over a comment a newer run wrote (it says so in a note), and never writes anything older than a body it
  has read. A comment without the line (an older gate's, a run outside Actions) is older than any numbered run.
* **Concurrent jobs converge.** Jobs started together each find no comment and create one. After every write
  (and whenever it finds more than one) a `sticky` job lists the comments again: the oldest (lowest id) is the
  sticky one; it is edited to hold the newest body seen (by run, then comment id: every job picks the same one),
  and only then are the others deleted (a 404: another job deleted it first). The oldest is never deleted, so
  the count ends at one; it is listed again until it is stable (`ROUNDS`). What GitHub cannot give is a
  conditional edit: a stale job's edit, decided before and applied after a newer job's whole publish, is not seen
  by anyone; every edit is decided on a fresh listing, so this needs a request in flight across another job's
  three. A workflow `concurrency:` group per pull request (docs/github.md) removes even that.
* **Off still keeps it current.** `comment_mode: off` (and `failures`, `changes`) only stops NEW comments; an
  existing one is updated like any. `comment: off` stops commenting: an existing comment is reduced to the current
  verdict's line and a pointer to the check run (`retired_comment`), so an old failure never stays up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from gate.config import CommentMode, CommentWhen
from gate.errors import PublishError
from gate.publish.bundle import (
    FOOTER_MARKER,
    PublishBundle,
    Scope,
    comment_body,
    comment_content,
    comment_wanted,
    marker,
    posted_scope,
)
from gate.publish.github.hints import refusal_hint

T = TypeVar("T")
RUN_LINE = "<!-- llm-quality-gate:run {run} -->"
_RUN = re.compile(r"<!-- llm-quality-gate:run (\d{1,20}) -->")
_RUN_ID = re.compile(r"/actions/runs/(\d{1,20})(?:/|$)")
ROUNDS = 4  # listings a job makes to converge and verify after its write
UNNUMBERED = -1  # the run of a body (or bundle) without a run number: older than every numbered run


def run_number(run_url: str | None) -> int:
    """The workflow run id in a run's URL; UNNUMBERED without one."""
    found = _RUN_ID.search(run_url or "")
    return int(found.group(1)) if found else UNNUMBERED


def posted_run(body: str) -> int:
    """The run that wrote a gate comment (its hidden run line, in the footer); UNNUMBERED without one."""
    parts = body.split(FOOTER_MARKER, 1)
    found = _RUN.search(parts[1]) if len(parts) == 2 else None
    return int(found.group(1)) if found else UNNUMBERED


def posted_body(bundle: PublishBundle) -> str:
    """`comment_body` with the run line after the footer: not part of the compared content."""
    run = run_number(bundle.run_url)
    body = comment_body(bundle)
    return body if run == UNNUMBERED else f"{body}{RUN_LINE.format(run=run)}\n"


def retired_comment(bundle: PublishBundle) -> PublishBundle:
    """The bundle `comment: off` keeps an existing comment at: the report's first line (the verdict) and where
    the report is now."""
    first = next((line for line in bundle.comment.splitlines() if line.strip()), f"## {bundle.verdict}")
    return replace(bundle, comment=f"{first}\n\nThis pull request's comment is no longer updated in full "
                                   "(`comment: off`); it shows the latest verdict. The report is in the check run "
                                   "and the workflow run's job summary.")


@dataclass
class Posted:
    """What `Comments.publish` did: the comment's URL and action (see `PublishOutcome.comment_action`)."""

    url: str | None
    action: str


@dataclass
class _Newest:
    """The newest body a job knows of: its own, or one it has read."""

    body: str
    rank: tuple[int, int]  # (run, comment id): the same order in every job

    def offer(self, body: str, comment_id: int) -> None:
        """A body read (or written) at `comment_id`; at an equal rank the later one read is what that comment holds."""
        rank = (posted_run(body), comment_id)
        if rank >= self.rank:
            self.body, self.rank = body, rank


class Comments:
    """The sticky comment of one GitHubPublisher: its repository, retried `call` and the test of which comments
    its identity wrote (`ours`)."""

    def __init__(self, repo: Any, call: Callable[[Callable[[], Any]], Any], ours: Callable[[Any], bool]):
        self._repo = repo
        self._call = call
        self._ours = ours

    def publish(self, bundle: PublishBundle, mode: CommentMode, when: CommentWhen, notes: list[str]) -> Posted:
        off = "off" if mode is CommentMode.OFF else "off (comment_mode: off)"
        if mode is CommentMode.NEW and when is CommentWhen.OFF:
            return Posted(None, off)
        if bundle.pull_request is None:
            return Posted(None, off if mode is CommentMode.OFF or when is CommentWhen.OFF else "no pull request")
        wanted = mode is not CommentMode.OFF and comment_wanted(bundle, when)
        not_needed = off if mode is CommentMode.OFF or when is CommentWhen.OFF else \
            f"not needed (comment_mode: {when.value})"
        if mode is CommentMode.NEW and not wanted:
            return Posted(None, not_needed)
        body = posted_body(retired_comment(bundle) if mode is CommentMode.OFF else bundle)
        try:
            issue = self._repo.get_issue(bundle.pull_request)
            if mode is CommentMode.NEW:
                created = self._call(_once(lambda: issue.create_comment(body), lambda: next(
                    (c for c in issue.get_comments() if c.body == body), None)))
                return Posted(created.html_url, "created")
            return self._sticky(bundle, issue, body, wanted, not_needed, mode is CommentMode.STICKY, notes)
        except PublishError as exc:
            hint = refusal_hint(exc, f"pull request #{bundle.pull_request} or the gate's comment on it",
                                "pull-requests: write")
            notes.append(f"could not comment on pull request #{bundle.pull_request}: {exc}{hint}")
            return Posted(None, "failed")

    def _sticky(self, bundle: PublishBundle, issue: Any, body: str, wanted: bool, not_needed: str, converge: bool,
                notes: list[str]) -> Posted:
        """The one comment of this gate: created, updated, or left to a newer run's; then converged."""
        mine = run_number(bundle.run_url)
        newest = _Newest(body, (mine, UNNUMBERED))
        found = self._listing(issue, bundle)
        if not converge:  # `comment: off` keeps the oldest current and leaves the rest alone
            found = found[:1]
        for comment in found:
            newest.offer(comment.body, comment.id)
        if not found:
            if not wanted:  # an existing comment is updated whatever comment_mode says; none is created
                return Posted(None, not_needed)
            created = self._call(_once(lambda: issue.create_comment(body), lambda: next(
                (c for c in issue.get_comments() if c.body == body), None)))
            posted = Posted(created.html_url, "created")
            newest.offer(body, created.id)
        elif refusal := self._full_run_comment(found[0].body, bundle):
            notes.append(refusal)
            return Posted(found[0].html_url, "kept")
        elif newest.rank[0] > mine:
            notes.append(f"comment not updated: the gate's comment `{bundle.comment_title}` on pull request "
                         f"#{bundle.pull_request} is workflow run {newest.rank[0]}'s, newer than this run's")
            posted = Posted(found[0].html_url, "kept (a newer run's)")
        elif comment_content(found[0].body) == comment_content(body) and posted_run(found[0].body) == mine:
            posted = Posted(found[0].html_url, "unchanged")
        else:
            survivor = found[0]
            self._edit(issue, survivor, body)
            posted = Posted(survivor.html_url, "updated")
            newest.offer(body, survivor.id)
        if (posted.action in ("created", "updated") or len(found) > 1) \
                and not self._converge(issue, bundle, newest, delete=converge):
            notes.append(f"the gate's comment `{bundle.comment_title}` on pull request #{bundle.pull_request} "
                         f"did not settle in {ROUNDS} listings (other jobs kept writing): add a `concurrency:` group "
                         "per pull request to the workflow")
        return posted

    def _converge(self, issue: Any, bundle: PublishBundle, newest: _Newest, delete: bool) -> bool:
        """List again until one comment, the oldest, holds the newest body: move it there, then delete the others
        (`sticky` mode; `comment: off` keeps the oldest current and deletes nothing). Whether it settled."""
        for _ in range(ROUNDS):
            found = self._listing(issue, bundle)
            if not delete:
                found = found[:1]
            for comment in found:
                newest.offer(comment.body, comment.id)
            if not found:  # someone deleted it: nothing to keep current
                return True
            survivor, others = found[0], found[1:]
            keep = newest.body if _replaces(newest.body, survivor.body) else survivor.body
            if survivor.body == keep and not others:
                return True
            if survivor.body != keep:
                self._edit(issue, survivor, keep)
            for other in others:  # only once the survivor holds the newest body
                try:
                    self._call(other.delete)
                except PublishError as exc:
                    if exc.status != 404:  # 404: another job deleted it first
                        raise
        return False

    def _edit(self, issue: Any, comment: Any, body: str) -> None:
        """`comment.edit(body)`, retried as a decision, not a replay: a retry (after a lost reply or a 5xx, seconds
        later) first reads the comment again and leaves it alone if a newer run wrote it meanwhile."""
        tries = 0

        def attempt() -> None:
            nonlocal tries
            tries += 1
            if tries > 1 and posted_run(issue.get_comment(comment.id).body) > posted_run(body):
                return
            comment.edit(body)
        self._call(attempt)

    def _listing(self, issue: Any, bundle: PublishBundle) -> list[Any]:
        """This gate's comments by this token's identity, oldest first."""
        head = marker(bundle.comment_title) + "\n"
        return self._call(lambda: sorted((c for c in issue.get_comments()
                                          if c.body and c.body.startswith(head) and self._ours(c)),
                                         key=lambda c: c.id))

    @staticmethod
    def _full_run_comment(body: str, bundle: PublishBundle) -> str | None:
        """Why this filtered or skipped run leaves the gate's comment alone (None: it may edit it): a full run
        wrote it for this same commit. On a new commit any run may (a skipped run is how a path filter passes)."""
        posted = posted_scope(body)
        if bundle.scope == Scope.FULL or posted is None or posted[0] != Scope.FULL:
            return None
        if not bundle.head_sha or posted[1] != bundle.head_sha:
            return None
        return (f"comment not updated: the gate's comment `{bundle.comment_title}` on pull request "
                f"#{bundle.pull_request} is a full run's for commit {bundle.head_sha[:7]}, and this {bundle.scope} "
                "run does not replace it (give it its own `comment_title`, or leave it unset for the derived one)")


def _replaces(new: str, old: str) -> bool:
    """Whether body `new` may replace body `old` in the survivor: not a filtered or skipped run's over a full run's
    for the same commit (the scope rule of `Comments._full_run_comment`)."""
    before, after = posted_scope(old), posted_scope(new)
    return not (before is not None and before[0] == Scope.FULL and after is not None and after[0] != Scope.FULL
                and before[1] is not None and before[1] == after[1])


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
