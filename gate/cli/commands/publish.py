"""`llm-gate publish` is gone: it posted the verdict a pull request's own run had saved (publish.json), and a fork
controls that run and its artifact, so an edited `"conclusion": "success"` was posted as the gate's (issue 31).

The trusted `workflow_run` job now runs the gate itself, with the base branch's code and gate, on the candidate
files the pull request's run uploaded (`llm-gate run --candidates-dir DIR`, the action input `candidates_dir`): every
word it posts comes from that computation. The command stays as a located error so that an old workflow fails
loudly with the fix instead of posting nothing.
"""

from __future__ import annotations

from gate.errors import ConfigError, ExitCode, Problem

RECIPE = "docs/github.md#the-trusted-recipe"


def publish_removed() -> ExitCode:
    """Exit 2 with the fix: the trusted recipe."""
    raise ConfigError("`llm-gate publish` was removed", [Problem(
        field="command", expected="`run` (the gate computes the verdict itself)",
        found="`publish`, which posted the verdict a pull request's run had saved: a fork's artifact could say "
              "'passed'",
        fix="in the workflow_run job, download the pull request run's candidate files (not its report) and run "
            f"the gate on them: `uses: llm-quality-gate/llm-quality-gate@v0` with `candidates_dir: <the download "
            f"directory>` and a pinned `check_name` (see {RECIPE})")])
