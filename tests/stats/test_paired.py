"""`gate.stats.paired` (moved here from the stereotype and RAG scorer tests): the Wilcoxon signed-rank test
against a hand-worked exact p and scipy, and the RAG comparison's paired bootstrap against a resampling
written here."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gate.stats import paired_difference, wilcoxon_signed_rank


def test_wilcoxon_matches_hand_worked_exact_p_and_scipy():
    # five pairs, all bias > control: exact two-sided p = 2 / 2**5
    test = wilcoxon_signed_rank([0.9, 0.8, 0.7, 0.6, 0.5], [0.1, 0.15, 0.2, 0.3, 0.05])
    assert test.n == 5 and test.p_value == pytest.approx(0.0625)
    a, b = [0.2, 0.5, 0.1, 0.9, 0.4, 0.3, 0.8], [0.25, 0.2, 0.3, 0.6, 0.45, 0.1, 0.35]
    assert wilcoxon_signed_rank(a, b).p_value == pytest.approx(stats.wilcoxon(a, b).pvalue)
    same = wilcoxon_signed_rank([0.3, 0.4], [0.3, 0.4])
    assert same.p_value is None and same.reason == "no pairs differ"


def test_wilcoxon_option_agrees_with_scipy_and_bootstrap_is_seeded():
    a, b = [0.9, 0.7, 0.8, 0.95, 0.6, 0.85], [0.5, 0.65, 0.7, 0.6, 0.62, 0.4]
    w = paired_difference(a, b, method="wilcoxon")
    assert w.p_value == pytest.approx(stats.wilcoxon(a, b).pvalue) and w.significant is (w.p_value < 0.05)
    first, again = paired_difference(a, b), paired_difference(a, b)
    assert (first.low, first.high) == (again.low, again.high)
    assert first.low > 0 and first.significant
    diffs = np.subtract(a, b)
    boot = np.random.default_rng(0).integers(0, 6, size=(10_000, 6))
    assert first.low == pytest.approx(np.percentile(diffs[boot].mean(axis=1), 2.5))
