"""What the run knows of the pull request (or push) it gates: the event, the target of the report, the publisher
and the files the pull request changes, each read once and guarded (a failure is a visible warning, not a
silent "no pull request")."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.baselines import flow
from gate.config.settings import Settings
from gate.publish import bundle as publishing
from gate.publish.flow import push_target, run_target
from gate.publish.github.client import GitHubPublisher, publisher_for
from gate.steps.output import guarded, read_event


@dataclass(frozen=True)
class PullRequest:
    """What the run knows of the pull request (or push) it gates; all None outside a workflow."""

    event: dict[str, Any] | None
    target: publishing.Target
    publisher: GitHubPublisher | None  # None: --no-publish, so no API call at all
    changed_files: list[Path] | None  # None: unknown


def pull_request(settings: Settings, base_dir: Path) -> PullRequest:
    event = read_event(settings)
    target = publishing.target_from_event(settings.github.event_name, event, settings.github.sha)
    publisher = publisher_for(settings) if settings.publish else None
    target = guarded(settings, "finding the pushed commit's pull request",
                     lambda: push_target(target, settings.github.event_name, publisher), target)
    target = guarded(settings, "finding the workflow run's pull request",
                     lambda: run_target(target, settings.github.event_name, event, publisher), target)
    changed = guarded(settings, "reading the pull request's files",
                      lambda: flow.changed_files(settings, event, base_dir, publisher, target.pull_request), None)
    return PullRequest(event, target, publisher, changed)
