"""`gate.stats.adjust` reproduces statsmodels' `multipletests` (Holm, Benjamini–Hochberg), in the order given,
on random p-values, ties and p = 1; `none` is the raw p-values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from gate.stats import Correction, adjust, strictest_level

METHODS = [(Correction.HOLM, "holm"), (Correction.BH, "fdr_bh")]


def reference(p, method: str) -> list[float]:
    # (statsmodels' Holm calls gc.collect() every time: ~50 ms under pytest, hence the modest family counts)
    return list(multipletests(np.asarray(p, dtype=float), alpha=0.05, method=method)[1])


@pytest.mark.parametrize("correction, method", METHODS)
def test_seeded_random_families_match_statsmodels(correction, method):
    rng = np.random.default_rng(2024)
    for _ in range(60):
        m = int(rng.integers(1, 30))
        p = rng.uniform(0, 1, m) ** rng.uniform(0.5, 4)  # skewed towards small p-values
        p[rng.random(m) < 0.15] = 1.0
        if m > 2:  # ties
            p[rng.integers(0, m, 2)] = p[0]
        assert adjust(list(p), correction) == pytest.approx(reference(p, method), rel=1e-12, abs=0)


@pytest.mark.parametrize("correction, method", METHODS)
@settings(max_examples=60, deadline=None)
@given(p=st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 1.0])), min_size=1, max_size=25))
def test_any_family_matches_statsmodels(correction, method, p):
    adjusted = adjust(p, correction)
    assert adjusted == pytest.approx(reference(p, method), rel=1e-12, abs=1e-300)
    assert all(a >= raw - 1e-15 and a <= 1.0 for a, raw in zip(adjusted, p, strict=True))


@pytest.mark.parametrize("correction, method", METHODS)
def test_hand_worked_family_of_four(correction, method):
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 → max-accumulated 0.06
    # BH:   sorted 0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04
    expected = {"holm": [0.03, 0.06, 0.06, 0.02], "fdr_bh": [0.02, 0.04, 0.04, 0.02]}[method]
    assert adjust(p, correction) == pytest.approx(expected, rel=1e-12)
    assert reference(p, method) == pytest.approx(expected, rel=1e-12)


def test_none_returns_the_raw_values_and_an_empty_family_is_empty():
    assert adjust([0.2, 0.01, 1.0], Correction.NONE) == [0.2, 0.01, 1.0]
    assert all(adjust([], c) == [] for c in Correction)


def test_a_family_of_one_is_its_raw_p():
    assert adjust([0.037], Correction.HOLM) == [0.037] == adjust([0.037], Correction.BH)


def test_the_strictest_level_is_alpha_over_m():
    assert strictest_level(0.05, 6) == pytest.approx(0.05 / 6)
    assert strictest_level(0.05, 1) == 0.05 == strictest_level(0.05, 0)
