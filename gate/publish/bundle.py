"""What gets published to GitHub, decided once per run and saved next to the report (pure).

`llm-gate run` writes `publish.json` into the report directory whether or not it can publish. A
workflow whose token is read-only (a pull request from a fork) uploads that directory as an
artifact, and a `workflow_run` workflow with a write token posts it with `llm-gate publish`, so
untrusted code never runs with write access.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gate.judge import CheckVerdict, GateVerdict, Verdict
from gate.report.annotations import Annotation
from gate.settings import FailOn

BUNDLE_SCHEMA = 1
COMMENT_MARKER = "<!-- llm-quality-gate:{name} -->"
FOOTER_MARKER = "<!-- llm-quality-gate:footer -->"


class Conclusion:
    SUCCESS = "success"
    FAILURE = "failure"
    NEUTRAL = "neutral"


def conclusion(verdict: Verdict, fail_on: FailOn) -> str:
    """The check run's conclusion of a verdict as it counts (`GateVerdict.counts_as`): skipped and an
    inconclusive gate under `inconclusive: neutral` are neutral."""
    if verdict in (Verdict.SKIPPED, Verdict.INCONCLUSIVE):
        return Conclusion.NEUTRAL
    if verdict is Verdict.FAIL or (verdict is Verdict.WARN and fail_on is FailOn.WARN):
        return Conclusion.FAILURE
    return Conclusion.SUCCESS


def check_title(verdict: GateVerdict) -> str:
    if verdict.verdict is Verdict.SKIPPED:
        return f"skipped: {verdict.skipped_reason}"
    counts = {v.value: sum(s.count(v) for s in verdict.suites) for v in CheckVerdict}
    total = sum(len(s.checks) for s in verdict.suites)
    parts = [f"{counts['fail']} of {total} checks failed"] if counts["fail"] else [f"{counts['pass']} of {total} "
                                                                                   "checks passed"]
    if counts["warn"]:
        parts.append(f"{counts['warn']} warned")
    for word in ("inconclusive", "waived", "unmeasured"):
        if counts[word]:
            parts.append(f"{counts[word]} {word}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Target:
    """Where results go on GitHub: the pull request (if any) and the commit the check run belongs to."""

    pull_request: int | None
    head_sha: str | None


def target_from_event(event_name: str | None, event: dict[str, Any] | None, sha: str | None) -> Target:
    """For pull requests the check run belongs on the PR's head commit, not the merge commit GITHUB_SHA names;
    for a merge queue (`merge_group`) on the queue's head commit, which the required check is read from."""
    event = event or {}
    pull = event.get("pull_request")
    if isinstance(pull, dict):
        head = pull.get("head") or {}
        return Target(_int(pull.get("number")), head.get("sha") or sha)
    group = event.get("merge_group")
    if event_name == "merge_group" and isinstance(group, dict):
        # A merge queue's candidate commit: it may hold several pull requests, so it names none (no comment)
        return Target(None, group.get("head_sha") or sha)
    if event_name == "workflow_run":
        run = event.get("workflow_run") or {}
        pulls = run.get("pull_requests") or []
        number = _int(pulls[0].get("number")) if pulls and isinstance(pulls[0], dict) else None
        return Target(number, run.get("head_sha") or sha)
    issue = event.get("issue")
    if event_name == "issue_comment" and isinstance(issue, dict) and "pull_request" in issue:
        return Target(_int(issue.get("number")), sha)
    return Target(None, sha)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class PublishBundle:
    gate: str
    verdict: str
    conclusion: str
    title: str
    summary: str  # the check-run summary: Markdown fitted to GitHub's limit
    comment: str  # the comment's content (marker and footer are added when posting)
    annotations: tuple[Annotation, ...] = ()
    repository: str | None = None
    pull_request: int | None = None
    head_sha: str | None = None
    run_url: str | None = None
    notes: tuple[str, ...] = field(default=())
    # The run's real counts of failed and warned checks: the annotations stop at MAX_ANNOTATIONS (None: a
    # publish.json from before these fields; then the annotations are counted)
    failed_checks: int | None = None
    warned_checks: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"schema": BUNDLE_SCHEMA, "gate": self.gate, "verdict": self.verdict, "conclusion": self.conclusion,
                "title": self.title, "summary": self.summary, "comment": self.comment,
                "annotations": [a.to_dict() for a in self.annotations], "repository": self.repository,
                "pull_request": self.pull_request, "head_sha": self.head_sha, "run_url": self.run_url,
                "failed_checks": self.failed_checks, "warned_checks": self.warned_checks}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PublishBundle:
        if data.get("schema") != BUNDLE_SCHEMA:
            raise ValueError(f"publish.json has schema {data.get('schema')!r}; this llm-gate reads {BUNDLE_SCHEMA}")
        return cls(gate=str(data["gate"]), verdict=str(data["verdict"]), conclusion=str(data["conclusion"]),
                   title=str(data["title"]), summary=str(data["summary"]), comment=str(data["comment"]),
                   annotations=tuple(Annotation.from_dict(a) for a in data.get("annotations", [])),
                   repository=data.get("repository"), pull_request=_int(data.get("pull_request")),
                   head_sha=data.get("head_sha"), run_url=data.get("run_url"),
                   failed_checks=_int(data.get("failed_checks")), warned_checks=_int(data.get("warned_checks")))


def marker(gate: str) -> str:
    """The hidden line that finds this gate's sticky comment; the name cannot end the HTML comment."""
    safe = re.sub(r"[^A-Za-z0-9 ._:/+=-]", "_", gate).replace("--", "-_")
    return COMMENT_MARKER.format(name=safe)


def comment_body(bundle: PublishBundle) -> str:
    footer = f"<sub>Updated for commit `{bundle.head_sha[:7]}`" if bundle.head_sha else "<sub>Updated"
    footer += f" · [workflow run]({bundle.run_url})</sub>" if bundle.run_url else "</sub>"
    return f"{marker(bundle.gate)}\n{bundle.comment.rstrip()}\n\n{FOOTER_MARKER}\n{footer}\n"


def comment_content(body: str) -> str:
    """A posted body without its footer: two bodies with the same content need no edit."""
    return body.split(FOOTER_MARKER, 1)[0].rstrip()
