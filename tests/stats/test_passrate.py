"""k-of-n per item (issue 35, item 1): the Wilson bound against statsmodels' proportion_confint(method="wilson"),
pass@k against the Codex paper's estimator written here as a product (its numerically stable form), pass^k against
a direct enumeration of the k-subsets of the draws."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from gate.stats.passrate import pass_at_k, pass_hat_k, pass_rate, wilson_interval, wilson_lower


@pytest.mark.parametrize("n", [1, 2, 5, 10, 37])
def test_wilson_lower_is_statsmodels(n):
    for c in range(n + 1):
        for confidence in (0.95, 0.9):
            low, high = proportion_confint(c, n, alpha=1 - confidence, method="wilson")
            assert wilson_lower(c, n, confidence) == pytest.approx(low, abs=1e-9)
            assert wilson_interval(c, n, confidence) == pytest.approx((low, high), abs=1e-9)
    assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0  # exactly, not 1 - 3e-17


def codex_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. 2021, figure 3: 1 - prod_{i=n-c+1}^{n} (1 - k/i)."""
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


@pytest.mark.parametrize("n", [1, 3, 5, 10, 20])
def test_pass_at_k_is_the_codex_estimator(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(codex_pass_at_k(n, c, k), abs=1e-12)


@pytest.mark.parametrize("meets", [(True, False, True, True, False), (True,) * 4, (False, True, False)])
def test_pass_hat_k_and_pass_at_k_enumerate_the_k_subsets(meets):
    n = len(meets)
    for k in range(1, n + 1):
        subsets = list(itertools.combinations(meets, k))
        assert pass_hat_k(n, sum(meets), k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))
        assert pass_at_k(n, sum(meets), k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))


def test_pass_rate_of_an_items_draws():
    rate = pass_rate([True, True, False, True, True], k=2)
    assert (rate.passed, rate.draws, rate.rate) == (4, 5, 0.8)
    assert rate.wilson_low == pytest.approx(proportion_confint(4, 5, method="wilson")[0])
    assert rate.pass_at_k == pytest.approx(1 - math.comb(1, 2) / math.comb(5, 2))  # = 1: one failure, k = 2
    assert rate.pass_hat_k == pytest.approx(math.comb(4, 2) / math.comb(5, 2))
    assert math.isnan(pass_at_k(3, 1, 4)) and math.isnan(wilson_lower(0, 0))
