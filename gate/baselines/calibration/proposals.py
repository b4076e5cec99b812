"""From each metric's noise to the checks the snippet proposes: a floor per group (with its warn level) where a
floor can fail, and one change check per metric. Pure: `Noise` in, proposals and the reasons for what was not
proposed out.

- A floor that could never fail is not proposed: a `min` at or below the lowest value the metric can take (a
  0–10 score's floor at −1.8 with 3 noisy runs), a `max` at or above the highest (a rate's at 1.2). The
  metric's change check still tests it; the snippet says why it has no floor.
- A metric that never moved over the k runs gets no floor — k agreeing runs cannot bound how often a fresh
  run moves it (a rubric score that steps once in a hundred runs) — but it keeps its change check, whose test
  floors the noise at what k agreeing runs can rule out (`gate.stats.known_noise`): constant under noise,
  it is the best detector of a regression there is (a retriever's `mrr` when retrieval breaks).
- A change check whose minimum detectable effect spans the metric's whole range could detect no change: it
  is dropped (bless more runs), and the others share alpha without it.
"""

from __future__ import annotations

import math

from gate.baselines.calibration.noise import Noise, cross_rate, detectable_change, fail_rate, threshold
from gate.baselines.calibration.types import ChangeProposal, Proposal, Scale, Skipped

Entry = tuple[str, str, str, str, Noise, Scale]  # suite, metric, level, direction, noise, scale
CONSTANT = ("no floor: it never moved over the k runs, and k agreeing runs cannot bound how often a fresh run "
            "moves it; its change check tests it (the noise k agreeing runs can rule out)")


def primary(entries: list[Entry]) -> list[Entry]:
    """Per (suite, metric) the entry of the snippet's floor: at `group` (each group judged), else its first level."""
    out: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        key = (entry[0], entry[1])
        if key not in out or (entry[2] == "group" and out[key][2] != "group"):
            out[key] = entry
    return list(out.values())


def at_scope(entries: list[Entry], scope: str) -> list[Entry]:
    """Per (suite, metric) the entry at `scope`, else its first level's (the one the snippet's check uses)."""
    by_metric: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries:
        by_metric.setdefault((entry[0], entry[1]), []).append(entry)
    return [next((e for e in options if e[2] == scope), options[0]) for options in by_metric.values()]


def floor(entry: Entry, rate: float, warn_rate: float | None) -> Proposal | Skipped:
    """The floor crossed by a fresh run of each group with probability at most `rate`, and its warn level at
    `warn_rate` (None: none); a floor that could never fail is a reason instead."""
    suite, metric, level, direction, noise, scale = entry
    higher = direction == "higher"
    op = "min" if higher else "max"
    value = threshold(noise, higher, rate)
    if scale.outside(value, higher):
        end = f"at or below the lowest value it can take, {scale.low:g}" if higher else \
            f"at or above the highest value it can take, {scale.high:g}"
        return Skipped(suite, metric, level, f"no floor: {op} {value:g} lies {end} (its range {scale.label()}), so "
                       f"it could never fail at this noise with k = {noise.k} runs; bless more runs (its change "
                       "check still tests it)")
    warn = threshold(noise, higher, warn_rate) if warn_rate else None
    mean = math.fsum(noise.means) / len(noise.means)
    return Proposal(suite, metric, level, noise.k, len(noise.means), mean, noise.sigma, op, value, warn,
                    fail_rate(noise, higher, value), rate, min(noise.dfs), noise.pooled, noise.homogeneity_p,
                    warn_rate=cross_rate(noise, higher, warn))


def changes_of(entries: list[Entry], alpha: float, scope: str,
               min_effect: bool) -> tuple[tuple[ChangeProposal, ...], list[Skipped]]:
    """One change check per (suite, metric), at `scope` where the metric exists there, else at its first level;
    sized at Holm's strictest level α/m, m counting one test per group of every proposed change check. A check
    whose MDE spans its metric's whole range is dropped, with the reason, and m recounted without it."""
    chosen, dropped = at_scope(entries, scope), []
    while True:
        tests = sum(len(e[4].means) for e in chosen)
        sized = [(e, detectable_change(e[4], alpha, tests)) for e in chosen]
        useless = [(e, size) for e, (size, _, _) in sized if (width := e[5].width) is not None and size >= width]
        if not useless:
            break
        for (suite, metric, level, _, noise, scale), size in useless:
            dropped.append(Skipped(suite, metric, level, f"no change check: at k = {noise.k} runs it detects only a "
                                   f"change of ≥ {size:g}, its whole range ({scale.label()}); bless more runs"))
        chosen = [e for e in chosen if all(e is not u for u, _ in useless)]
    out = []
    for (suite, metric, level, direction, noise, _), (value, se, df) in sized:
        out.append(ChangeProposal(suite, metric, level, noise.k, len(noise.means),
                                  "max_decrease" if direction == "higher" else "max_increase", value, se, df, tests,
                                  alpha, noise.pooled, bound=value if min_effect else 0.0,
                                  constant=noise.sigma == 0))
    return tuple(out), dropped
