"""Who chose the check run's name, and what a refused name means for the run (SECURITY.md, "a check name chosen
by gate.yml"). The guard itself asks GitHub (`gate.publish.github.names`); this module decides when it applies
and turns its refusal into the run's located error.

The workflow's `check_name` (action input, `--check-name`) is trusted, as is gate.yml read from a checkout of the
base branch (`base_checkout`): that gate.yml is the base branch's own. Otherwise gate.yml, and so the name
(`publish.check_name`, or the gate's `name`), may come from the pull request under test.
"""

from __future__ import annotations

import os
from typing import Any

from gate import io
from gate.config import PublishConfig
from gate.config.settings import Settings
from gate.errors import ConfigError, Problem
from gate.publish.github.names import ChosenName

PIN_FIX = ("pin the gate's check name on its workflow step (`check_name:` input or --check-name: the workflow's "
           "choice, which a pull request cannot change), or give the gate a name no other check has")


def chosen_name(settings: Settings, event: dict[str, Any] | None) -> ChosenName | None:
    """What to check before posting under a name gate.yml chose; None when the workflow chose it."""
    if settings.check_name or getattr(settings, "base_checkout", None) is not None:
        return None
    return ChosenName(base_branch=_base_branch(event), gate_path=_repository_path(settings))


def refusal_error(reason: str, settings: Settings, config: PublishConfig) -> ConfigError:
    """The run's error for a check run not posted under a name gate.yml chose: gate.yml's line of that name."""
    loc = ("publish", "check_name") if config.check_name else ("name",)
    path = settings.config_path
    return ConfigError("the check run was not posted", [Problem(
        file=io.display_path(path), line=_line(path, loc), field=".".join(loc),
        expected="a check name no other check on the commit carries and no other required check has",
        found=reason, fix=PIN_FIX)])


def _base_branch(event: dict[str, Any] | None) -> str | None:
    """The branch the change targets, as the event says; None: unknown (the repository's default branch)."""
    event = event or {}
    pull = event.get("pull_request")
    if isinstance(pull, dict):
        return _str((pull.get("base") or {}).get("ref"))
    group = event.get("merge_group")
    if isinstance(group, dict):
        ref = _str(group.get("base_ref"))
        return ref.removeprefix("refs/heads/") if ref else None
    run = event.get("workflow_run")
    pulls = run.get("pull_requests") if isinstance(run, dict) else None
    if isinstance(pulls, list) and pulls and isinstance(pulls[0], dict):
        return _str((pulls[0].get("base") or {}).get("ref"))
    return None


def _repository_path(settings: Settings) -> str | None:
    """gate.yml's path in the repository (relative to the workspace); None when it lies outside."""
    workspace = settings.github.workspace
    path = str(settings.config_path)
    if workspace is not None:
        path = os.path.relpath(os.path.abspath(path), os.path.abspath(workspace))
    path = path.replace(os.sep, "/")
    return None if os.path.isabs(path) or path == ".." or path.startswith("../") else path


def _line(path: Any, loc: tuple[str, ...]) -> int | None:
    from gate.config.located import line_of, parse_yaml

    try:
        return line_of(parse_yaml(io.read_text(path, what="gate config"), str(path), "gate config")[1], loc)
    except Exception:  # changed or gone since it was loaded: the error stays, without a line
        return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
