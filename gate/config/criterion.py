"""What makes a suite's `items:` criterion impossible, worded once for both places that find it: gate.yml's loader,
where the suite's entry alone tells its item values (`Kind.item_values`), and the run, on the scored records
(`gate.judge.passrates`: a rubric file's values, `k` against the items' draws)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.config.located import suggest


@dataclass(frozen=True)
class CriterionProblem:
    """What makes a suite's `items:` impossible, at `field` under it (e.g. "k", "criterion.metric")."""

    field: str
    expected: str
    found: str
    fix: str


def unknown_value(kind: str, metric: str, values: tuple[str, ...] | list[str]) -> CriterionProblem:
    """The criterion names `metric`, which is none of the suite's numeric item values `values`."""
    return CriterionProblem("criterion.metric", f"an item value of this {kind} suite: {', '.join(values[:30])}",
                            f"unknown item value {metric!r}",
                            suggest(metric, values))


def kinds_own(kind: str, taken: Sequence[str]) -> CriterionProblem:
    """The suite's items already carry k-of-n values `taken` (its kind measures pass rates itself)."""
    return CriterionProblem("criterion", "a suite whose items do not already carry the k-of-n values",
                            f"items that already have {', '.join(taken)} (the {kind} kind's own)",
                            f"drop `items:`: the {kind} kind measures pass rates itself")
