"""Fit a report into GitHub's size limits by leaving out whole sections, saying so.

A PR comment and a check-run summary hold at most 65,536 characters. Rather than cut text
mid-table, the report is rendered at decreasing detail — item details, then per-group and per-suite
tables, then the suite sections go — until it fits, and the report says what was left out and where
the full report is. The reason for the verdict is never what goes (issue 20, item 10): from level 1 on
the report carries one gate-level table of every failed, inconclusive, unmeasured and waived check, and
only when even the summary with that whole table is too long is the table cut to its first rows by
severity (the most that fit, found by bisection), with a line naming exactly how many of each were cut.
Only a report that does not fit even with one such row (thousands of suites) is truncated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

GITHUB_TEXT_LIMIT = 65_536  # characters, for issue comments and check-run output.summary
FULL_DETAIL = 3
LEFT_OUT = {
    2: "the item details",
    1: "the item details, the per-group tables and the per-suite check and trend tables",
    0: "the item details, the per-group tables and the suite sections",
}

# `render(detail, cut_note, rows)`: the report at one level, its "checks not passed" table cut to `rows`
# (None: all of it).
Render = Callable[[int, str | None, int | None], str]


@dataclass(frozen=True)
class Fitted:
    text: str
    detail: int  # the level that fitted (3 = everything)
    truncated: bool = False
    rows: int | None = None  # the rows of the "checks not passed" table kept when it had to be cut


def cut_note(detail: int, full_report: str) -> str | None:
    if detail >= FULL_DETAIL:
        return None
    return (f"Shortened to fit GitHub's {GITHUB_TEXT_LIMIT:,}-character limit: {LEFT_OUT[detail]} are left out. "
            f"The full report is {full_report}.")


def fit(render: Render, limit: int, full_report: str, not_passed: int = 0) -> Fitted:
    """The most detailed rendering no longer than `limit`; `not_passed` is the number of rows the gate-level
    "checks not passed" table has (what may be cut, last, to fit)."""
    for detail in range(FULL_DETAIL, -1, -1):
        text = render(detail, cut_note(detail, full_report), None)
        if len(text) <= limit:
            return Fitted(text, detail)
    note = cut_note(0, full_report)
    if not_passed > 1:
        low, high = 1, not_passed - 1  # the table with `low` rows is tried first; `high`: the most worth trying
        best = render(0, note, low)
        if len(best) <= limit:
            while low < high:
                middle = (low + high + 1) // 2
                candidate = render(0, note, middle)
                if len(candidate) <= limit:
                    low, best = middle, candidate
                else:
                    high = middle - 1
            return Fitted(best, 0, rows=low)
        text = best
    marker = f"\n\n… truncated to {limit:,} characters; the full report is {full_report}.\n"
    return Fitted(text[: max(0, limit - len(marker))] + marker, 0, truncated=True)
