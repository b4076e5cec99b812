"""The paired bootstrap's percentile interval of a mean, in linear memory and shared across metrics — bitwise the
figures of the direct computation `np.percentile(d[idx].mean(axis=1), q)` with
`idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))`.

Why not the direct computation: its index matrix is resamples × n (10,000 × 20,000 queries = 1.6 GB, and as much
again for the gathered values), and the gather costs resamples × n per metric. Here:

1. The indices are drawn in blocks of rows (a `Generator` continues its stream across calls, so the blocks are the
   matrix's rows), each block turned into per-row counts, and every metric's resampled means come from one matrix
   product `counts @ d` — one draw and one product for all metrics of the same n.
2. Those means differ from the direct ones only by rounding (both sum n terms: at most `eps` apart, bounded below).
   A percentile depends on two order statistics, so only the rows whose mean lies within 2·eps of them can change
   it: the blocks holding them are drawn again (the generator's state at each block was kept) and those rows'
   means computed exactly as the direct computation does. The percentile of the mixed vector is then the direct
   one: rows outside the window stay on their side of both order statistics.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

BLOCK_ELEMENTS = 1 << 21  # indices per block: 16 MiB of int64, about 50 MiB of working memory at any n


def percentile_intervals(diffs: Sequence[NDArray[np.float64]], resamples: int, seed: int,
                         q: tuple[float, float]) -> list[tuple[float, float]]:
    """For each array d of `diffs` (all of one length n ≥ 1): the `q` percentiles of the means of `resamples`
    bootstrap resamples of d, the same resamples for every array (`seed`)."""
    data = np.vstack([np.asarray(d, dtype=np.float64) for d in diffs])  # (metrics, n)
    n = data.shape[1]
    rows = max(1, BLOCK_ELEMENTS // n)
    rng = np.random.default_rng(seed)
    states, means = [], np.empty((resamples, data.shape[0]))
    for start in range(0, resamples, rows):
        states.append(rng.bit_generator.state)
        block = _counts(rng.integers(0, n, size=(min(rows, resamples - start), n)), n)
        means[start:start + block.shape[0]] = (block @ data.T) / n
    wanted = [_window(means[:, m], _eps(data[m]), q) for m in range(data.shape[0])]
    exact = _exact_rows(data, wanted, states, rows, resamples, rng)
    out = []
    for m, chosen in enumerate(wanted):
        mixed = means[:, m].copy()
        mixed[chosen] = exact[m]
        low, high = np.percentile(mixed, q)
        out.append((float(low), float(high)))
    return out


def _counts(idx: NDArray[np.int64], n: int) -> NDArray[np.float64]:
    """Per row of `idx`, how often each of 0..n-1 was drawn."""
    count = idx.shape[0]
    idx += (np.arange(count, dtype=np.int64) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=count * n).reshape(count, n).astype(np.float64)


def _eps(values: NDArray[np.float64]) -> float:
    """A bound on |counts·d/n − numpy's mean of the gathered row|: each is a floating sum of n terms whose
    magnitudes add up to at most n·max|d|, so each is within n·u·max|d| of the exact sum (u the unit roundoff),
    plus the division's rounding; doubled, and doubled again for safety."""
    n = values.shape[0]
    return 4.0 * (n + 2) * float(np.finfo(np.float64).eps) * float(np.max(np.abs(values)))


def _window(means: NDArray[np.float64], eps: float, q: tuple[float, float]) -> NDArray[np.intp]:
    """The rows whose exact mean may be one of the order statistics the percentiles interpolate (the positions
    numpy uses, padded by one on each side), or change their ranks."""
    last = means.shape[0] - 1
    positions = sorted({min(max(math.floor(last * p / 100) + j, 0), last) for p in q for j in (-1, 0, 1, 2)})
    ordered = np.partition(means, positions)
    chosen = np.zeros(means.shape[0], dtype=bool)
    for p in q:
        k = math.floor(last * p / 100)
        low, high = ordered[max(k - 1, 0)], ordered[min(k + 2, last)]
        chosen |= (means >= low - 2 * eps) & (means <= high + 2 * eps)
    return np.flatnonzero(chosen)


def _exact_rows(data: NDArray[np.float64], wanted: Sequence[NDArray[np.intp]], states: Sequence[Mapping[str, Any]],
                rows: int, resamples: int, rng: np.random.Generator) -> list[NDArray[np.float64]]:
    """The direct computation's means of the wanted rows: their blocks drawn again from the kept states."""
    n = data.shape[1]
    exact = [np.empty(w.shape[0]) for w in wanted]
    needed = np.unique(np.concatenate(wanted)) if wanted else np.empty(0, dtype=np.intp)
    for block in np.unique(needed // rows):
        start = int(block) * rows
        inside = needed[(needed >= start) & (needed < start + rows)]
        rng.bit_generator.state = states[int(block)]
        idx = rng.integers(0, n, size=(min(int(inside[-1]) - start + 1, resamples - start), n))
        for m, w in enumerate(wanted):
            mine = np.flatnonzero((w >= start) & (w < start + rows))
            for position in mine:
                exact[m][position] = data[m][idx[int(w[position]) - start]].mean()
    return exact
