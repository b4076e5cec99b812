"""Regular expressions the kinds search model output with — a heuristic rubric's `matches` / `no_match`, a JSON
Schema's `pattern` (`gate.kinds.json_schema`) — in Python's `re` syntax as the `regex` package reads it (its
VERSION0, `re`'s own behaviour), compiled once, each search under a time limit. Pure.

The limit is what keeps model output from deciding the verdict through the clock: an expression whose backtracking
explodes on some text (`(a+)+$` on a long run of `a`) would hold a search for hours, and a search read as "not
found" when it gave up would let hostile text dodge a `no_match` penalty or pass a `pattern`. So a search that runs
past `SEARCH_SECONDS` is neither found nor not found: it raises `SlowSearch`, which the kind's scorer turns into an
input error naming the record and the expression (exit 2). `regex` is imported only where an expression is used.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from gate.errors import InputError, Problem
from gate.io.source import SourceRef

if TYPE_CHECKING:
    import regex

T = TypeVar("T")
R = TypeVar("R")

SEARCH_SECONDS = 1.0  # per search of one expression in one response; linear expressions take microseconds
SLOW_SEARCHES_SHOWN = 10  # each costs the time limit: past this many, a scorer stops looking for more


class SlowSearch(Exception):
    """A search ran past `seconds`: the expression backtracks without end on this text; `indicator` names what
    searched (a rubric's indicator, filled in by `gate.kinds.heuristic.rules`)."""

    def __init__(self, pattern: str, seconds: float, indicator: str = "") -> None:
        super().__init__(pattern, seconds, indicator)
        self.pattern, self.seconds, self.indicator = pattern, seconds, indicator


@functools.lru_cache(maxsize=4096)
def compiled(pattern: str) -> regex.Pattern[str]:
    import regex

    return regex.compile(pattern)


def invalid_because(pattern: str) -> str | None:
    """Why `pattern` is not a regular expression (the parser's words), or None when it is one."""
    import regex

    try:
        compiled(pattern)
    except regex.error as error:
        return str(error)
    return None


def found(pattern: str, text: str) -> bool:
    """Whether `pattern` occurs anywhere in `text` (`search`, not `match`); `SlowSearch` past the time limit."""
    try:
        return compiled(pattern).search(text, timeout=SEARCH_SECONDS) is not None
    except TimeoutError:
        raise SlowSearch(pattern, SEARCH_SECONDS) from None


def in_time(records: Iterable[T], score: Callable[[T], R], where: Callable[[T], SourceRef | None],
            field: str) -> list[R]:
    """`score` of every record, in order; `InputError` naming each record (up to `SLOW_SEARCHES_SHOWN`) on which an
    expression ran past its time limit, with the expression, what searched and the fix."""
    scored, slow = [], []
    for record in records:
        try:
            scored.append(score(record))
        except SlowSearch as search:
            place, by = where(record), f" (indicator {search.indicator!r})" if search.indicator else ""
            slow.append(Problem(
                file=place.file if place else None, line=place.line if place else None, field=field,
                expected=f"a {field} each regular expression searches within {search.seconds:g} s",
                found=f"{search.pattern!r}{by} still searching after {search.seconds:g} s: it backtracks without "
                      "end on this text",
                fix="make the expression linear: no nested repeats such as `(a+)+` or `(a|aa)*`; an atomic group "
                    "`(?>…)` or a possessive `a++` stops the backtracking"))
            if len(slow) == SLOW_SEARCHES_SHOWN:
                break
    if slow:
        raise InputError("a regular expression ran past its time limit", slow)
    return scored
