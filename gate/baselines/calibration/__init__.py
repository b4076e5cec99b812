"""Noise calibration: checks proposed from k repeated runs of the same system, with error rates that hold.

Input: k report.json documents (DESIGN.md §5) of the same system scored k times; what differs between them is
the noise (sampling temperature, non-deterministic kernels, an LLM judge). Per suite, level (`group`, `model`,
..., `suite`) and chosen metric with a known direction, x[g, r] is the metric of group g in run r, m_g its mean
over the runs and s²_g its sample variance (ddof 1).

- Thresholds (`min`/`max`): a fresh run's value of group g minus m_g has sd σ_g·sqrt(1 + 1/k); estimated by s,
  (fresh − m_g)/(s·sqrt(1 + 1/k)) is exactly Student-t with the degrees of freedom of s. So the bound
  m_g ∓ t_{1−p, df}·s·sqrt(1 + 1/k) is crossed by a fresh run with probability exactly p — over the draw of the
  k runs and the fresh one, which is the promise a user can check (the tests do, by simulation). A normal
  quantile there (the old z·σ) promised Φ(−2) = 2.3 % and delivered 5.8 % at k = 5. `--z` keeps its meaning as
  the promised rate p = Φ(−z). One threshold serves every group, so it is the worst group's bound; better
  groups cross it less often. `Proposal.fail_rate` estimates the chance that a fresh run fails on any group.
- Which s: pooled, s² = mean_g s²_g with df = g(k − 1), when the groups' variances are alike; each group's own
  s_g with df = k − 1 when Bartlett's test rejects equal variances at p < 0.05 (pooling over groups with 7×
  different noise gives the noisy group a far higher rate than promised). Bartlett, not Levene: it is the
  likelihood-ratio test under the normal model the intervals already assume, so it has the most power at the
  small k calibration runs on (Levene's absolute deviations are degenerate at k = 2 and weak below k ≈ 10);
  its known sensitivity to heavy tails errs towards per-group s, the side with fewer df and wider bounds.
  Conditional on Bartlett accepting, the pooled interval stays exact (the statistic depends only on the
  ratios s²_g/Σs², independent of the pooled s under normality). A group that never moved while others did
  borrows the pooled s of the groups that vary rather than a zero-width interval.
- Change checks (`max_decrease`/`max_increase`, `significant: true`): a fresh run is compared with a snapshot
  blessed from the same k runs (`llm-gate baseline bless`, then `bless --add` per further run), whose noise
  is SE = s·sqrt(1 + 1/k). The proposed bound is the minimum detectable effect at that noise,
  X = (t_{1−α/m, df} + t_{0.8, df})·SE rounded up to 2 significant digits (the noisiest group's, so no group
  is underpowered): α is the gate's `alpha`, m the number of significance tests in the snippet (one per group
  at each change check's scope), α/m Holm's strictest level. One per metric, at `scope` (default `suite`: one
  test on all items, the most powerful) or, where the reports have no value there, its first level.
- The snippet's gate-level false-alarm rate: the change checks share α (Holm: family-wise ≤ α), each threshold
  adds its own rate p_i; ≈ 1 − (1 − α)·Π(1 − p_i) if independent, at most α + Σ p_i (`gate_false_alarm`).
  Without `--z` the M group floors in the snippet's checks share `--floor-budget`, floor_budget/M each.
- Warn levels are designed like the floors, at a looser level: the M group floors share `--warn-budget` (10 %),
  each group's warn level the prediction bound at warn_budget/M, so an unchanged system warns with probability
  at most warn_budget (`warning_rate`, printed in the snippet). (A warn level at Φ(−1) = 16 % per group warned
  an unchanged run with 10 groups 4 times in 5.) `--warn-z` sets a per-group rate instead.
- A metric that never moved over the k runs (σ = 0 in every group) gets no floor — k agreeing runs cannot bound
  how often a fresh run moves it — but keeps its change check, whose test floors the noise at what the agreeing
  runs can rule out (`gate.stats.known_noise`): constant under noise, it is the best detector there is.
- Thresholds are rounded outward to 4 significant digits (min down, max up): never stricter than computed.
- Scales (`scales`, from the kinds' `MetricSpec`): no check on a p-value or a count; no floor where it could
  never fail (a `min` at or below the lowest value the metric can take, a `max` at or above the highest); no
  change check whose MDE spans the metric's whole range.

Skipped (listed in `Calibration.skipped` and as comments in the snippet, never an error): a suite missing from
a run or whose kind or fingerprint (model, weights, params, libraries; not `source`) differs between runs; a
metric with no known direction; a p-value or a count; a metric unmeasured (None, a missing group) in some run;
the floor of a metric constant across runs or one that could never fail. A group that has a metric in no run
(a rubric category's metric in another category's group) is simply not one of its groups. Pure: dicts in,
dataclasses and YAML text out.
"""

from gate.baselines.calibration.collect import WARN_BUDGET, calibrate, propose
from gate.baselines.calibration.noise import Noise, noise_of
from gate.baselines.calibration.scales import scale_of, scales_of
from gate.baselines.calibration.snippet import gate_false_alarm, over_alpha, snippet, warning_rate
from gate.baselines.calibration.types import (
    DIRECTIONS,
    Calibration,
    ChangeProposal,
    Proposal,
    Scale,
    Skipped,
    default_metrics,
)

__all__ = ["DIRECTIONS", "WARN_BUDGET", "Calibration", "ChangeProposal", "Noise", "Proposal", "Scale", "Skipped",
           "calibrate", "default_metrics", "gate_false_alarm", "noise_of", "over_alpha", "propose", "scale_of",
           "scales_of", "snippet", "warning_rate"]
