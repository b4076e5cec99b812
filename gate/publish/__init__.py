"""Publishing: everything of a run that leaves the machine (DESIGN.md §2).

A judged run becomes one `PublishBundle` (`bundle`, pure: verdict, conclusion, check-run title and summary, the
comment, annotations, and the pull request and commit they belong to), saved as publish.json beside the report.
`flow` sends it: the job summary and step outputs through `actions` (the Actions runtime: file appends and the
gate's own workflow commands), then the comment and check run through `github` (the only package that talks to
GitHub, with retries). `llm-gate publish` (`gate.cli.commands.publish`) posts a saved bundle through the same flow.
Something new that leaves the machine gets a module here; only `github/` may make network calls.
"""

from gate.publish import actions
from gate.publish.bundle import (
    BUNDLE_SCHEMA,
    COMMENT_MARKER,
    FOOTER_MARKER,
    Conclusion,
    PublishBundle,
    Target,
    check_title,
    comment_body,
    comment_content,
    conclusion,
    marker,
    target_from_event,
)
from gate.publish.flow import post, publish
from gate.publish.github import GitHubPublisher, PublishError, PublishOutcome, RetryPolicy, publisher_for

__all__ = [
    "BUNDLE_SCHEMA", "COMMENT_MARKER", "FOOTER_MARKER", "Conclusion", "GitHubPublisher", "PublishBundle",
    "PublishError", "PublishOutcome", "RetryPolicy", "Target", "actions", "check_title", "comment_body",
    "comment_content", "conclusion", "marker", "post", "publish", "publisher_for", "target_from_event",
]
