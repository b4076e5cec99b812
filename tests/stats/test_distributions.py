"""gate.stats.distributions against scipy.special (and mpmath at 40 digits where scipy's own error shows)."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import special

from gate.stats import distributions as d

DFS = (0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7.3, 10, 29.7, 50, 100, 333.3, 1_000, 10_000, 100_000)
TS = (*(-np.logspace(-8, 2.5, 40)), 0.0, *np.logspace(-8, 2.5, 40))
PS = (1e-30, 1e-12, 1e-6, 1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.45, 0.5, 0.55, 0.8, 0.9, 0.95, 0.975,
      0.99, 0.999, 1 - 1e-6, 1 - 1e-12)


def _close(mine: float, reference: float, rel: float) -> bool:
    return mine == reference or abs(mine - reference) <= rel * abs(reference)


@pytest.mark.parametrize("df", DFS)
def test_t_cdf_is_scipy_stdtr(df: float) -> None:
    # near t = 0 with one degree of freedom stdtr itself loses digits: there the Cauchy's closed form is the reference
    reference = [0.5 + math.atan(t) / math.pi if df == 1 and abs(t) < 1e-3 else float(special.stdtr(df, t))
                 for t in TS]
    bad = [(t, d.t_cdf(df, t), r) for t, r in zip(TS, reference, strict=True) if not _close(d.t_cdf(df, t), r, 1e-11)]
    assert not bad


@pytest.mark.parametrize("df", DFS)
def test_t_quantile_is_scipy_stdtrit(df: float) -> None:
    bad = [(p, d.t_quantile(df, p), special.stdtrit(df, p)) for p in PS
           if not _close(d.t_quantile(df, p), float(special.stdtrit(df, p)), 1e-10)]
    assert not bad


def test_t_quantile_inverts_t_cdf_where_scipy_overflows() -> None:
    for df in (2.5, 5, 10):
        t = d.t_quantile(df, 1e-250)  # scipy answers -inf here
        assert math.isfinite(t) and t < -1e20
        assert _close(d.t_cdf(df, t), 1e-250, 1e-8)


def test_huge_degrees_of_freedom_against_mpmath() -> None:
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    for df in (1e5, 1e6, 1e7):
        for t in (-30.0, -5.0, -2.0, -0.1, 1.96, 4.0):
            x = mpmath.mpf(df) / (mpmath.mpf(df) + mpmath.mpf(t) ** 2)
            tail = mpmath.betainc(mpmath.mpf(df) / 2, mpmath.mpf(1) / 2, 0, x, regularized=True) / 2
            assert _close(d.t_cdf(df, t), float(1 - tail if t > 0 else tail), 1e-9)


def test_infinite_df_is_the_normal() -> None:
    for t in TS:
        assert _close(d.t_cdf(math.inf, t), float(special.ndtr(t)), 1e-14)
    for p in PS:
        assert _close(d.t_quantile(math.inf, p), float(special.ndtri(p)), 1e-13)
        assert _close(d.normal_quantile(p), float(special.ndtri(p)), 1e-13)


@pytest.mark.parametrize("dfn", (1, 2, 3, 5, 10, 50.5, 100, 1_000))
def test_f_sf_is_scipy_fdtrc(dfn: float) -> None:
    bad = [(dfd, x) for dfd in (1, 2, 3.3, 10, 100, 1e4, 1e6)
           for x in (0, 1e-6, 0.01, 0.1, 0.5, 1, 1.5, 2, 5, 10, 100, 1e4)
           if not _close(d.f_sf(dfn, dfd, x), float(special.fdtrc(dfn, dfd, x)), 1e-10)]
    # fdtrc answers NaN for an infinite denominator; the limit is χ²(dfn)/dfn, i.e. chdtrc(dfn, dfn·x)
    bad += [(math.inf, x) for x in (0, 1e-6, 0.01, 0.1, 0.5, 1, 1.5, 2, 5, 10, 100)
            if not _close(d.f_sf(dfn, math.inf, x), float(special.chdtrc(dfn, dfn * x)), 1e-10)]
    assert not bad


def test_degenerate_inputs() -> None:
    assert math.isnan(d.t_cdf(0, 1.0)) and math.isnan(d.t_cdf(3, math.nan)) and math.isnan(d.t_quantile(3, 1.5))
    assert d.t_cdf(3, math.inf) == 1.0 and d.t_cdf(3, -math.inf) == 0.0
    assert d.t_quantile(3, 0) == -math.inf and d.t_quantile(3, 1) == math.inf and d.t_quantile(3, 0.5) == 0.0
    assert d.f_sf(2, 3, 0) == 1.0 and d.f_sf(2, 3, math.inf) == 0.0 and math.isnan(d.f_sf(2, 3, -1))
    assert d.normal_quantile(0) == -math.inf and d.normal_quantile(1) == math.inf


def test_judging_imports_no_scipy() -> None:
    """The point of the module: the change tests run without importing scipy (~0.3 s of a cached run)."""
    code = ("import sys; import numpy as np; from gate.stats import change_test, wilcoxon_signed_rank; "
            "from gate.stats.statistics import mean; rng = np.random.default_rng(0); "
            "t = change_test(rng.random((30, 1)), rng.random((30, 1)), mean('x'), runs=3, run_sd=0.2); "
            "t.p_value('decrease'); t.mde(0.05); "
            "wilcoxon_signed_rank([1.0, 2.5, 3.1, 0.2] * 20, [0.5, 2.0, 3.3, 0.1] * 20); "
            "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
