"""`llm-gate publish --report DIR`: post a bundle saved by a run whose token could not write (a fork's pull
request), from a trusted `workflow_run` workflow. The artifact is untrusted: its commit and pull request are
checked against the event before `gate.publish.flow.publish` sends it: the flow `llm-gate run` uses, so the
step outputs and the job summary are the same as a run's that published itself.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from gate import io
from gate.config import PublishConfig
from gate.errors import ExitCode, GateError, InputError, Problem, PublishError
from gate.publish.bundle import PublishBundle, target_from_event
from gate.publish.flow import publish
from gate.publish.github.client import GitHubPublisher, publisher_for
from gate.settings import Settings


def publish_report(report_dir: Path, settings: Settings) -> ExitCode:
    """`llm-gate publish`: post a saved bundle, trusting only what the workflow_run event says."""
    path = report_dir / "publish.json"
    data = io.read_json_quiet(path)
    try:
        bundle = PublishBundle.from_dict(data) if isinstance(data, dict) else None
    except (KeyError, ValueError, TypeError) as exc:
        raise InputError("cannot publish", [Problem(file=io.display_path(path), expected="a publish.json written "
                                                    "by `llm-gate run`", found=str(exc))]) from None
    if bundle is None:
        raise InputError("cannot publish", [Problem(file=io.display_path(path), expected="publish.json written by "
                                                    "`llm-gate run` into the report directory",
                                                    found="no readable file", fix="pass --report the directory "
                                                    "the gate wrote (the downloaded artifact)")])
    publisher = publisher_for(settings)
    if publisher is None:
        raise InputError("cannot publish", [Problem(field="github_token", expected="a token that may write to "
                                                    f"{settings.github.repository or 'the repository'}",
                                                    found="no token or no GITHUB_REPOSITORY",
                                                    fix="run this in a workflow with GITHUB_TOKEN or pass "
                                                    "github_token")])
    bundle = _trusted(bundle, settings, publisher)
    markdown_path = report_dir / "report.md"
    outcome = publish(bundle, _report_markdown(markdown_path, bundle), markdown_path, settings, PublishConfig(),
                      publisher)
    return ExitCode.RUNTIME_FAILURE if outcome.failed else ExitCode.PASSED


def _trusted(bundle: PublishBundle, settings: Settings, publisher: GitHubPublisher) -> PublishBundle:
    """The artifact came from an untrusted run: its commit and PR must match the trusted event.

    The repository is always this workflow's; in a workflow_run event the commit is the run's head
    commit; mentions are neutralised so an altered artifact cannot ping people through the bot.
    """
    github = settings.github
    event = io.read_json_quiet(github.event_path) if github.event_path else None
    target = target_from_event(github.event_name, event if isinstance(event, dict) else None, github.sha)
    head_sha, pull_request = bundle.head_sha, bundle.pull_request
    if github.event_name == "workflow_run":
        if target.head_sha and head_sha != target.head_sha:
            raise InputError("cannot publish", [Problem(
                file="publish.json", field="head_sha", expected=f"the workflow run's head commit {target.head_sha}",
                found=repr(head_sha), fix="publish the artifact of the run that triggered this workflow")])
        head_sha = target.head_sha
        if target.pull_request is not None:
            pull_request = target.pull_request
        elif pull_request is not None and publisher.head_sha_of(pull_request) != head_sha:
            # Fork runs carry no pull request in the event; the artifact's claim must check out.
            raise InputError("cannot publish", [Problem(
                file="publish.json", field="pull_request", expected=f"a pull request whose head is {head_sha}",
                found=f"#{pull_request}", fix="publish the artifact of the run that triggered this workflow")])
    if not settings.check_name and head_sha:
        _not_another_check(bundle.check_name, head_sha, publisher)
    # Only what the event (and the trusted workflow's check_name / comment_title, where it sets them) decides is
    # replaced: every other field (the real check counts, the run's scope among them) travels as is
    return replace(bundle, summary=_no_mentions(bundle.summary), comment=_no_mentions(bundle.comment),
                   repository=github.repository, pull_request=pull_request, head_sha=head_sha,
                   check_name=settings.check_name or bundle.check_name,
                   comment_title=settings.comment_title or bundle.comment_title)


def _not_another_check(name: str, head_sha: str, publisher: GitHubPublisher) -> None:
    """The artifact chose its check run's name (gate.yml's `name` or `check_name`, from the fork): under the name of
    another check on the commit, a required "CI / tests" say, its verdict would count as that check's. Unless the
    trusted workflow pins `check_name`, a name that something else on the commit carries is refused, as is one
    that cannot be checked."""
    try:
        others = publisher.foreign_checks(name, head_sha)
    except PublishError as exc:
        others = [f"(GitHub could not say: {exc})"]
    if others:
        raise InputError("cannot publish", [Problem(
            file="publish.json", field="check_name", expected="a name no other check on commit "
            f"{head_sha[:7]} carries", found=f"{name!r}, also the name of {others[0]}"
            + (f" and {len(others) - 1} more" if len(others) > 1 else ""),
            fix="set `check_name` on this publish step to the gate's check name (what the branch protection "
            "rule requires); the artifact comes from the pull request and may not choose another check's name")])


def _report_markdown(path: Path, bundle: PublishBundle) -> str:
    """The job summary `llm-gate run` writes: the report's Markdown; the bundle's check-run summary when the
    artifact has no readable report.md. A link is not followed: the artifact is untrusted, and a report.md
    pointing at a file of this (trusted) runner would put that file in the job summary."""
    if path.is_symlink():
        return bundle.summary
    try:
        return _no_mentions(io.read_text(path, "report.md"))
    except GateError:  # missing, a directory, unreadable or not UTF-8
        return bundle.summary


def _no_mentions(text: str) -> str:
    return re.sub(r"@(?=[A-Za-z0-9])", "&#64;", text)
