"""What calibration proposes (typed values across the seam to the command), and which metrics it proposes by
default: the ones a user gates on per kind, not the whole catalogue — every proposed check spends false-alarm
budget, so a snippet of 17 checks would cry wolf 17 ways."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from gate.kinds import get_kind

DIRECTIONS = ("higher", "lower")


@dataclass(frozen=True)
class Scale:
    """What the catalogue knows of a metric's values: the range they can take (None: unbounded on that side)
    and whether it is a quality to gate on at all (a p-value or a count is not: `why` says which)."""

    low: float | None = None
    high: float | None = None
    why_not: str | None = None  # e.g. "a p-value": no check is proposed on it

    def outside(self, value: float, higher: bool) -> bool:
        """Whether a floor (`min` when higher is better, else `max`) at `value` could never fail: it lies at or
        beyond the end of the range the metric cannot pass."""
        return (self.low is not None and value <= self.low) if higher else \
            (self.high is not None and value >= self.high)

    @property
    def width(self) -> float | None:
        return self.high - self.low if self.low is not None and self.high is not None else None

    def label(self) -> str:
        low = "-inf" if self.low is None else f"{self.low:g}"
        return f"{low} to {'inf' if self.high is None else f'{self.high:g}'}"


def default_metrics(kind: str, available: Collection[str]) -> tuple[str, ...]:
    """The default metrics of `kind` among those `available` in the reports: the kind's `calibration_metrics`,
    then what its `calibrated` adds from the reports (e.g. a rubric's per-category scores: a regression
    confined to one category barely moves the final score)."""
    found = get_kind(kind)
    chosen = [m for m in found.calibration_metrics if m in available]
    return tuple(chosen + list(found.calibrated(available) if found.calibrated else ()))


@dataclass(frozen=True)
class Proposal:
    """A threshold check (`min` or `max`) at one level (the check's `scope`)."""

    suite: str
    metric: str
    level: str  # the check's `scope`
    n_runs: int
    n_groups: int
    mean: float  # mean of the group means
    sigma: float  # pooled within-group run-to-run standard deviation, sqrt(mean_g s_g²)
    op: str  # "min" | "max"
    value: float
    warn: float | None
    fail_rate: float | None = None  # estimated chance that a fresh run fails this check on some group
    rate: float | None = None  # the promised per-group false-alarm rate Φ(−z) the threshold is placed at
    df: int | None = None  # degrees of freedom of the t quantile (the smallest, where groups differ)
    pooled: bool = True  # one σ for all groups (False: each group's own s, as Bartlett's test found them unequal)
    homogeneity_p: float | None = None  # Bartlett's p for equal variances across groups (None: not testable)
    warn_rate: float | None = None  # estimated chance that a fresh run crosses the warn level on some group


@dataclass(frozen=True)
class ChangeProposal:
    """A change check `{max_decrease|max_increase: value, significant: true, scope: level}` against a snapshot
    blessed from the same k runs: `value` is the minimum detectable effect at the run-to-run noise."""

    suite: str
    metric: str
    level: str
    n_runs: int
    n_groups: int  # significance tests this check adds to the gate's family (one per group at its scope)
    op: str  # "max_decrease" | "max_increase"
    value: float  # (t_{1−α/m, df} + t_{power, df})·se, rounded up to 2 significant digits
    se: float  # s·sqrt(1 + 1/k) of the noisiest group: a fresh run against the mean of k runs
    df: int
    tests: int  # m: the significance-tested checks of the whole snippet (Holm's strictest level is α/m)
    alpha: float
    pooled: bool = True
    bound: float = 0.0  # the proposed max_decrease/max_increase: 0 (any significant change) or `value` (--min-effect)
    constant: bool = False  # the metric never moved over the k runs: its test's noise is the agreement floor


@dataclass(frozen=True)
class Skipped:
    suite: str
    metric: str | None  # None: the whole suite
    level: str | None
    reason: str


@dataclass(frozen=True)
class Calibration:
    proposals: tuple[Proposal, ...]
    skipped: tuple[Skipped, ...]
    changes: tuple[ChangeProposal, ...] = ()
    alpha: float | None = None  # the gate's `alpha` the change checks were sized for (None: no change checks)
    warn_budget: float | None = None  # the warn levels' shared false-warning rate (None: per group, --warn-z)
