"""How numbers and verdicts look in the report."""

from __future__ import annotations

from collections.abc import Iterable

from gate.judge import CheckVerdict, SuiteVerdict, Verdict

ICONS = {
    Verdict.PASS: "✅", Verdict.WARN: "⚠️", Verdict.FAIL: "❌", Verdict.SKIPPED: "⏭️", Verdict.INCONCLUSIVE: "❓",
    CheckVerdict.PASS: "✅", CheckVerdict.WARN: "⚠️", CheckVerdict.FAIL: "❌", CheckVerdict.UNMEASURED: "❔",
    CheckVerdict.INCONCLUSIVE: "❓", CheckVerdict.WAIVED: "🔕",
}
WORDS = {Verdict.PASS: "passed", Verdict.WARN: "passed with warnings", Verdict.FAIL: "failed",
         Verdict.SKIPPED: "skipped", Verdict.INCONCLUSIVE: "inconclusive (could not tell)"}


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


def icon(verdict: Verdict | CheckVerdict | None) -> str:
    return ICONS.get(verdict, "·") if verdict is not None else "·"


def number(value: float | None, fmt: str = ".3f") -> str:
    return "n/a" if value is None else format(value, fmt)


def threshold(op: str, fail: float, warn: float | None, fmt: str = "g") -> str:
    """`≥ 0.7 (warn < 0.8)`, in the metric's own format (a rate as `≤ 40%`)."""
    shown = fmt if fmt.endswith("%") else "g"
    sign = "≥" if op == "min" else "≤"
    text = f"{sign} {format(fail, shown)}"
    return text + (f" (warn {'<' if op == 'min' else '>'} {format(warn, shown)})" if warn is not None else "")
