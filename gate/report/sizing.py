"""Fit a report into GitHub's size limits by leaving out whole sections, saying so.

A PR comment and a check-run summary hold at most 65,536 characters. Rather than cut text
mid-table, the report is rendered at decreasing detail — item details, then per-group tables, then
the suite sections go — until it fits, and the report says what was left out and where the full
report is. Only a summary that is still too long (thousands of suites) is truncated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

GITHUB_TEXT_LIMIT = 65_536  # characters, for issue comments and check-run output.summary
FULL_DETAIL = 3
LEFT_OUT = {
    2: "the item details",
    1: "the item details and the per-group tables",
    0: "the item details, the per-group tables and the suite sections",
}


@dataclass(frozen=True)
class Fitted:
    text: str
    detail: int  # the level that fitted (3 = everything)
    truncated: bool = False


def cut_note(detail: int, full_report: str) -> str | None:
    if detail >= FULL_DETAIL:
        return None
    return (f"Shortened to fit GitHub's {GITHUB_TEXT_LIMIT:,}-character limit: {LEFT_OUT[detail]} are left out. "
            f"The full report is {full_report}.")


def fit(render: Callable[[int, str | None], str], limit: int, full_report: str) -> Fitted:
    """The most detailed rendering no longer than `limit`; `render(detail, cut_note)` renders one level."""
    for detail in range(FULL_DETAIL, -1, -1):
        text = render(detail, cut_note(detail, full_report))
        if len(text) <= limit:
            return Fitted(text, detail)
    marker = f"\n\n… truncated to {limit:,} characters; the full report is {full_report}.\n"
    return Fitted(text[: max(0, limit - len(marker))] + marker, 0, truncated=True)
