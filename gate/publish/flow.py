"""Publishing a judged run: job summary, step outputs, then the GitHub API (comment, check run).

`llm-gate run` publishes its own bundle through `publish`; `llm-gate publish --report DIR`
(`gate.cli.commands.publish`) checks a bundle saved by a run whose token could not write (a fork's pull
request) against the trusted event and posts it through `post`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

import gate.publish.actions as actions
from gate import io
from gate.config import PublishConfig
from gate.config.settings import Settings
from gate.publish.bundle import PublishBundle, Target
from gate.publish.check_name import chosen_name
from gate.publish.github.client import GitHubPublisher, PublishOutcome, publisher_for
from gate.report.annotations import MAX_ANNOTATIONS, Level

SUMMARY_LIMIT = 1024 * 1024  # GitHub's job summary takes up to 1 MiB per step
MAX_WORKFLOW_ANNOTATIONS = 10  # GitHub shows at most 10 annotations of each level (error, warning, notice) of a step


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
    """The run's count of failed (warned) checks; the annotations are capped, so they count only for an old bundle."""
    real = bundle.failed_checks if level is Level.FAILURE else bundle.warned_checks
    return real if real is not None else sum(1 for a in bundle.annotations if a.level is level)


@dataclass(frozen=True)
class WorkflowAnnotation:
    kind: str  # the workflow command: error | warning | notice
    message: str
    file: str | None = None
    line: int | None = None
    title: str | None = None


_KINDS = {Level.FAILURE: ("error", "failed check"), Level.WARNING: ("warning", "warned check"),
          Level.NOTICE: ("notice", "inconclusive check")}


def workflow_annotations(bundle: PublishBundle) -> list[WorkflowAnnotation]:
    """The annotations as workflow commands, for a run without a check run (a commit status stands in for it).

    GitHub shows at most MAX_WORKFLOW_ANNOTATIONS of each level for a step and drops the rest without a word, so
    a level with more shows one fewer and says, at that level, exactly how many more checks it does not annotate:
    the run's real count where the bundle has it, since the bundle's annotations stop at MAX_ANNOTATIONS."""
    capped = len(bundle.annotations) >= MAX_ANNOTATIONS  # a level may have lost annotations, or all of them
    found: list[WorkflowAnnotation] = []
    for level, (kind, noun) in _KINDS.items():
        annotations = [a for a in bundle.annotations if a.level is level]
        real = {Level.FAILURE: bundle.failed_checks, Level.WARNING: bundle.warned_checks}.get(level)
        total = max(len(annotations), real or 0)
        shown = annotations if len(annotations) <= MAX_WORKFLOW_ANNOTATIONS else \
            annotations[:MAX_WORKFLOW_ANNOTATIONS - 1]
        found += [WorkflowAnnotation(kind, a.message, a.path, a.line, a.title) for a in shown]
        if len(shown) < len(annotations) or (capped and total > len(annotations)):
            count = total - len(shown)
            left = f"{count}{' more' if shown else ''} {noun}{'s' if count != 1 else ''}"
            found.append(WorkflowAnnotation(
                kind, f"{left} {'are' if count != 1 else 'is'} not annotated here (GitHub shows "
                      f"{MAX_WORKFLOW_ANNOTATIONS} of each level for a step): see the job summary or report.md",
                title=f"llm-quality-gate: {left}"))
    return found


def post(bundle: PublishBundle, settings: Settings, config: PublishConfig,
         publisher: GitHubPublisher | None = None) -> PublishOutcome:
    """Comment and check run through the API; without a token or repository there is nothing to post to."""
    github = settings.github
    comment = settings.comment or config.comment
    when = settings.comment_mode or config.comment_mode
    check_run = settings.check_run if settings.check_run is not None else config.check_run
    publisher = publisher or publisher_for(settings)
    if publisher is None:
        outcome = PublishOutcome()
        if github.in_actions:
            outcome.notes.append("no GitHub token: no PR comment or check run (pass `github_token`)")
    else:
        event = io.read_json_quiet(github.event_path) if github.event_path and bundle.head_sha else None
        outcome = publisher.publish(bundle, comment, check_run, when,
                                    chosen_name(settings, event if isinstance(event, dict) else None))
    if github.in_actions and not outcome.check_run_url:
        # Without a check run, workflow commands still pin failures to their lines in the PR's diff.
        for command in workflow_annotations(bundle):
            actions.issue(command.kind, command.message, file=command.file, line=command.line, title=command.title)
    if outcome.refused_name:  # a name gate.yml chose that is another check's: the step fails (gate.run)
        message = f"no check run posted under `{bundle.check_name}`: {outcome.refused_name}"
        if github.in_actions:
            actions.issue("error", message, title="llm-quality-gate: check name refused")
        else:
            sys.stderr.write(f"llm-gate: publishing: {message}\n")
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



def push_target(target: Target, event_name: str | None, publisher: GitHubPublisher | None) -> Target:
    """A push build's pull request: GitHub's one open pull request of this repository whose head is the pushed
    commit (`GitHubPublisher.pull_request_of_push`), so a workflow on `push` comments like one on `pull_request`.
    Asked only when publishing (a publisher) and the event named no pull request; several: no comment, a note."""
    if publisher is None or event_name != "push" or target.pull_request is not None or not target.head_sha:
        return target
    number, note = publisher.pull_request_of_push(target.head_sha)
    return replace(target, pull_request=number, note=note)


def run_target(target: Target, event_name: str | None, event: dict | None,
               publisher: GitHubPublisher | None) -> Target:
    """The pull request a `workflow_run` job gates. GitHub names it in the event for a pull request of this
    repository; for a fork's it does not, and the one OPEN pull request whose head is the run's head commit, from
    the run's head repository and branch, is asked of GitHub (`GitHubPublisher.pull_request_of_head`) — never of
    the run's artifact."""
    if publisher is None or event_name != "workflow_run" or target.pull_request is not None or not target.head_sha:
        return target
    run = (event or {}).get("workflow_run") or {}
    if run.get("event") not in ("pull_request", "pull_request_target"):
        return target
    repo = (run.get("head_repository") or {}).get("full_name")
    branch = run.get("head_branch")
    if not isinstance(repo, str) or not isinstance(branch, str):
        return target
    number, note = publisher.pull_request_of_head(target.head_sha, repo, branch)
    return replace(target, pull_request=number, note=note)
