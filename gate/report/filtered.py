"""How a filtered run names itself (pure): the `--suite` / `--model` filter (the action's `suites` / `models`
inputs) as one label, so that the report's heading, the comment's title and the check run's name and title say
alike that a run covered part of the gate (issue 32, item 5)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

NAME_LIST_LIMIT = 60  # characters of suite (model) names a label spells out
FILTERED_NOTE = "a filtered run, not the whole gate"


def filter_label(suites: Sequence[str], models: Sequence[str]) -> str:
    """"suites: a, b; models: m" ("" for an unfiltered run): sorted and deduplicated, so the same filter always
    gets the same label; a long list is counted and hashed, short yet one per filter."""
    return "; ".join(f"{what}: {_names(names)}" for what, names in (("suites", suites), ("models", models)) if names)


def filtered_name(gate: str, suites: Sequence[str], models: Sequence[str]) -> str:
    """The gate's name with the run's filter: `quality (suites: rubric)`; the gate's name when unfiltered."""
    label = filter_label(suites, models)
    return f"{gate} ({label})" if label else gate


def _names(names: Sequence[str]) -> str:
    unique = sorted(set(names))
    listed = ", ".join(unique)
    if len(listed) <= NAME_LIST_LIMIT:
        return listed
    return f"{len(unique)} selected, {hashlib.sha256(listed.encode()).hexdigest()[:8]}"
