"""The GitHub API, through PyGithub: the only package that imports it (tests/test_architecture.py checks).

`client` is the `GitHubPublisher` (sticky comment, check run or commit status; every request retried within one
budget), `contents` the files it reads and appends on branches (the history) and a pull request's changed files,
`retry` the pure decisions about when to try a failed request again. A new kind of request goes into `client` (or
a sibling module the client composes, like `contents`), always through the client's retried `_call`, with the
token scrubbed from whatever the server replies; PyGithub itself is imported only where a request is made.
"""

from gate.publish.github.client import GitHubPublisher, PublishError, PublishOutcome, publisher_for
from gate.publish.github.contents import HISTORY_ATTEMPTS, Contents
from gate.publish.github.retry import Failure, RetryBudget, RetryPolicy, http_failure

__all__ = ["HISTORY_ATTEMPTS", "Contents", "Failure", "GitHubPublisher", "PublishError", "PublishOutcome",
           "RetryBudget", "RetryPolicy", "http_failure", "publisher_for"]
