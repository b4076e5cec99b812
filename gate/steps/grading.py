"""The run's LLM grader: what a kind's scorer calls to have items graded by the suite's judge endpoint, built once
the workflow's allow-list has accepted every suite that enables one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gate.config import GraderConfig, SuiteBase, grader_access
from gate.config.settings import Settings
from gate.kinds import get_kind
from gate.kinds.base import Grader


def llm_grader(settings: Settings, selected: Sequence[tuple[str, SuiteBase]], cache_dir: Path) -> Grader:
    """The LLM grader for the suites that enable one. Every enabled one of `selected` is checked first against what
    the workflow allows (`settings.grader`: endpoints, key variable, never a GitHub token), located in gate.yml."""
    access = settings.grader
    grader_access.check(selected, access, settings.config_path)

    def grade(kind: str, config: GraderConfig, items: Sequence[Any]) -> Any:
        client = get_kind(kind).grade
        if client is None:
            raise TypeError(f"the {kind} kind asked for an LLM grader but registers no client (Kind.grade)")
        return client(config, access.key(config), items, cache_dir / "judge" if config.cache else None)
    return grade
