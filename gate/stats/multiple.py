"""Adjusted p-values for a family of tests, so adding checks does not multiply the false alarms.

- Holm (1979), step-down: sort p ascending; adjusted p_(j) = max over i ≤ j of min(1, (m − i + 1)·p_(i)).
  Controls the family-wise error rate — the chance of any false alarm — under any dependence between the
  tests. The gate's default: a gate's false alarm *is* one wrongly failed check, and its checks are strongly
  dependent (precision, recall and F1 of one run).
- Benjamini–Hochberg (1995), step-up: adjusted p_(j) = min over i ≥ j of min(1, m·p_(i) / i). Controls the
  false discovery rate (under positive dependence); on an unchanged system, where every null is true, that
  equals the family-wise rate. More power with many checks, more wrongly failed checks beside a real one.
- `none`: the raw p-values (each check at its own α).

Both reproduce statsmodels' `multipletests(method="holm" | "fdr_bh")` (checked in the tests). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum


class Correction(str, Enum):
    HOLM = "holm"
    BH = "bh"
    NONE = "none"


def adjust(p_values: Sequence[float], correction: Correction) -> list[float]:
    """The adjusted p-values, in the order given."""
    m = len(p_values)
    if m == 0 or correction is Correction.NONE:
        return [float(p) for p in p_values]
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    if correction is Correction.HOLM:
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (m - rank) * p_values[i]))
            adjusted[i] = running
    else:
        running = 1.0
        for rank in range(m - 1, -1, -1):
            i = order[rank]
            running = min(running, min(1.0, m * p_values[i] / (rank + 1)))
            adjusted[i] = running
    return adjusted


def strictest_level(alpha: float, m: int) -> float:
    """The level a single test must meet when it is the family's only real effect: α/m for Holm's first
    step and for BH's (the level the minimum detectable effect is computed at)."""
    return alpha / max(1, m)
