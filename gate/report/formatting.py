"""How numbers and verdicts look in the report."""

from __future__ import annotations

from gate.judge import CheckVerdict, Verdict

ICONS = {
    Verdict.PASS: "✅", Verdict.WARN: "⚠️", Verdict.FAIL: "❌", Verdict.SKIPPED: "⏭️", Verdict.INCONCLUSIVE: "❓",
    CheckVerdict.PASS: "✅", CheckVerdict.WARN: "⚠️", CheckVerdict.FAIL: "❌", CheckVerdict.UNMEASURED: "❔",
    CheckVerdict.INCONCLUSIVE: "❓", CheckVerdict.WAIVED: "🔕",
}
WORDS = {Verdict.PASS: "passed", Verdict.WARN: "passed with warnings", Verdict.FAIL: "failed",
         Verdict.SKIPPED: "skipped", Verdict.INCONCLUSIVE: "inconclusive (could not tell)"}


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
