"""The gate.yml snippet: a comment block saying what was computed and what the whole snippet promises, the
top-level `alpha`, then per suite and metric its checks: the floor (per group where the suite has groups) and
the change check at its own scope, as a list; floors at the other levels follow as comments. Pure: proposals in,
YAML text out."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from decimal import Decimal

import yaml

from gate.baselines.calibration.types import Calibration, ChangeProposal, Proposal

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def gate_false_alarm(calibration: Calibration) -> tuple[float, float]:
    """(estimate, ceiling) of the chance that an unchanged system fails the snippet's gate. The change checks
    share `alpha` (Holm: family-wise ≤ alpha); each primary threshold adds its own rate p_i. Estimate, as if
    independent: 1 − (1 − alpha)·Π(1 − p_i); guaranteed ceiling, the union bound alpha + Σ p_i."""
    rates = [p.fail_rate or 0.0 for p in _primary(calibration).values()]
    alpha = calibration.alpha if calibration.changes and calibration.alpha is not None else 0.0
    estimate = 1 - (1 - alpha) * math.prod(1 - p for p in rates)
    return estimate, min(1.0, alpha + math.fsum(rates))


def over_alpha(calibration: Calibration) -> str | None:
    """What to change when the whole snippet's expected false-alarm rate is above the `alpha` it was asked for
    (the floors add theirs to the change checks' alpha); None when it is not."""
    estimate, ceiling = gate_false_alarm(calibration)
    alpha = calibration.alpha if calibration.changes else None
    if alpha is None or estimate <= alpha + 1e-9:  # 1 - (1 - alpha) is not alpha in floating point
        return None
    floors = ceiling - alpha
    share = math.floor((alpha - floors) * 1000) / 1000
    fix = (f"calibrate with --alpha {share:g} (the change checks' share) for the whole at ≤ {alpha:.0%}"
           if share > 0 else "calibrate with a smaller --floor-budget (or a larger --z)")
    return (f"Above alpha = {alpha:.0%}: the floors add about {floors:.1%} to the change checks' alpha; {fix}.")


def warning_rate(calibration: Calibration) -> tuple[float, float]:
    """(estimate, ceiling) of the chance that an unchanged system crosses some warn level of the snippet's floors
    (each primary floor's `warn_rate`): 1 − Π(1 − w_i) as if independent; at most Σ w_i."""
    rates = [p.warn_rate or 0.0 for p in _primary(calibration).values()]
    return 1 - math.prod(1 - w for w in rates), min(1.0, math.fsum(rates))


SKIPPED_SHOWN = 40  # reasons the snippet lists before "and N more"


def snippet(calibration: Calibration | Sequence[Proposal]) -> str:
    """A gate.yml fragment `alpha:` and `suites: <name>: checks: <metric>: {...}`. Merge it into gate.yml (an
    entry replaces that suite's check of the metric). Nothing proposed: only comments (loads as null)."""
    if not isinstance(calibration, Calibration):
        calibration = Calibration(tuple(calibration), ())
    proposals, changes = calibration.proposals, calibration.changes
    if not proposals and not changes:
        return "# Proposed by `llm-gate calibrate`: no metric could be calibrated.\n" + "".join(
            line + "\n" for line in _not_proposed(calibration))
    k = max([p.n_runs for p in proposals] + [c.n_runs for c in changes])
    lines = [f"# Proposed by `llm-gate calibrate` from k = {k} repeated runs of the same system."]
    if proposals:
        rate = proposals[0].rate
        lines += ["# min/max: a Student-t prediction interval per group, m_g -/+ t(1-p, df)*s*sqrt(1 + 1/k), the worst",
                  "#   group's bound"
                  + (f", at a promised per-group false-alarm rate p = {rate:.2%} (Phi(-z))." if rate else "."),
                  "#   s is pooled over the groups (df = g(k-1)) unless Bartlett's test finds their variances differ",
                  "#   (p < 0.05): then each group's own s (df = k-1)."]
        lines += _warn_lines(calibration)
    if changes and calibration.alpha is not None:
        c = changes[0]
        bound = ("the MDE: a change must be significant and at least that large (--min-effect)" if c.bound else
                 "0: any significant change fails (the recipe benchmarks/trust.py measures); the MDE is in the note")
        lines += ["# Change checks (significant: true) against a snapshot blessed from the same "
                  f"{k} runs (`llm-gate baseline bless`,",
                  "#   then `llm-gate baseline bless --add` for each further run). Their MDE, the change a fresh run",
                  "#   detects with 80 % power: (t(1-alpha/m, df) + t(0.8, df))*s*sqrt(1 + 1/k), rounded up;",
                  f"#   m = {c.tests} tests share alpha = {c.alpha:g} (Holm, the gate's default `correction`: "
                  "family-wise false-alarm rate <= alpha).",
                  f"#   Bound: {bound}."]
        if any(c.constant for c in changes):
            lines += ["#   A metric that never moved over the k runs has no floor but keeps its change check: the test",
                      "#   floors its noise at what k agreeing runs can rule out (one step of its values; see",
                      "#   docs/baselines.md)."]
    estimate, ceiling = gate_false_alarm(calibration)
    lines += [f"# Expected gate-level false-alarm rate of this whole snippet: about {estimate:.1%} (an estimate, as "
              "if the checks",
              f"#   were independent: 1 - (1-alpha)*prod(1 - p_i)); guaranteed ceiling {ceiling:.1%} "
              "(alpha + sum p_i).",
              "#   The min/max share --floor-budget (Bonferroni over their groups) unless --z sets a per-group rate."]
    if (advice := over_alpha(calibration)) is not None:
        lines.append(f"#   {advice}")
    lines += ["# Merge into gate.yml: `alpha:` at its top level; under each suite, each metric's entry into the",
              "#   suite's `checks:`, replacing that metric's entry (a suite without `checks:` had its kind's default",
              "#   checks: once it has `checks:`, only those listed are run)."]
    lines += _not_proposed(calibration)
    if changes:
        lines.append(f"alpha: {_yaml_number(changes[0].alpha)}")
    lines.append("suites:")
    primary = _primary(calibration)
    change_of = {(c.suite, c.metric): c for c in changes}
    by_suite: dict[str, dict[str, list[Proposal]]] = {}
    for suite, metric in dict.fromkeys([(p.suite, p.metric) for p in proposals] + list(change_of)):
        by_suite.setdefault(suite, {}).setdefault(metric, [])
    for p in proposals:
        by_suite[p.suite][p.metric].append(p)
    for suite, metrics in by_suite.items():
        lines += [f"  {_yaml_key(suite)}:", "    checks:"]
        for metric, options in metrics.items():
            chosen, change = primary.get((suite, metric)), change_of.get((suite, metric))
            lines.append(f"      {_yaml_key(metric)}: {_flow(chosen, change)}  # {_note(chosen, change)}")
            lines += [f"      # at scope {p.level}: {_flow(p, None)}  # {_note(p, None)}"
                      for p in options if p is not chosen]
    return "\n".join(lines) + "\n"


def _warn_lines(calibration: Calibration) -> list[str]:
    warned = [p for p in _primary(calibration).values() if p.warn is not None]
    if not warned:
        return []
    estimate, ceiling = warning_rate(calibration)
    groups, budget = sum(p.n_groups for p in warned), calibration.warn_budget
    how = (f"they share --warn-budget {budget:g}: each of the {groups}" if budget else "each of the")
    each = f"{budget / groups:.2%}" if budget else "the --warn-z rate"
    return [f"# Warn levels (warn:): the same prediction bound at a looser level; {how} group floors warns",
            f"#   a fresh run with probability {each}. Expected warning rate of an unchanged system: about "
            f"{estimate:.1%}",
            f"#   (at most {ceiling:.1%}); a warning never fails the gate."]


def _not_proposed(calibration: Calibration) -> list[str]:
    """The metrics (and levels) calibrate proposes nothing for, each with its reason, as YAML comments."""
    skipped = calibration.skipped
    if not skipped:
        return []
    lines = [f"# Not proposed ({len(skipped)}):"]
    for s in skipped[:SKIPPED_SHOWN]:
        what = f"{s.suite}.{s.metric}" if s.metric else s.suite
        lines.append(f"#   {what}{f' ({s.level})' if s.level else ''}: {_one_line(s.reason)}")
    if len(skipped) > SKIPPED_SHOWN:
        lines.append(f"#   … and {len(skipped) - SKIPPED_SHOWN} more (printed by `llm-gate calibrate` on stderr)")
    return lines


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _primary(calibration: Calibration) -> dict[tuple[str, str], Proposal]:
    """Per (suite, metric) the floor in the snippet's checks: at `group` (each group judged), else at its first
    level. The change check is a second entry of the metric's list, at its own scope (`suite` by default)."""
    out: dict[tuple[str, str], Proposal] = {}
    for p in calibration.proposals:
        key = (p.suite, p.metric)
        if key not in out or (p.level == "group" and out[key].level != "group"):
            out[key] = p
    return out


def _flow(p: Proposal | None, change: ChangeProposal | None) -> str:
    """`{min: …, warn: …, scope: …}`, with a change check the list `[{floor}, {change check}]`, or the change
    check alone (a metric without a floor)."""
    tested = None if change is None else (f"{{{change.op}: {_yaml_number(change.bound)}, significant: true, "
                                          f"scope: {_yaml_key(change.level)}}}")
    if p is None:
        assert tested is not None  # a metric of the snippet has a floor or a change check
        return tested
    warn = "" if p.warn is None else f", warn: {_yaml_number(p.warn)}"
    floor = f"{{{p.op}: {_yaml_number(p.value)}{warn}, scope: {_yaml_key(p.level)}}}"
    return floor if tested is None else f"[{floor}, {tested}]"


def _note(p: Proposal | None, change: ChangeProposal | None) -> str:
    text = ""
    if p is not None:
        how = "pooled" if p.pooled else "per group"
        if p.homogeneity_p is not None:
            how += f", Bartlett p = {p.homogeneity_p:.2g}"
        df = "" if p.df is None else f", df {p.df}"
        rate = "" if p.fail_rate is None else f"; a fresh run fails it with p ≈ {p.fail_rate:.1%}"
        warns = "" if p.warn_rate is None else f", warns with p ≈ {p.warn_rate:.1%}"
        text = (f"σ = {p.sigma:.4g} ({how}{df}) over {p.n_runs} runs x {p.n_groups} group(s), mean {p.mean:.4g}"
                f"{rate}{warns}")
    if change is not None and change.constant:
        text += ("; " if text else "") + (f"constant over {change.n_runs} runs x {change.n_groups} group(s): no floor; "
                                          "any significant change fails (its test floors the noise at what the "
                                          "agreeing runs can rule out)")
    elif change is not None:
        text += ("; " if text else "") + (
            f"detects a change ≥ {_yaml_number(change.value)} (the MDE at α/{change.tests}, se {change.se:.3g})"
            + ("" if change.bound else f"; {change.op} 0: any significant change fails"))
    return text


def _yaml_number(value: float) -> str:
    """Positional notation, always read by YAML as a number (`1e-05` would be read as a string)."""
    return format(Decimal(repr(value)), "f")


def _yaml_key(text: str) -> str:
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    return yaml.safe_dump(text, default_style='"', allow_unicode=True, width=math.inf).strip()
