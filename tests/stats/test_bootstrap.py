"""The paired bootstrap in blocks (`gate.stats.bootstrap`): bitwise the figures of the direct computation — the
resamples × n index matrix of one seeded `integers` call, each row's mean, numpy's percentiles — which is written
out here as the reference, and in memory linear in n (the direct one held 2 × resamples × n × 8 bytes: 3.2 GB
for 20,000 paired queries; issue 23)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from gate.stats import bootstrap, paired_difference, paired_differences


def direct(d: np.ndarray, resamples: int = 10_000, seed: int = 0, alpha: float = 0.05) -> tuple[float, float]:
    idx = np.random.default_rng(seed).integers(0, len(d), size=(resamples, len(d)))
    low, high = np.percentile(d[idx].mean(axis=1), [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(low), float(high)


def samples(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Continuous, binary (many tied resample means), thirds (inexact sums) and large-magnitude differences."""
    return [rng.normal(size=n), rng.integers(0, 2, n) - rng.integers(0, 2, n) * 1.0,
            (rng.integers(0, 4, n) - rng.integers(0, 4, n)) / 3, rng.lognormal(size=n) * 1e5 - 2e5]


@pytest.mark.parametrize("n", [2, 3, 17, 256, 3001])
def test_intervals_equal_the_direct_computation_bitwise(n):
    rng = np.random.default_rng(n)
    data = samples(rng, n)
    got = bootstrap.percentile_intervals(data, 10_000, 0, (2.5, 97.5))
    assert got == [direct(d) for d in data]


def test_blocks_smaller_than_a_row_and_other_seeds_alphas_resamples(monkeypatch):
    """Every resample its own block (the states kept per block, the exact rows drawn again), other settings."""
    monkeypatch.setattr(bootstrap, "BLOCK_ELEMENTS", 1)
    rng = np.random.default_rng(7)
    data = samples(rng, 40)
    got = bootstrap.percentile_intervals(data, 999, 123, (5.0, 95.0))
    assert got == [direct(d, resamples=999, seed=123, alpha=0.1) for d in data]


def test_paired_differences_batch_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    pairs = [(rng.random(50), rng.random(50)), (rng.random(80), rng.random(80)), ([0.5] * 9, [0.5] * 9),
             (rng.random(50), rng.random(50) + 0.3), ([1.0], [0.0]), ([], [])]
    batch = paired_differences(pairs)
    assert batch == [paired_difference(c, b) for c, b in pairs]
    for (c, b), test in zip(pairs[:2] + pairs[3:4], batch[:2] + batch[3:4], strict=True):
        assert (test.low, test.high) == direct(np.subtract(c, b))
    assert batch[2].low == batch[2].high == 0.0 and not batch[2].significant  # nothing differs: no resampling
    assert batch[3].significant and batch[3].high < 0  # candidate − baseline: about −0.3


def test_memory_is_linear_in_the_pairs():
    """5,000 pairs: the direct computation allocated 2 × 10,000 × 5,000 × 8 bytes = 800 MB at once."""
    rng = np.random.default_rng(1)
    c, b = rng.random(5_000), rng.random(5_000)
    tracemalloc.start()
    try:
        paired_difference(list(c), list(b), seed=11)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 120 * 2**20, f"peak {peak / 2**20:.0f} MiB"
