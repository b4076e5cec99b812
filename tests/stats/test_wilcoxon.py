"""gate.stats.wilcoxon against scipy.stats.wilcoxon (the reference it replaces, so a run needs no scipy.stats)."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import pytest
from scipy import stats

from gate.stats import wilcoxon_signed_rank
from gate.stats.wilcoxon import signed_rank_test


def _reference(first: list[float], second: list[float]) -> tuple[float, float]:
    result = stats.wilcoxon(first, second, zero_method="wilcox", alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def _cases() -> list[tuple[list[float], list[float]]]:
    """Every branch of scipy's method "auto": exact (n ≤ 50, distinct |d|, no zeros), the permutation test
    (n ≤ 13 with ties or zeros), the normal approximation (n > 50, or 13 < n ≤ 50 with ties or zeros);
    scores on a coarse grid (ties, zeros, ±d of equal size) and continuous ones."""
    rng = random.Random(23)
    cases = []
    for n in [1, 2, 3, 5, 8, 12, 13, 14, 20, 30, 49, 50, 51, 80, 200, 1000]:
        for _ in range(6):
            shift = rng.choice([0.0, 0.3, 1.0])
            first = [rng.gauss(0, 1) for _ in range(n)]
            cases.append((first, [a - shift + rng.gauss(0, 1) for a in first]))
            grid = rng.choice([1, 2, 4])
            coarse = [float(rng.randint(0, 4 * grid)) / grid for _ in range(n)]
            cases.append((coarse, [float(rng.randint(0, 4 * grid)) / grid for _ in range(n)]))
    cases.append(([1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 0.0, 0.0, 0.0, 0.0]))  # all one sign: the smallest p
    cases.append(([0.9, 0.8, 0.7], [0.9, 0.1, 0.1]))  # one zero and a tie
    cases.append(([0.5] * 60, [0.25] * 30 + [0.75] * 30))  # n > 50, one tie group per sign
    return [(a, b) for a, b in cases if any(x != y for x, y in zip(a, b, strict=True))]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"n{len(c[0])}")
def test_matches_scipy(case):
    first, second = case
    statistic, p = _reference(first, second)
    mine = signed_rank_test([a - b for a, b in zip(first, second, strict=True)])
    assert mine[0] == statistic
    assert mine[1] == pytest.approx(p, rel=1e-12, abs=1e-300)
    assert wilcoxon_signed_rank(first, second).p_value == mine[1]


def test_exact_branch_is_bit_identical():
    rng = random.Random(5)
    for n in (4, 10, 25, 50):
        first = [rng.random() for _ in range(n)]
        second = [rng.random() for _ in range(n)]
        assert signed_rank_test([a - b for a, b in zip(first, second, strict=True)])[1] == _reference(first, second)[1]


def test_nan_propagates_like_scipy():
    statistic, p = signed_rank_test([1.0, math.nan, -2.0])
    assert math.isnan(statistic) and math.isnan(p)
    assert math.isnan(_reference([1.0, math.nan, 0.0], [0.0, 0.0, 2.0])[1])


def test_no_scipy_stats_import():
    """The test runs in every stereotype suite (twice: the planning pass too); scipy.stats costs ~0.8 s."""
    probe = ("import sys; from gate.stats import wilcoxon_signed_rank; "
             "t = wilcoxon_signed_rank([1.0, 2.0, 3.5, 0.5], [0.0, 2.5, 1.0, 0.0]); "
             "print(t.p_value, 'scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == "False" and float(out[0]) == _reference([1.0, 2.0, 3.5, 0.5], [0.0, 2.5, 1.0, 0.0])[1]
