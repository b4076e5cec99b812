"""What gets published to GitHub, decided once per run and saved next to the report (pure).

`llm-gate run` writes `publish.json` into the report directory whether or not it can publish. A
workflow whose token is read-only (a pull request from a fork) uploads that directory as an
artifact, and a `workflow_run` workflow with a write token posts it with `llm-gate publish`, so
untrusted code never runs with write access.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gate.config import CommentWhen
from gate.config.settings import FailOn
from gate.judge import CheckVerdict, GateVerdict, Verdict
from gate.report.annotations import Annotation
from gate.report.filtered import filter_label, filtered_name
from gate.report.formatting import WORDS, advisory_note, verdict_words, waivers_applied

BUNDLE_SCHEMA = 1
COMMENT_MARKER = "<!-- llm-quality-gate:{name} -->"
FOOTER_MARKER = "<!-- llm-quality-gate:footer -->"
# What a run covered, as the check run's `external_id` and the comment's second (hidden) line: a filtered or
# skipped run never replaces what a full run posted for the same commit
SCOPE_ID = "llm-quality-gate:v1:{scope}"


class Scope:
    FULL = "full"  # every suite, every configured model
    FILTERED = "filtered"  # a --suite / --model filter that selected something
    SKIPPED = "skipped"  # nothing ran (a filter that matched no suite: a path filter's pass)


SCOPES = (Scope.FULL, Scope.FILTERED, Scope.SKIPPED)
# The comment's hidden scope line (`scope_line`) as `posted_scope` reads it back: its alternation is built from
# SCOPES, so a scope added there is one the parser knows
_BEFORE, _AFTER = SCOPE_ID.split("{scope}")
SCOPE_LINE = re.compile(f"<!-- {re.escape(_BEFORE)}({'|'.join(map(re.escape, SCOPES))}){re.escape(_AFTER)}"
                        r"(?: ([0-9a-f]{7,64}))? -->")


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


def check_title(verdict: GateVerdict, suites: Sequence[str] = (), models: Sequence[str] = ()) -> str:
    """The check run's title; a filtered run's (`suites`, `models`) names its filter first, as its heading does."""
    if verdict.verdict is Verdict.SKIPPED:
        return f"skipped: {verdict.skipped_reason}"
    label = filter_label(suites, models)
    return f"filtered run ({label}): {_counts_title(verdict)}" if label else _counts_title(verdict)


def _counts_title(verdict: GateVerdict) -> str:
    counts = {v.value: sum(s.count(v) for s in verdict.suites) for v in CheckVerdict}
    total = sum(len(s.required) for s in verdict.suites)  # the advisory ones are counted apart
    parts = [f"{counts['fail']} of {total} checks failed"] if counts["fail"] else [f"{counts['pass']} of {total} "
                                                                                   "checks passed"]
    if counts["warn"]:
        parts.append(f"{counts['warn']} warned")
    for word in ("inconclusive", "waived", "unmeasured"):
        if counts[word]:
            parts.append(f"{counts[word]} {word}")
    waived = verdict_words(verdict.verdict, waivers_applied(verdict.suites))
    # a gate that passed because of waivers says so first: never a plain "passed" (issue 31)
    title = f"{waived}: {', '.join(parts)}" if waived != WORDS[verdict.verdict] else ", ".join(parts)
    # counted apart: advisory checks never block ("3 of 3 checks passed; 2 advisory checks failed")
    return f"{title}; {advisory}" if (advisory := advisory_note(verdict.suites)) else title


def run_scope(suites: Sequence[str], models: Sequence[str], skipped: bool) -> str:
    if skipped:
        return Scope.SKIPPED
    return Scope.FILTERED if suites or models else Scope.FULL


@dataclass(frozen=True)
class PublishIdentity:
    """What a run posts under and what it covered: the check run's name, the comment's title and the run's scope
    (Scope), which decides what the run may replace on GitHub."""

    check_name: str
    comment_title: str
    scope: str


def derived_name(gate: str, suites: Sequence[str], models: Sequence[str], skipped: bool = False) -> str:
    """The default check-run name and comment title: the gate's name, with the filter of a filtered run, so that
    matrix jobs (`--suite a`, `--suite b`) post side by side and an unfiltered run keeps the name that branch
    protection requires. A skipped run keeps the gate's name: on a new commit its neutral check is how a path
    filter lets the required check pass. Sorted and deduplicated, so the same filter always gets the same name
    (`gate.report.filtered`, which the report's heading shares)."""
    return gate if skipped else filtered_name(gate, suites, models)


def significant_change(verdict: GateVerdict) -> bool:
    """Whether a check found a significant change against the baseline, either way: a change significant on the
    bad side (even one within its bound or waived), or a tested change whose one-sided p on the good side
    (1 − the bad side's p) is within the gate's alpha: an improvement."""
    for suite in verdict.suites:
        for check in suite.checks:
            change = check.change
            if change is None or not change.tested:
                continue
            if change.significant:
                return True
            if change.p_value is not None and change.alpha is not None and 1 - change.p_value <= change.alpha:
                return True
    return False


# The verdicts that are not a clean result: `comment_mode: failures` comments on these, `changes` on these too
NOT_CLEAN = frozenset(v.value for v in (Verdict.FAIL, Verdict.WARN, Verdict.INCONCLUSIVE))


def comment_wanted(bundle: PublishBundle, when: CommentWhen) -> bool:
    """Whether `comment_mode` asks for a NEW comment for this run (an existing gate comment is updated anyway)."""
    if when is CommentWhen.OFF:
        return False
    not_clean = bundle.verdict in NOT_CLEAN
    if when is CommentWhen.FAILURES:
        return not_clean
    if when is CommentWhen.CHANGES:
        return not_clean or bundle.changed is not False
    return True


@dataclass(frozen=True)
class Target:
    """Where results go on GitHub: the pull request (if any) and the commit the check run belongs to."""

    pull_request: int | None
    head_sha: str | None
    note: str | None = None  # what finding the pull request ran into (several open ones for a pushed commit)


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
    check_name: str = ""  # "": the gate's name (a publish.json from before these fields)
    comment_title: str = ""  # "": the gate's name
    scope: str = Scope.FULL  # what the run covered (Scope): decides what it may replace
    changed: bool | None = None  # a significant change against the baseline (None: unknown, an old bundle)
    # Which job of a matrix this is: the run's filter as its derived name says it ("" : unknown). Jobs of one
    # workflow run that share a pinned check_name are told apart by it (`gate.publish.check_text.legs_line`)
    leg: str = ""

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise ValueError(f"scope {self.scope!r} is not one of {', '.join(SCOPES)}")
        object.__setattr__(self, "check_name", self.check_name or self.gate)
        object.__setattr__(self, "comment_title", self.comment_title or self.gate)

    def to_dict(self) -> dict[str, Any]:
        return {"schema": BUNDLE_SCHEMA, "gate": self.gate, "verdict": self.verdict, "conclusion": self.conclusion,
                "title": self.title, "summary": self.summary, "comment": self.comment,
                "annotations": [a.to_dict() for a in self.annotations], "repository": self.repository,
                "pull_request": self.pull_request, "head_sha": self.head_sha, "run_url": self.run_url,
                "failed_checks": self.failed_checks, "warned_checks": self.warned_checks,
                "check_name": self.check_name, "comment_title": self.comment_title, "scope": self.scope,
                "changed": self.changed, "leg": self.leg}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PublishBundle:
        if data.get("schema") != BUNDLE_SCHEMA:
            raise ValueError(f"publish.json has schema {data.get('schema')!r}; this llm-gate reads {BUNDLE_SCHEMA}")
        return cls(gate=str(data["gate"]), verdict=str(data["verdict"]), conclusion=str(data["conclusion"]),
                   title=str(data["title"]), summary=str(data["summary"]), comment=str(data["comment"]),
                   annotations=tuple(Annotation.from_dict(a) for a in data.get("annotations", [])),
                   repository=data.get("repository"), pull_request=_int(data.get("pull_request")),
                   head_sha=data.get("head_sha"), run_url=data.get("run_url"),
                   failed_checks=_int(data.get("failed_checks")), warned_checks=_int(data.get("warned_checks")),
                   check_name=str(data.get("check_name") or ""), comment_title=str(data.get("comment_title") or ""),
                   scope=str(data.get("scope") or Scope.FULL),
                   changed=data.get("changed") if isinstance(data.get("changed"), bool) else None,
                   leg=str(data.get("leg") or ""))


def marker(gate: str) -> str:
    """The hidden line that finds this gate's sticky comment; the name cannot end the HTML comment."""
    safe = re.sub(r"[^A-Za-z0-9 ._:/+=-]", "_", gate).replace("--", "-_")
    return COMMENT_MARKER.format(name=safe)


def scope_line(bundle: PublishBundle) -> str:
    """The comment's hidden second line: the run's scope and commit (part of the compared content, so that the
    comment always records the last run that wrote it)."""
    sha = bundle.head_sha if bundle.head_sha and re.fullmatch(r"[0-9a-f]{7,64}", bundle.head_sha) else None
    return f"<!-- {SCOPE_ID.format(scope=bundle.scope)}{f' {sha}' if sha else ''} -->"


def posted_scope(body: str) -> tuple[str, str | None] | None:
    """(scope, commit) of the run that wrote a gate comment; None for a comment from before scopes."""
    lines = body.split("\n", 2)
    found = SCOPE_LINE.fullmatch(lines[1].strip()) if len(lines) > 1 else None
    return (found.group(1), found.group(2)) if found else None


def comment_body(bundle: PublishBundle) -> str:
    footer = f"<sub>Updated for commit `{bundle.head_sha[:7]}`" if bundle.head_sha else "<sub>Updated"
    footer += f" · [workflow run]({bundle.run_url})</sub>" if bundle.run_url else "</sub>"
    return (f"{marker(bundle.comment_title)}\n{scope_line(bundle)}\n{bundle.comment.rstrip()}\n\n{FOOTER_MARKER}\n"
            f"{footer}\n")


def comment_content(body: str) -> str:
    """A posted body without its footer: two bodies with the same content need no edit."""
    return body.split(FOOTER_MARKER, 1)[0].rstrip()
