"""Publishing a judged run: job summary, step outputs, then the GitHub API (comment, check run).

`llm-gate run` publishes its own bundle; `llm-gate publish --report DIR` posts a bundle saved by a
run whose token could not write (a fork's pull request), from a trusted `workflow_run` workflow.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from gate import actions, io
from gate.config import PublishConfig
from gate.errors import ExitCode, InputError, Problem
from gate.github import GitHubPublisher, PublishOutcome
from gate.publishing import PublishBundle, target_from_event
from gate.report.annotations import Level
from gate.settings import Settings

SUMMARY_LIMIT = 1024 * 1024  # GitHub's job summary takes up to 1 MiB per step
MAX_WORKFLOW_ANNOTATIONS = 10  # GitHub shows at most 10 error annotations of a step


def publish(bundle: PublishBundle, markdown: str, report_path: Path, settings: Settings,
            config: PublishConfig, publisher: GitHubPublisher | None = None) -> PublishOutcome:
    github = settings.github
    if config.summary:
        fits = len(markdown.encode()) < SUMMARY_LIMIT
        actions.write_summary(github.step_summary, markdown if fits else bundle.summary)
    outcome = PublishOutcome()
    try:
        outcome = post(bundle, settings, config, publisher)  # the run's publisher: one retry budget
    finally:  # the step outputs carry the verdict, whatever posting ran into
        actions.write_outputs(github.output, {
            "verdict": bundle.verdict,
            "conclusion": bundle.conclusion,
            "report_path": str(report_path),
            "failed_checks": str(_count(bundle, Level.FAILURE)),
            "warned_checks": str(_count(bundle, Level.WARNING)),
            "comment_url": outcome.comment_url or "",
            "check_run_url": outcome.check_run_url or "",
        })
    return outcome


def _count(bundle: PublishBundle, level: Level) -> int:
    return sum(1 for a in bundle.annotations if a.level is level)


def _publisher(settings: Settings) -> GitHubPublisher | None:
    github = settings.github
    if not github.token or not github.repository:
        return None
    return GitHubPublisher(github.token, github.api_url, github.repository)


def post(bundle: PublishBundle, settings: Settings, config: PublishConfig,
         publisher: GitHubPublisher | None = None) -> PublishOutcome:
    """Comment and check run through the API; without a token or repository there is nothing to post to."""
    github = settings.github
    comment = settings.comment or config.comment
    check_run = settings.check_run if settings.check_run is not None else config.check_run
    publisher = publisher or _publisher(settings)
    if publisher is None:
        outcome = PublishOutcome()
        if github.in_actions:
            outcome.notes.append("no GitHub token: no PR comment or check run (pass `github_token`)")
    else:
        outcome = publisher.publish(bundle, comment, check_run)
    if github.in_actions and not outcome.check_run_url:
        # Without a check run, workflow commands still pin failures to their lines in the PR's diff.
        for annotation in list(bundle.annotations)[:MAX_WORKFLOW_ANNOTATIONS]:
            kind = "error" if annotation.level is Level.FAILURE else "warning"
            actions.issue(kind, annotation.message, file=annotation.path, line=annotation.line,
                          title=annotation.title)
    for note in outcome.notes:
        if github.in_actions:
            actions.issue("warning", note, title="llm-quality-gate: publishing")
        else:
            sys.stderr.write(f"llm-gate: publishing: {note}\n")
    if outcome.comment_url:
        sys.stdout.write(f"  comment {outcome.comment_action}: {outcome.comment_url}\n")
    if outcome.check_run_url:
        sys.stdout.write(f"  check run: {outcome.check_run_url}\n")
    return outcome


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
    publisher = _publisher(settings)
    if publisher is None:
        raise InputError("cannot publish", [Problem(field="github_token", expected="a token that may write to "
                                                    f"{settings.github.repository or 'the repository'}",
                                                    found="no token or no GITHUB_REPOSITORY",
                                                    fix="run this in a workflow with GITHUB_TOKEN or pass "
                                                    "github_token")])
    bundle = _trusted(bundle, settings, publisher)
    outcome = post(bundle, settings, PublishConfig(), publisher)
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
    return PublishBundle(
        gate=bundle.gate, verdict=bundle.verdict, conclusion=bundle.conclusion, title=bundle.title,
        summary=_no_mentions(bundle.summary), comment=_no_mentions(bundle.comment), annotations=bundle.annotations,
        repository=github.repository, pull_request=pull_request, head_sha=head_sha, run_url=bundle.run_url,
    )


def _no_mentions(text: str) -> str:
    return re.sub(r"@(?=[A-Za-z0-9])", "&#64;", text)
