"""The report's statements about the gate as a whole: what its significance tests promise (`significance_line`)
and what an inconclusive gate counts as (`counts_as_line`). Shared by the comment, the dashboard and stdout."""

from __future__ import annotations

from gate.config import InconclusivePolicy
from gate.judge import GateVerdict, Verdict

_CORRECTION_PROMISE = {
    "holm": "Holm: the chance that an unchanged system fails any of them ≤ {pct}",
    "bh": "Benjamini–Hochberg: of the checks that fail, the expected share of false alarms ≤ {pct}",
}


def significance_line(verdict: GateVerdict) -> str | None:
    """What the gate's significance tests promise, e.g. "Significance: 17 checks share α = 0.05 (Holm: the
    chance that an unchanged system fails any of them ≤ 5 %); p per check raw and adjusted."; and, apart, the
    advisory ones, each tested alone at α outside the family ("2 advisory checks are each tested alone at α = 0.05:
    they never block and spend none of this budget."). None when no check is significance-tested."""
    if verdict.alpha is None or not (verdict.tested or verdict.advisory_tested):
        return None
    alpha, pct = f"{verdict.alpha:g}", f"{verdict.alpha * 100:g} %"
    line = _family_line(verdict.tested, alpha, pct, verdict.correction)
    alone = verdict.advisory_tested
    if alone:
        line = (f"{line} " if line else "Significance: ") + (
            f"{alone} advisory check{'s are each' if alone != 1 else ' is'} tested alone at α = {alpha}, outside "
            "the gate's family: never blocking, spending none of its budget.")
    return line


def _family_line(tested: int, alpha: str, pct: str, correction: str | None) -> str:
    if not tested:
        return ""
    if tested == 1:
        return (f"Significance: 1 check is tested at α = {alpha} (the chance that an unchanged system fails it "
                f"≤ {pct}); its p is shown raw and adjusted.")
    promise = _CORRECTION_PROMISE.get(correction or "")
    if promise is None:
        return (f"Significance: {tested} checks are each tested at α = {alpha} without correction (each "
                f"alone ≤ {pct} false alarms; the gate as a whole more); p per check raw.")
    return (f"Significance: {tested} checks share α = {alpha} ({promise.format(pct=pct)}); "
            "p per check raw and adjusted.")


_COUNTS_AS = {InconclusivePolicy.NEUTRAL: "a neutral check run and exit code 0 — which GitHub's branch protection "
                                          "accepts as passing a required check (`inconclusive: fail` blocks instead)",
              InconclusivePolicy.WARN: "a warning (exit 1 only with --fail-on warn)",
              InconclusivePolicy.FAIL: "a failure: exit code 1 and a failed check run",
              InconclusivePolicy.PASS: "a pass (exit code 0)"}


def counts_as_line(verdict: GateVerdict, inconclusive: int) -> str | None:
    """For an inconclusive gate: how many checks could not tell, and what gate.yml makes that count as."""
    if verdict.verdict is not Verdict.INCONCLUSIVE:
        return None
    return (f"❓ Could not tell: {inconclusive} check{'s' if inconclusive != 1 else ''} inconclusive. "
            f"`inconclusive: {verdict.inconclusive.value}` (gate.yml) makes this {_COUNTS_AS[verdict.inconclusive]}.")
