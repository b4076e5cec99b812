"""A metric as a function of its items' values, so a test can recompute it on resampled items.

An `ItemStatistic` names the item columns a group metric is computed from and computes it from a block of
rows: `compute(values)` takes an array of shape (..., n, c) (n items, c = len(columns)) and returns shape
(...), so a thousand bootstrap resamples are one call. `linear` marks a plain mean of one column: its
standard error has a closed form and its change test is exactly the paired t-test (`gate.stats.change`).

The builders mirror how the scorers aggregate: `mean` (and rates, the mean of a boolean column), `std`
(population, ddof 0, as the seeds' `np.std`), `sample_std` (ddof 1, as pandas'), `maximum`, `minimum`, `median`,
`percentile` (numpy's default linear interpolation, as `np.percentile`) and `reciprocal_mean` (throughput:
items per second of total time). A kind adds its own (corpus BLEU from per-item n-gram counts, a weighted overall
score).
Pure numpy; nothing here knows a suite kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Rows = NDArray[np.float64]  # (..., n, c)
Compute = Callable[[Rows], NDArray[np.float64]]  # (..., n, c) -> (...)


@dataclass(frozen=True)
class ItemStatistic:
    columns: tuple[str, ...]
    compute: Compute
    linear: bool = False  # a plain mean of its one column
    name: str = ""  # how the report names the statistic ("mean of latency", "95th percentile of latency")

    def __call__(self, rows: Rows) -> float:
        return float(self.compute(np.asarray(rows, dtype=float)))


def mean(column: str) -> ItemStatistic:
    return ItemStatistic((column,), lambda v: v[..., 0].mean(axis=-1), linear=True, name=f"mean of {column}")


def std(column: str) -> ItemStatistic:
    return ItemStatistic((column,), lambda v: v[..., 0].std(axis=-1), name=f"standard deviation of {column}")


def maximum(column: str) -> ItemStatistic:
    return ItemStatistic((column,), lambda v: v[..., 0].max(axis=-1), name=f"maximum of {column}")


def minimum(column: str) -> ItemStatistic:
    return ItemStatistic((column,), lambda v: v[..., 0].min(axis=-1), name=f"minimum of {column}")


def median(column: str) -> ItemStatistic:
    return ItemStatistic((column,), lambda v: np.median(v[..., 0], axis=-1), name=f"median of {column}")


def percentile(column: str, q: float) -> ItemStatistic:
    return ItemStatistic((column,), lambda v: np.percentile(v[..., 0], q, axis=-1),
                         name=f"{q:g}th percentile of {column}")


def reciprocal_mean(column: str) -> ItemStatistic:
    """n / Σ column: e.g. queries per second of total latency."""
    def compute(v: Rows) -> NDArray[np.float64]:
        total = v[..., 0].sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, v.shape[-2] / np.where(total > 0, total, 1.0), np.nan)
    return ItemStatistic((column,), compute, name=f"items per total {column}")


def sample_std(column: str) -> ItemStatistic:
    """Standard deviation with ddof 1 (pandas' and `statistics.stdev`); NaN below two items."""
    def compute(v: Rows) -> NDArray[np.float64]:
        n = v.shape[-2]
        if n < 2:
            return np.full(v.shape[:-2], np.nan)
        return v[..., 0].std(axis=-1, ddof=1)
    return ItemStatistic((column,), compute, name=f"sample standard deviation of {column}")
