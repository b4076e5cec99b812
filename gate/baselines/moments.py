"""Running moments of one item value over the blessed runs: `bless --add` folds a run into the mean, the variance
and the third central moment without keeping the runs (Chan, Golub & LeVeque 1979 for the mean and M2; Pébay
2008 for M3). The third moment is what tells a change test that a run's noise is skewed — a system that now
and then leaks a stereotype jumps one way only — so that a rare jump is not read as a regression
(`gate.stats.known_noise`). The tests check the updates against numpy on the runs kept. Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Moments:
    n: int  # runs (draws) the moments are over
    mean: float
    m2: float  # Σ (x − mean)²
    m3: float  # Σ (x − mean)³

    @classmethod
    def of(cls, n: int, mean: float, variance: float, third: float) -> Moments:
        """From a snapshot's fields: the sample variance (ddof 1) and the third central moment m3 = M3 / n."""
        return cls(n, mean, variance * (n - 1), third * n)

    @property
    def variance(self) -> float:
        return self.m2 / (self.n - 1) if self.n > 1 else 0.0

    @property
    def third(self) -> float:
        return self.m3 / self.n


def merge(a: Moments, b: Moments) -> Moments:
    """The moments of both sets of draws together (Pébay 2008, eqs. 1.1, 2.1, 2.2 with δ = mean_b − mean_a)."""
    n = a.n + b.n
    delta = b.mean - a.mean
    m2 = a.m2 + b.m2 + delta * delta * a.n * b.n / n
    m3 = (a.m3 + b.m3 + delta ** 3 * a.n * b.n * (a.n - b.n) / (n * n)
          + 3 * delta * (a.n * b.m2 - b.n * a.m2) / n)
    return Moments(n, a.mean + delta * b.n / n, m2, m3)
