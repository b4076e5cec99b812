"""The regular expressions of a rubric's `matches` / `no_match` (pure): Python's `re` syntax as the `regex` package
reads it (its VERSION0, `re`'s own behaviour), compiled once, each search under a time limit.

The limit is what keeps a response from deciding the verdict through the clock: an expression whose backtracking
explodes on some text (`(a+)+$` on a long run of `a`) would hold a search for hours, and a condition read as
"not found" when the search gave up would let hostile text dodge a `no_match` penalty. So a search that runs past
`SEARCH_SECONDS` is neither found nor not found: it raises `SlowSearch`, which the scorer turns into an input error
naming the record and the expression (exit 2). `regex` is imported only by a rubric that has expressions.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

SEARCH_SECONDS = 1.0  # per search of one expression in one response; linear expressions take microseconds


class SlowSearch(Exception):
    """A search ran past `seconds`: the expression backtracks without end on this text; `indicator` names the
    rubric's indicator that searched (filled in by `gate.kinds.heuristic.rules`)."""

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
