"""Fit a report into GitHub's size limits by leaving out whole sections and rows, saying so.

Each limit is sized in the unit GitHub counts (`Limit`): a PR comment holds 65,536 characters, a check run's
`output.summary` and `output.text` 65,535 bytes of UTF-8 ("summary exceeds a maximum bytesize of 65535": an
emoji is 3 or 4 bytes, so a summary of 65,418 characters can be 67,616 bytes). Rather than cut text mid-table, the
report degrades by level — item details, then group rows, then per-model rows, then suite sections — and stops
as soon as it fits, filling the space it has at that level: group rows are cut to the most that fit (failing
first) while the per-model tables stay, and a report too long for every group row still carries each suite's
per-model verdicts. The reason for the verdict is never what goes (issue 20, item 10; issue 21, item 4): from
level 1 on the report carries one gate-level table of every failed, inconclusive, unmeasured and waived check,
and the per-model verdicts stay at every level. Only when even the summary with those two is too long are they
cut, to the most that fit (bisection): the checks table first down to `CHECKS_KEPT` rows by severity, then the
per-model rows (failing models first, "… and N more models"), then the checks table to its first row. Each cut
table names exactly what it left out, and the note at the top names the level. Only a report that does not fit
even then (thousands of suites) is truncated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

GITHUB_TEXT_LIMIT = 65_536  # characters of an issue comment's body ("Body is too long (maximum is 65536 characters)")
CHECK_RUN_TEXT_BYTES = 65_535  # bytes (UTF-8) of a check run's output.summary and output.text
FULL_DETAIL = 3
CHECKS_KEPT = 10  # rows of the "checks not passed" table kept before any per-model row is cut
LEFT_OUT = {
    2: "the item details",
    1: "the item details and the per-suite check and trend tables",
    0: "the item details, the per-group tables and the suite sections (each suite's per-model verdicts stay)",
}


@dataclass(frozen=True)
class Limit:
    """A size limit in the unit GitHub counts for that text: characters (a comment) or UTF-8 bytes (a check run's
    summary and text)."""

    size: int
    unit: str = "characters"  # "characters" | "bytes"

    def measure(self, text: str) -> int:
        return len(text.encode("utf-8")) if self.unit == "bytes" else len(text)

    def fits(self, text: str) -> bool:
        return self.measure(text) <= self.size

    def clip(self, text: str, size: int | None = None) -> str:
        """`text` cut to at most `size` (default: the limit) in this unit, never inside a character."""
        size = self.size if size is None else max(0, size)
        if self.unit != "bytes":
            return text[:size]
        return text.encode("utf-8")[:size].decode("utf-8", errors="ignore")

    def words(self) -> str:
        return f"{self.size:,}-{'byte' if self.unit == 'bytes' else 'character'}"


COMMENT = Limit(GITHUB_TEXT_LIMIT)
CHECK_RUN_TEXT = Limit(CHECK_RUN_TEXT_BYTES, "bytes")


def clip_bytes(text: str, size: int) -> str:
    """`text` cut to at most `size` UTF-8 bytes, never inside a character."""
    return Limit(size, "bytes").clip(text)


@dataclass(frozen=True)
class Cut:
    """One rendering's level of detail and the rows it keeps of each cuttable table (None: all of them)."""

    detail: int = FULL_DETAIL  # 3 everything, 2 without item details, 1 with group rows cut, 0 summary + models
    groups: int | None = None  # rows kept of each suite's per-group tables (detail 1), failing groups first
    models: int | None = None  # rows kept of each suite's per-model table (detail 0), failing models first
    rows: int | None = None  # rows kept of the gate-level "checks not passed" table (detail ≤ 1), by severity


@dataclass(frozen=True)
class Sizes:
    """How many rows the cuttable tables have at most: what bisection may search."""

    groups: int = 0  # the most group rows one suite's per-group tables show
    models: int = 0  # the most rows one suite's per-model table shows
    not_passed: int = 0  # the rows of the gate-level "checks not passed" table


# `render(cut, note)`: the report at one level and cut, `note` the line saying what was left out.
Render = Callable[[Cut, str | None], str]


@dataclass(frozen=True)
class Fitted:
    text: str
    detail: int  # the level that fitted (3 = everything)
    truncated: bool = False
    rows: int | None = None  # the rows of the "checks not passed" table kept when it had to be cut
    groups: int | None = None  # the group rows kept per suite when they had to be cut
    models: int | None = None  # the per-model rows kept per suite when they had to be cut


def cut_note(detail: int | Cut, full_report: str, limit: Limit = COMMENT) -> str | None:
    cut = detail if isinstance(detail, Cut) else Cut(detail)
    if cut.detail >= FULL_DETAIL:
        return None
    left_out = LEFT_OUT[cut.detail]
    if cut.detail == 1 and cut.groups is not None:
        left_out += (", and the per-group tables are cut to their first " + _rows(cut.groups) + " (failing first)"
                     if cut.groups else ", and the per-group tables")
    if cut.detail == 0 and cut.models is not None:
        left_out += f"; the per-model tables are cut to their first {_rows(cut.models)} (failing first)"
    return (f"Shortened to fit GitHub's {limit.words()} limit: {left_out} are left out. "
            f"The full report is {full_report}.")


def _rows(n: int) -> str:
    return f"{n:,} row{'s' if n != 1 else ''}"


def fit(render: Render, limit: int | Limit, full_report: str, measure: Sizes | Callable[[], Sizes]) -> Fitted:
    """The most detailed rendering no longer than `limit` (an int: characters); `measure` bounds what may be cut (a
    callable: asked only when the report does not fit without cutting rows)."""
    bound = limit if isinstance(limit, Limit) else Limit(limit)

    def attempt(cut: Cut) -> str | None:
        text = render(cut, cut_note(cut, full_report, bound))
        return text if bound.fits(text) else None

    for detail in (FULL_DETAIL, 2, 1):
        if (text := attempt(Cut(detail))) is not None:
            return Fitted(text, detail)
    sizes = measure if isinstance(measure, Sizes) else measure()
    if sizes.groups > 0 and (found := _most(attempt, Cut(1), "groups", 0, sizes.groups - 1)):
        return Fitted(found[1], 1, groups=found[0])
    if (text := attempt(Cut(0))) is not None:
        return Fitted(text, 0)
    models_cut = Cut(0)
    if sizes.not_passed > 1:
        if found := _most(attempt, Cut(0), "rows", min(sizes.not_passed - 1, CHECKS_KEPT), sizes.not_passed - 1):
            return Fitted(found[1], 0, rows=found[0])
        models_cut = Cut(0, rows=CHECKS_KEPT if sizes.not_passed > CHECKS_KEPT else None)
    if sizes.models > 1 and (found := _most(attempt, models_cut, "models", 1, sizes.models - 1)):
        return Fitted(found[1], 0, rows=models_cut.rows, models=found[0])
    last = Cut(0, models=1 if sizes.models > 1 else None)
    if sizes.not_passed > 1 and (found := _most(attempt, last, "rows", 1, min(sizes.not_passed, CHECKS_KEPT) - 1)):
        return Fitted(found[1], 0, rows=found[0], models=last.models)
    text = render(replace(last, rows=1 if sizes.not_passed > 1 else None), cut_note(last, full_report, bound))
    marker = f"\n\n… truncated to {bound.size:,} {bound.unit}; the full report is {full_report}.\n"
    return Fitted(bound.clip(text, bound.size - bound.measure(marker)) + marker, 0, truncated=True)


def _most(attempt: Callable[[Cut], str | None], base: Cut, field: str, low: int,
          high: int) -> tuple[int, str] | None:
    """The largest `field` in [low, high] whose rendering fits, with that rendering (None: not even `low`).
    Rendering grows with every row kept, so the sizes are monotonic and bisection finds the most."""
    if low > high or (best := attempt(replace(base, **{field: low}))) is None:
        return None
    while low < high:
        middle = (low + high + 1) // 2
        if (candidate := attempt(replace(base, **{field: middle}))) is not None:
            low, best = middle, candidate
        else:
            high = middle - 1
    return low, best
