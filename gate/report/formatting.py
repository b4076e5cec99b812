"""How numbers and verdicts look in the report."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from gate.judge import CheckVerdict, SuiteVerdict, Verdict

ICONS = {
    Verdict.PASS: "✅", Verdict.WARN: "⚠️", Verdict.FAIL: "❌", Verdict.SKIPPED: "⏭️", Verdict.INCONCLUSIVE: "❓",
    CheckVerdict.PASS: "✅", CheckVerdict.WARN: "⚠️", CheckVerdict.FAIL: "❌", CheckVerdict.UNMEASURED: "❔",
    CheckVerdict.INCONCLUSIVE: "❓", CheckVerdict.WAIVED: "🔕",
}
WORDS = {Verdict.PASS: "passed", Verdict.WARN: "passed with warnings", Verdict.FAIL: "failed",
         Verdict.SKIPPED: "skipped", Verdict.INCONCLUSIVE: "inconclusive (could not tell)"}


def counted(count: int, word: str, plural: str | None = None) -> str:
    """`1 model`, `2 models`, `1 category`, `3 categories` (`plural` when adding an s is wrong)."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


def waivers_applied(suites: Iterable[SuiteVerdict]) -> int:
    """How many of gate.yml's waivers accept a check in these suites (one waiver may waive several checks)."""
    return len({(c.waiver.reason, c.waiver.owner, c.waiver.expires) for s in suites for c in s.checks
                if c.verdict is CheckVerdict.WAIVED and c.waiver is not None})


def verdict_words(verdict: Verdict, waived: int = 0) -> str:
    """The verdict in words; a pass (or a pass with warnings) that `waived` waivers helped is never a plain
    "passed": "passed with 1 waiver", "passed with warnings and 2 waivers" (a waiver is an audited exception)."""
    if waived <= 0 or verdict not in (Verdict.PASS, Verdict.WARN):
        return WORDS[verdict]
    counted = f"{waived} waiver{'s' if waived != 1 else ''}"
    return f"passed with {counted}" if verdict is Verdict.PASS else f"passed with warnings and {counted}"


_ADVISORY_WORDS = ((CheckVerdict.FAIL, "failed"), (CheckVerdict.WARN, "warned"),
                   (CheckVerdict.INCONCLUSIVE, "inconclusive"), (CheckVerdict.UNMEASURED, "unmeasured"))


def advisory_note(suites: Iterable[SuiteVerdict]) -> str:
    """What the advisory checks (`advisory: true`, which never block) did not pass, counted apart from the verdict:
    "2 advisory checks failed, 1 warned"; "" when they all passed or there are none."""
    suites = list(suites)
    parts = [(n, word) for v, word in _ADVISORY_WORDS if (n := sum(s.count(v, advisory=True) for s in suites))]
    if not parts:
        return ""
    first_n, first_word = parts[0]
    return (f"{first_n} advisory check{'s' if first_n != 1 else ''} {first_word}"
            + "".join(f", {n} {word}" for n, word in parts[1:]))


def headline(verdict: Verdict, suites: Iterable[SuiteVerdict]) -> str:
    """The verdict in words with its waivers and, apart, its advisory checks: "passed; 2 advisory checks failed"."""
    suites = list(suites)
    words = verdict_words(verdict, waivers_applied(suites))
    note = advisory_note(suites)
    return f"{words}; {note}" if note and verdict is not Verdict.SKIPPED else words


def advisory_mark(check_icon: str, advisory: bool) -> str:
    """A check row's verdict cell, marked when the check is advisory (shown, never blocking)."""
    return f"{check_icon} advisory" if advisory else check_icon


def icon(verdict: Verdict | CheckVerdict | None) -> str:
    return ICONS.get(verdict, "·") if verdict is not None else "·"


def number(value: float | None, fmt: str = ".3f") -> str:
    return "n/a" if value is None else format(value, fmt)


def decisive(value: float | None, bounds: Iterable[float | None], fmt: str = ".3f") -> str:
    """`value` in `fmt`, with as many more digits as it takes for the shown number to sit on the same side of every
    bound as the value itself: F1 0.69981 against `min: 0.7` shows `0.6998`, never a failing `0.700` beside `≥ 0.7`
    (issue 32). At most 9 digits more; a value exactly at a bound shows as the bound."""
    text = number(value, fmt)
    if value is None or not math.isfinite(value):
        return text
    found = re.fullmatch(r"([^.]*)\.(\d+)([a-z%])", fmt)
    prefix, digits, kind = (found.group(1), int(found.group(2)), found.group(3)) if found else ("", 6, "g")
    limits = [b for b in bounds if b is not None and math.isfinite(b)]
    for extra in range(10):
        shown = format(value, f"{prefix}.{digits + extra}{kind}")
        if all(_side(_read(shown), bound) == _side(value, bound) for bound in limits):
            return shown
    return format(value, f"{prefix}.{digits + 9}{kind}")


def _read(shown: str) -> float:
    return float(shown[:-1]) / 100 if shown.endswith("%") else float(shown)


def _side(value: float, bound: float) -> int:
    return (value > bound) - (value < bound)


def threshold(op: str, fail: float, warn: float | None, fmt: str = "g") -> str:
    """`≥ 0.7 (warn < 0.8)`, in the metric's own format (a rate as `≤ 40%`)."""
    shown = fmt if fmt.endswith("%") else "g"
    sign = "≥" if op == "min" else "≤"
    text = f"{sign} {format(fail, shown)}"
    return text + (f" (warn {'<' if op == 'min' else '>'} {format(warn, shown)})" if warn is not None else "")
