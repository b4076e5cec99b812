"""Regular expressions the kinds search model output with — a heuristic rubric's `matches` / `no_match`, a JSON
Schema's `pattern` (`gate.kinds.json_schema`) — in Python's `re` syntax as the `regex` package reads it (its
VERSION0, `re`'s own behaviour), compiled once, each search under a time limit. Pure.

The limit is what keeps model output from deciding the verdict through the clock: an expression whose backtracking
explodes on some text (`(a+)+$` on a long run of `a`) would hold a search for hours, and a search read as "not
found" when it gave up would let hostile text dodge a `no_match` penalty or pass a `pattern`. So a search that runs
past its limit (`limit`) or out of backtracking memory is neither found nor not found: it raises `SlowSearch`,
which the kind's scorer turns into an input error naming the record and the expression (exit 2, `in_time`). `regex`
is imported only where an expression is used.
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

# A search's time: SEARCH_SECONDS per million characters of the text, at least SEARCH_SECONDS. A linear expression
# takes milliseconds on a million characters (a tempered token such as `^(?:(?!x).)*$`, the slowest common shape,
# ~0.15 s), so only backtracking without end reaches it, and a 16 MiB response gets its 16 s.
SEARCH_SECONDS = 1.0
SLOW_SEARCHES_SHOWN = 10  # each costs its time limit: past this many, a scorer stops looking for more


class SlowSearch(Exception):
    """A search gave up: it ran past `seconds` (the expression backtracks without end on this text) or, where
    `seconds` is None, out of the memory its backtracking may use; `indicator` names what searched (a rubric's
    indicator, filled in by `gate.kinds.heuristic.rules`)."""

    def __init__(self, pattern: str, seconds: float | None, indicator: str = "") -> None:
        super().__init__(pattern, seconds, indicator)
        self.pattern, self.seconds, self.indicator = pattern, seconds, indicator

    @property
    def what(self) -> str:
        if self.seconds is None:
            return "stopped: its backtracking on this text outgrew the memory a search may use"
        return f"still searching after {self.seconds:g} s: it backtracks without end on this text"


def limit(text: str) -> float:
    """The seconds one search of `text` may take."""
    return SEARCH_SECONDS * max(1.0, len(text) / 1_000_000)


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
    """Whether `pattern` occurs anywhere in `text` (`search`, not `match`); `SlowSearch` past the time limit or
    when the search exhausts the memory `regex` lets its backtracking use (it raises MemoryError, recoverably)."""
    seconds = limit(text)
    try:
        return compiled(pattern).search(text, timeout=seconds) is not None
    except TimeoutError:
        raise SlowSearch(pattern, seconds) from None
    except MemoryError:
        raise SlowSearch(pattern, None) from None


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
                expected=f"a {field} each regular expression searches within its limits ({SEARCH_SECONDS:g} s per "
                         f"million characters, at least {SEARCH_SECONDS:g} s)",
                found=f"{search.pattern!r}{by} {search.what}",
                fix="make the expression linear: no nested repeats such as `(a+)+` or `(a|aa)*`; an atomic group "
                    "`(?>…)` or a possessive `a++` stops the backtracking"))
            if len(slow) == SLOW_SEARCHES_SHOWN:
                break
    if slow:
        raise InputError("a regular expression ran past its time limit", slow)
    return scored
