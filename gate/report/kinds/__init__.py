"""Each suite kind's report view, one module per kind named after it: `build(suite, worst_items)` turns the
judged suite into the escaped, formatted tables its template (`templates/suites/<kind>.md.j2` and friends) shows;
the drift module also holds the seed's own outputs (`quality_drift_report.json`, "Tests: X/Y passed"). A view
reads its kind's typed details, defined beside the scorer (`gate.scorers.<kind>.<Kind>Details` and
`<Kind>ItemDetails`, narrowed with `gate.results.details_as`). A new kind adds its module here and its entry in
`VIEWS`; a kind without one gets the generic view of `gate.report.views`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gate.judge import SuiteVerdict
from gate.report.kinds import drift, heuristic, rag, stability, stereotype

VIEWS: dict[str, Callable[[SuiteVerdict, int], dict[str, Any]]] = {
    "drift": drift.build, "stereotype": stereotype.build, "stability": stability.build,
    "heuristic": heuristic.build, "rag": rag.build}

__all__ = ["VIEWS", "drift", "heuristic", "rag", "stability", "stereotype"]
