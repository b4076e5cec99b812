"""What a refused GitHub request means, for the notes of `GitHubPublisher` and its `Checks` (one place, so the
comment, the check run and the status say it alike)."""

from __future__ import annotations

from gate.errors import PublishError

READ_ONLY = "Resource not accessible by integration"  # GitHub's 403 for an Actions token without the permission
READ_ONLY_HINT = ("the token cannot write here (a pull request from a fork gets a read-only token): upload the "
                  "report directory as an artifact and post it with `llm-gate publish` from a workflow_run "
                  "workflow (docs/github.md: Pull requests from forks)")
RATE_LIMITED_HINT = ("GitHub rate limited the token (too many requests in a short time, e.g. many jobs publishing "
                     "at once); the report files and job summary are complete: re-run the job later to publish")


def refusal_hint(exc: PublishError, what: str, permission: str) -> str:
    """What a refused request means, for its note ("" for other failures). GitHub answers a rate limit, a
    read-only token, a missing permission and a thing the token cannot see with 403 or 404 alike; each needs
    another remedy, so the note says which it was."""
    if exc.rate_limited:
        return f"; {RATE_LIMITED_HINT}"
    if exc.status == 404:
        return f"; not found ({what} does not exist or the token cannot see it)"
    if exc.status == 403 and READ_ONLY in str(exc):
        return f"; {READ_ONLY_HINT}"
    if exc.status == 403:
        return f"; forbidden: the token lacks `{permission}` permission"
    return ""
