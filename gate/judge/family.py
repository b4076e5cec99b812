"""The gate's family of significance tests: one false-alarm budget (`alpha`) shared by every
`significant: true` check, the correction that shares it, and each check's final verdict (DESIGN.md §10).

A change check that joined the family (`Change.tested`, with a raw one-sided p from `gate.judge.changes`)
is decided here, after every suite was measured, because its adjusted p depends on all the others:

- significant: adjusted p ≤ alpha (Holm by default: the chance that an unchanged system fails *any* tested
  check stays ≤ alpha however many checks there are and however they depend on each other);
- minimum detectable effect: the true change this test detects with 80 % power at alpha / m, the strictest
  level a check meets when it is the family's only real change (m = the family's size);
- verdict: fail when significant and past `max_decrease`/`max_increase`; inconclusive when the MDE exceeds the
  check's own bound (underpowered: it could not have seen the change it guards against) and it did not fail;
  warn when significant and past the warn level; pass otherwise.

Change checks outside the family get their MDE at alpha (the noise they are read against). An advisory check
(`advisory: true`) is never in the family: tested, it is decided alone (its raw p against alpha, m = 1), so it
spends none of the blocking checks' budget and the family's size m counts required checks only. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gate import stats
from gate.judge.thresholds import TOLERANCE, judge_value
from gate.judge.types import CheckResult, CheckVerdict, SuiteVerdict


def decide_family(suites: Sequence[SuiteVerdict], alpha: float,
                  correction: stats.Correction) -> tuple[list[SuiteVerdict], int]:
    """Every suite with its tested checks decided on the gate-wide adjusted p; and the family's size."""
    members = [(s, c) for s, suite in enumerate(suites) for c, check in enumerate(suite.checks)
               if _in_family(check)]
    raw = [suites[s].checks[c].change.p_value for s, c in members]  # type: ignore[union-attr]
    adjusted = dict(zip(members, stats.adjust([float(p) for p in raw if p is not None], correction), strict=True))
    m = len(members)
    out = []
    for s, suite in enumerate(suites):
        checks = [decide(check, adjusted[(s, c)], alpha, m) if (s, c) in adjusted
                  else _alone(check, alpha) for c, check in enumerate(suite.checks)]
        out.append(replace(suite, checks=tuple(checks)))
    return out, m


def _testable(check: CheckResult) -> bool:
    change = check.change
    # an untestable check (too few pairs, the item set changed) has no p: `gate.judge.changes` leaves it out
    return (change is not None and change.tested and change.p_value is not None and change.se is not None
            and check.value is not None)


def _in_family(check: CheckResult) -> bool:
    """A blocking significance-tested check: advisory ones never spend the family's budget."""
    return _testable(check) and not check.advisory


def _alone(check: CheckResult, alpha: float) -> CheckResult:
    """An advisory tested check is decided as a family of one (its own p at alpha); any other outside the family
    gets its MDE at alpha."""
    if check.advisory and _testable(check):
        return decide(check, float(check.change.p_value), alpha, 1)  # type: ignore[union-attr, arg-type]
    return _untested_mde(check, alpha)


def decide(check: CheckResult, p_adjusted: float, alpha: float, m: int) -> CheckResult:
    """The verdict of a tested change check from its raw evidence (idempotent: deciding twice is the same)."""
    change = check.change
    assert change is not None and change.se is not None and change.df is not None and check.value is not None
    mde = _mde(change.se, change.df, stats.strictest_level(alpha, m))
    significant = p_adjusted <= alpha
    bound = abs(check.fail)
    underpowered = bound > 0 and mde > bound + TOLERANCE
    point = judge_value(check.value, check.op, check.fail, check.warn)
    reason = None
    if significant and point is CheckVerdict.FAIL:
        verdict = CheckVerdict.FAIL
    elif underpowered:
        verdict = CheckVerdict.INCONCLUSIVE
        reason = (f"underpowered: at this n and noise it detects a change of ≥ {mde:.3g} (80% power), "
                  f"larger than the {bound:g} it guards against; add items, bless more runs or widen the bound")
    elif significant and point is CheckVerdict.WARN:
        verdict = CheckVerdict.WARN
    else:
        verdict = CheckVerdict.PASS
    new = replace(change, p_adjusted=p_adjusted, alpha=alpha, mde=mde, significant=significant,
                  underpowered=underpowered)
    return replace(check, verdict=verdict, reason=reason, change=new)


def _untested_mde(check: CheckResult, alpha: float) -> CheckResult:
    change = check.change
    if change is None or change.tested or change.se is None or change.df is None:
        return check
    return replace(check, change=replace(change, mde=_mde(change.se, change.df, alpha), alpha=alpha))


def _mde(se: float, df: float, level: float) -> float:
    return (stats.t_quantile(df, 1 - level) + stats.t_quantile(df, stats.POWER)) * se
