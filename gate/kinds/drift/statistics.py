"""The drift metrics as functions of their items' values (what a significance test recomputes on resampled items).

`coverage` (the share of the baseline's submissions answered: a missing submission is no item) has none.
In `credit_drift_mode: item` a group's credit drift pools every positional difference of its submissions,
so an item's mean `credit_drift` (m_i) is not enough: items carry, and items.csv lists, `credit_drift_count`
(n_i, its differences), `credit_drift_ss` (ss_i, their sum of squared deviations from m_i) and
`credit_drift_peak` (p_i, the largest), and the group's values are combined from its items' rows (Chan et al.'s
pairwise update, exact and stable):

    N = Σ n_i,   mean = Σ n_i·m_i / N,   std = √((Σ ss_i + Σ n_i·(m_i − mean)²) / N)   (population),
    max = max p_i                                      over the items with a `credit_drift` (the others: none).

With samples each of the four columns is, like every item value, the mean over the item's generations
(`gate.kinds.samples.collapse`), and the group's values follow from those rows by the same formula: the max is
the largest of the items' mean peaks (the largest difference a generation typically shows), not the largest
difference any generation showed, which grows with the number of samples and would make runs with different
sample counts incomparable. Pure numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from gate.kinds.drift.config import CreditDriftMode, DriftSuiteConfig
from gate.stats import statistics as item
from gate.stats.statistics import ItemStatistic, Rows

DRIFT_POOLED = ("credit_drift", "credit_drift_count", "credit_drift_ss", "credit_drift_peak")


def drift_item_values(drifts: Sequence[float] | None) -> dict[str, float | None]:
    """An item's share of its group's pooled credit drift (item mode): how many differences, their sum of
    squared deviations from the item's mean, and the largest."""
    if not drifts:
        return dict.fromkeys(DRIFT_POOLED[1:])
    centre = math.fsum(drifts) / len(drifts)  # the item's `credit_drift` (gate.stats.mean)
    return {"credit_drift_count": float(len(drifts)), "credit_drift_ss": math.fsum((x - centre) ** 2 for x in drifts),
            "credit_drift_peak": float(max(drifts))}


def _pooled(v: Rows) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(N, mean, sum of squared deviations, max) of the pooled differences; unmeasured items (NaN) count 0."""
    missing = np.isnan(v[..., 0]) | np.isnan(v[..., 1])
    count = np.where(missing, 0.0, v[..., 1])
    means = np.where(missing, 0.0, v[..., 0])
    total = count.sum(axis=-1)
    safe = np.where(total > 0, total, 1.0)
    centre = (count * means).sum(axis=-1) / safe
    ss = np.where(missing, 0.0, v[..., 2]).sum(axis=-1) + (count * (means - centre[..., None]) ** 2).sum(axis=-1)
    peak = np.where(missing, -np.inf, v[..., 3]).max(axis=-1)
    none = total <= 0
    return total, np.where(none, np.nan, centre), np.where(none, np.nan, ss), np.where(none, np.nan, peak)


def _drift_pooled(metric: str) -> ItemStatistic:
    def compute(v: Rows) -> NDArray[np.float64]:
        total, centre, ss, peak = _pooled(v)
        if metric == "credit_drift_mean":
            return centre
        if metric == "credit_drift_std":
            return np.sqrt(ss / np.where(total > 0, total, 1.0))
        return peak
    what = {"credit_drift_mean": "mean", "credit_drift_std": "standard deviation", "credit_drift_max": "maximum"}
    return ItemStatistic(DRIFT_POOLED, compute, name=f"{what[metric]} of the pooled positional credit differences")


def drift_statistic(suite: DriftSuiteConfig, metric: str) -> ItemStatistic | None:
    if suite.credit_drift_mode is CreditDriftMode.ITEM and metric.startswith("credit_drift_"):
        return _drift_pooled(metric)
    if metric == "credit_drift_std":  # total mode: one drift per item
        return item.std("credit_drift")
    return item.maximum("credit_drift") if metric == "credit_drift_max" else None


def drift_columns(suite: DriftSuiteConfig) -> tuple[str, ...]:
    pooled = DRIFT_POOLED[1:] if suite.credit_drift_mode is CreditDriftMode.ITEM else ()
    return ("bertscore_precision", "bertscore_recall", "bertscore_f1", "credit_drift", "baseline_credits",
            "candidate_credits", "baseline_items", "candidate_items", "windowed", *pooled)
