"""The check run (or the commit status standing in for it) of `gate.publish.github.client.GitHubPublisher`.

A check run carries the scope of the run that made it in `external_id` (`gate.publish.bundle.SCOPE_ID`). Branch
protection reads the latest check run of a name on a commit, so a filtered or skipped run first lists the commit's
check runs of its name and posts nothing where the latest of the gate's own covered everything: a matrix job with
`--suite rubric`, or a path filter's skipped run, never turns a full run's failure into a pass. A full run always
posts. The status fallback keeps the same rule, with the scope in the status's description.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import gate.publish.check_text as text
from gate.errors import PublishError
from gate.publish.bundle import SCOPE_ID, PublishBundle, Scope
from gate.publish.github.hints import refusal_hint

ANNOTATIONS_PER_REQUEST = 50  # GitHub's limit per check-run create/update
STATUS_DESCRIPTION_LIMIT = 140
OURS = "llm-quality-gate:"  # how every version of SCOPE_ID starts: a check run of the gate's own
PARTIAL_STATUS = re.compile(r"\w+ \((filtered|skipped)\): ")  # a status a filtered or skipped run posted
OUR_STATUS = re.compile(r"(pass|warn|fail|skipped|inconclusive)( \((filtered|skipped)\))?: ")  # any the gate posted


def status_state(bundle: PublishBundle) -> str:
    """The commit status standing in for the check run: neutral (skipped, inconclusive as neutral) passes, as a
    neutral check run does for branch protection."""
    return {"success": "success", "failure": "failure"}.get(bundle.conclusion, "success")


def _shorter_may_help(exc: PublishError) -> bool:
    """Whether GitHub refused the text rather than the request: a 4xx other than permissions, not found or a rate
    limit (a 422 "summary exceeds a maximum bytesize", a 400 or 413 for a body too large)."""
    return exc.status is not None and 400 <= exc.status < 500 and exc.status not in (401, 403, 404) \
        and not exc.rate_limited


class Checks:
    """Posts one bundle's check run, or its commit status; one per GitHubPublisher, sharing its repository and
    its retried `call`."""

    def __init__(self, repo: Any, call: Callable[[Callable[[], Any]], Any]):
        self._repo = repo
        self._call = call
        # (commit, name) -> the commit's check runs of that name: publish's name guard (`foreign`) and the scope
        # rule (`_full_run_check`) both read them, and an untrusted filtered bundle needs both; one GET serves both
        self._listed: dict[tuple[str, str], list[Any]] = {}

    def publish(self, bundle: PublishBundle, head_sha: str, notes: list[str]) -> tuple[str | None, bool]:
        """(the check run's URL, whether a commit status stood in for it); what went wrong is added to `notes`.
        A write GitHub refuses is tried again with a shorter summary, then with one line and no annotations, then
        posted as a commit status: a commit never stays without the gate's verdict."""
        from github.GithubObject import NotSet  # PyGithub's "not sent"; imported with the client, lazily

        if bundle.scope != Scope.FULL and (refusal := self._full_run_check(bundle, head_sha)):
            notes.append(refusal)
            return None, False
        bundle, above, below = self._shared(bundle, head_sha, notes)
        annotations = [a.to_check_run() for a in bundle.annotations]
        first, rest = annotations[:ANNOTATIONS_PER_REQUEST], annotations[ANNOTATIONS_PER_REQUEST:]
        if line := text.annotations_line(bundle):
            above = [line, *above]
        tries = [("the full summary", text.summary(bundle, above), True),
                 ("a shortened summary", text.summary(bundle, above, text.short_summary(bundle)), True),
                 ("a one-line summary and no annotations", text.summary(bundle, above, text.one_line(bundle)), False)]
        self._listed.pop((head_sha, bundle.check_name), None)  # the listing no longer says what is on the commit
        refused: list[PublishError] = []
        for label, summary, annotated in tries:
            output: dict[str, str | list[dict[str, str | int]]] = {
                "title": text.title(bundle.title), "summary": summary, "annotations": first if annotated else []}
            if below:  # the hidden line of a matrix's jobs: in `text`, which shows it as nothing
                output["text"] = below
            try:
                run = self._call(partial(
                    self._repo.create_check_run, name=bundle.check_name, head_sha=head_sha, status="completed",
                    conclusion=bundle.conclusion, output=output, details_url=bundle.run_url or NotSet,
                    external_id=SCOPE_ID.format(scope=bundle.scope)))
            except PublishError as exc:
                refused.append(exc)
                if not _shorter_may_help(exc):
                    break
                continue
            if refused:
                notes.append(f"GitHub refused the check run ({refused[0]}); posted it with {label}")
            self._annotate(run, output, rest if annotated else [], notes)
            return getattr(run, "html_url", None), False
        return None, self._fall_back(bundle, head_sha, refused[-1], notes)

    def _annotate(self, run: Any, output: dict, rest: list, notes: list[str]) -> None:
        """The annotations past the first 50, 50 a request (GitHub appends each request's to the run's)."""
        for start in range(0, len(rest), ANNOTATIONS_PER_REQUEST):
            batch = rest[start:start + ANNOTATIONS_PER_REQUEST]
            try:
                self._call(partial(run.edit, output={**output, "annotations": batch}))
            except PublishError as exc:
                notes.append(f"could not add annotations {start + 51}–{start + 50 + len(batch)}: {exc}")
                break

    def _shared(self, bundle: PublishBundle, head_sha: str, notes: list[str]) -> tuple[PublishBundle, list[str], str]:
        """(the bundle as this job posts it, the lines above its summary, the hidden line below). Jobs of one
        workflow run (a matrix) that post under one check name share the check: a later job never makes it better,
        and its summary names every job and its own conclusion (`check_text.legs_line`)."""
        if not bundle.run_url:
            return bundle, [], ""
        leg = bundle.leg or bundle.check_name
        try:
            ours = [r for r in self._check_runs(bundle.check_name, head_sha)
                    if str(r.external_id or "").startswith(OURS) and r.details_url == bundle.run_url]
        except PublishError as exc:
            notes.append(f"could not read the check runs of commit {head_sha[:7]} to tell whether another job of this "
                         f"workflow run posted `{bundle.check_name}` ({exc}): posted this job's verdict alone")
            ours = []
        latest = max(ours, key=lambda r: r.id, default=None)
        legs = text.posted_legs(getattr(latest.output, "text", None), bundle.run_url) if latest else None
        legs = dict(legs or {})
        for name, value in legs.items():  # the latest check run is that job's: its URL
            if value[1] is None and latest is not None:
                legs[name] = [value[0], latest.html_url]
        legs.pop(leg, None)  # a re-run job replaces its own earlier verdict, not the others'
        legs[leg] = [bundle.conclusion, None]
        below = text.legs_line(bundle.run_url, legs)
        if len(legs) == 1:
            return bundle, [], below
        merged = text.worst([str(v[0]) for v in legs.values()])
        if merged != bundle.conclusion:
            bundle = replace(bundle, conclusion=merged, title=f"{merged} (an earlier job of this run); this job: "
                                                               f"{bundle.title}")
        return bundle, text.legs_lines(legs, leg), below

    def foreign(self, name: str, head_sha: str) -> list[str]:
        """What on `head_sha` already carries the name `name` and is not the gate's own: check runs of other apps
        or workflow jobs, and commit statuses of other tools (as "check run <url>" / "commit status <state>").
        An artifact from a fork names its own check run; posted under the name of another required check, its
        verdict would stand in for that check's. Raises PublishError when GitHub cannot say."""
        check_runs = [f"check run {r.html_url or r.id}" for r in self._check_runs(name, head_sha)
                      if not str(r.external_id or "").startswith(OURS)]

        def statuses() -> list[str]:
            return [f"commit status ({s.state}: {s.description or ''})"[:120]
                    for s in self._statuses(head_sha)
                    if s.context == name and not OUR_STATUS.match(s.description or "")]
        return list(dict.fromkeys(check_runs + self._call(statuses)))

    def _statuses(self, head_sha: str) -> Any:
        """The commit's statuses, newest first, through the documented `GET /repos/{o}/{r}/commits/{ref}/statuses`
        (PyGithub's `Commit.get_statuses` asks the legacy `/repos/{o}/{r}/statuses/{sha}`, not in GitHub's REST
        description)."""
        from github.CommitStatus import CommitStatus
        from github.PaginatedList import PaginatedList

        return PaginatedList(CommitStatus, self._repo._requester, f"{self._repo.url}/commits/{head_sha}/statuses",
                             None)

    def _check_runs(self, name: str, head_sha: str) -> list[Any]:
        """The check runs named `name` on `head_sha`, listed once (until this object posts one); PublishError
        when GitHub cannot say (not remembered: a later rule asks again)."""
        if (head_sha, name) not in self._listed:
            self._listed[(head_sha, name)] = self._call(lambda: [
                r for r in self._repo.get_commit(head_sha).get_check_runs(check_name=name) if r.name == name])
        return self._listed[(head_sha, name)]

    def _full_run_check(self, bundle: PublishBundle, head_sha: str) -> str | None:
        """Why this filtered or skipped run must not post its check run (None: it may): the latest of the gate's
        check runs named alike on this commit is a full run's, or the check runs cannot be read to tell."""
        name = bundle.check_name
        try:
            runs = [r for r in self._check_runs(name, head_sha) if str(r.external_id or "").startswith(OURS)]
        except PublishError as exc:
            return (f"check run not posted: could not read the check runs of commit {head_sha[:7]} to tell whether "
                    f"a full run posted `{name}` ({exc}), and a {bundle.scope} run never replaces one"
                    + refusal_hint(exc, f"commit {head_sha[:7]}", "checks: read"))
        latest = max(runs, key=lambda r: r.id, default=None)
        if latest is None or latest.external_id != SCOPE_ID.format(scope=Scope.FULL):
            return None
        return (f"check run not posted: the latest `{name}` check run on commit {head_sha[:7]} is a full run's "
                f"({latest.conclusion}, {latest.html_url}), and this {bundle.scope} run does not replace it (give it "
                "its own `check_name`, or leave check_name unset for the derived one)")

    def _fall_back(self, bundle: PublishBundle, head_sha: str, exc: PublishError, notes: list[str]) -> bool:
        """A check run GitHub would not take (a token that may not create check runs, a text it refused, a GitHub
        that kept failing) is posted as a commit status instead; whether it was."""
        hint = refusal_hint(exc, f"commit {head_sha[:7]}", "checks: write")
        if bundle.scope != Scope.FULL and (refusal := self._full_run_status(bundle, head_sha)):
            notes.append(refusal)
            return False
        failure = self._publish_status(bundle, head_sha)
        if failure is None:  # said only once it is so
            if exc.status == 403 and not exc.rate_limited:
                notes.append(f"the token may not create check runs ({exc}); posted a commit status instead")
            else:
                notes.append(f"GitHub did not take the check run: {exc}{hint}; posted a commit status instead")
            return True
        notes.append(f"could not create the check run: {exc}{hint}")
        notes.append(f"could not post a commit status either: {failure}"
                     + refusal_hint(failure, f"commit {head_sha[:7]}", "statuses: write"))
        return False

    def _full_run_status(self, bundle: PublishBundle, head_sha: str) -> str | None:
        """As `_full_run_check`, for the commit status of the check run's name (statuses come newest first)."""
        name = bundle.check_name
        try:
            latest = self._call(lambda: next((s for s in self._statuses(head_sha) if s.context == name), None))
        except PublishError as exc:
            return f"commit status not posted: could not read the statuses of commit {head_sha[:7]} ({exc})"
        if latest is None or PARTIAL_STATUS.match(latest.description or ""):
            return None
        return (f"commit status not posted: `{name}` on commit {head_sha[:7]} is a full run's ({latest.state}), and "
                f"this {bundle.scope} run does not replace it")

    def _publish_status(self, bundle: PublishBundle, head_sha: str) -> PublishError | None:
        """Post the verdict as a commit status (the check run's stand-in); the failure, None when posted."""
        state = status_state(bundle)
        scope = "" if bundle.scope == Scope.FULL else f" ({bundle.scope})"
        description = f"{bundle.verdict}{scope}: {bundle.title}"[:STATUS_DESCRIPTION_LIMIT]
        try:
            commit = self._repo.get_commit(head_sha)
            self._call(lambda: commit.create_status(state=state, description=description, context=bundle.check_name,
                                                    **({"target_url": bundle.run_url} if bundle.run_url else {})))
        except PublishError as exc:
            return exc
        return None
