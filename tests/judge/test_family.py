"""`gate.judge.family`: one false-alarm budget shared by every significance-tested check of the gate.

Adjusted p-values are checked against statsmodels' `multipletests`, the MDE against scipy.stats.t.ppf at
alpha / m, and the point of issue 20 — an unchanged system rarely fails a gate of several correlated checks,
a real regression almost always does — by simulating both (blessed 3-run snapshots, fresh runs, seeded)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

from gate.baselines.snapshots import Snapshot, SnapshotComparison
from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import (
    Change,
    CheckResult,
    CheckVerdict,
    Op,
    SuiteVerdict,
    Verdict,
    VerdictSettings,
    decide,
    decide_family,
    judge_gate,
    judge_suite,
)
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import Correction, statistics

MODELS = ("a", "b", "c")
DEFAULTS = VerdictSettings()


# ---------------------------------------------------------------- simulated suites


def run_of(name: str, values: np.ndarray) -> SuiteResult:
    """values[model, item, metric] for metrics (f1, f1b): one group per model, its metrics the item means."""
    items, groups = [], []
    for m, model in enumerate(MODELS):
        key = (("model", model),)
        items += [Item((("id", str(i)), ("model", model)), {"f1": float(v[0]), "f1b": float(v[1])})
                  for i, v in enumerate(values[m])]
        groups.append(GroupResult("group", key, {"f1": float(values[m, :, 0].mean()),
                                                 "f1b": float(values[m, :, 1].mean())}, values.shape[1]))
    return SuiteResult(name, "drift", {"f1": float(values[..., 0].mean()), "f1b": float(values[..., 1].mean())},
                       tuple(groups), tuple(items), ("id", "model", "f1", "f1b"))


def draw(rng: np.random.Generator, truth: np.ndarray, noise: float = 0.05) -> np.ndarray:
    """One run: each item's true value plus run noise; f1b = f1 plus a little noise of its own (correlated)."""
    f1 = truth + rng.normal(0, noise, truth.shape)
    return np.stack([f1, f1 + rng.normal(0, 0.01, truth.shape)], axis=-1)


def bless(name: str, runs: list[np.ndarray]) -> Snapshot:
    def one(values: np.ndarray, day: int) -> Snapshot:
        return Snapshot.from_result(run_of(name, values), gate="g", created_at=f"2026-11-{day:02d}T00:00:00Z",
                                    commit=None, inputs_digest=None, tool_version="0")
    snapshot = one(runs[0], 1)
    for day, values in enumerate(runs[1:], start=2):
        snapshot = snapshot.add_run(one(values, day))
    return snapshot


def judged(name: str, current: np.ndarray, snapshot: Snapshot, checks: dict[str, CheckConfig],
           settings: VerdictSettings = DEFAULTS) -> SuiteVerdict:
    return judge_suite(run_of(name, current), checks, UnmeasuredPolicy.WARN,
                       SnapshotComparison(snapshot, f"baselines/metrics/{name}.json"), statistics.mean, settings)


def family_of(*suites: SuiteVerdict) -> list[CheckResult]:
    return [c for s in suites for c in s.checks if c.change is not None and c.change.p_adjusted is not None]


SIGNIFICANT = {"f1": CheckConfig(max_decrease=0.0, significant=True),
               "f1b": CheckConfig(max_decrease=0.0, significant=True)}  # 3 groups × 2 metrics = 6 tested checks


def test_an_unchanged_system_rarely_fails_and_a_real_regression_almost_always_does():
    """200 seeded gates of 6 tested checks (40 items per group, run noise sd 0.05, a snapshot blessed from 3
    runs). Holm keeps the share of gates with any FAIL within alpha (+ 3 binomial SEs); without a correction it
    is clearly higher; 30 % of one group's items dropping by 0.3 fails the gate in ≥ 95 % of gates."""
    gates, alpha = 200, 0.05
    holm_fails = none_fails = detected = 0
    for g in range(gates):
        rng = np.random.default_rng(1000 + g)
        truth = rng.uniform(0.6, 0.95, (len(MODELS), 40))
        snapshot = bless("s", [draw(rng, truth) for _ in range(3)])
        unchanged = judged("s", draw(rng, truth), snapshot, SIGNIFICANT)
        holm = judge_gate("g", [unchanged], settings=VerdictSettings(alpha=alpha))
        none = judge_gate("g", [unchanged], settings=VerdictSettings(alpha=alpha, correction=Correction.NONE))
        assert holm.tested == none.tested == 6
        holm_fails += holm.verdict is Verdict.FAIL
        none_fails += none.verdict is Verdict.FAIL
        broken = draw(rng, truth)
        broken[0, rng.choice(40, 12, replace=False), :] -= 0.3  # f = 30 % of model a's items
        regressed = judge_gate("g", [judged("s", broken, snapshot, SIGNIFICANT)],
                               settings=VerdictSettings(alpha=alpha))
        detected += regressed.verdict is Verdict.FAIL
    budget = alpha + 3 * math.sqrt(alpha * (1 - alpha) / gates)
    assert holm_fails / gates <= budget, (holm_fails, none_fails)
    assert none_fails > holm_fails + 0.03 * gates, (holm_fails, none_fails)
    assert detected / gates >= 0.95, detected


# ---------------------------------------------------------------- the gate-wide family


def two_suites(checks: dict[str, CheckConfig]) -> tuple[list[SuiteVerdict], list[float]]:
    """Two suites judged alone (as `run` does, suite by suite), and the raw p of every tested check in order."""
    rng = np.random.default_rng(7)
    suites = []
    for name, drop in (("s", 0.05), ("t", 0.0)):
        truth = rng.uniform(0.6, 0.95, (len(MODELS), 30))
        snapshot = bless(name, [draw(rng, truth) for _ in range(3)])
        current = draw(rng, truth)
        current[1] -= drop  # a small real drop in model b of suite s: a spread of p-values
        suites.append(judged(name, current, snapshot, checks))
    raw = [c.change.p_value for s in suites for c in s.checks if c.change.tested and c.change.p_value is not None]
    return suites, raw


@pytest.mark.parametrize("correction, method", [(Correction.HOLM, "holm"), (Correction.BH, "fdr_bh")])
def test_adjusted_p_across_suites_is_statsmodels_over_every_raw_p(correction, method):
    suites, raw = two_suites(SIGNIFICANT)
    gate = judge_gate("g", suites, settings=VerdictSettings(alpha=0.05, correction=correction))
    family = family_of(*gate.suites)
    assert len(raw) == len(family) == gate.tested == 12 and (gate.alpha, gate.correction) == (0.05, correction.value)
    assert [c.change.p_value for c in family] == raw
    expected = multipletests(raw, method=method)[1]
    assert [c.change.p_adjusted for c in family] == pytest.approx(list(expected), rel=1e-12)
    assert all(c.change.significant is (c.change.p_adjusted <= 0.05) for c in family)
    assert any(c.change.significant for c in family) and not all(c.change.significant for c in family)


def test_without_a_correction_each_check_keeps_its_raw_p():
    suites, raw = two_suites(SIGNIFICANT)
    gate = judge_gate("g", suites, settings=VerdictSettings(correction=Correction.NONE))
    assert [c.change.p_adjusted for c in family_of(*gate.suites)] == raw


def test_the_mde_is_at_alpha_over_the_familys_size():
    suites, _ = two_suites(SIGNIFICANT)
    gate = judge_gate("g", suites, settings=VerdictSettings(alpha=0.1))
    for check in family_of(*gate.suites):
        change = check.change
        level = 0.1 / 12
        expected = (scipy_stats.t.ppf(1 - level, change.df) + scipy_stats.t.ppf(0.8, change.df)) * change.se
        assert change.mde == pytest.approx(expected, rel=1e-9) and change.alpha == 0.1


def test_deciding_twice_gives_the_same_checks():
    suites, _ = two_suites(SIGNIFICANT)
    once, m = decide_family(suites, 0.05, Correction.HOLM)
    twice, m2 = decide_family(once, 0.05, Correction.HOLM)
    assert (m, m2) == (12, 12) and [s.checks for s in twice] == [s.checks for s in once]


UNDERPOWERED = {"f1": CheckConfig(max_decrease=0.001, significant=True),  # far below what 30 items can see
                "f1b": CheckConfig(max_decrease=0.0, significant=True)}


def test_an_underpowered_check_stays_in_the_gate_family():
    suites, raw = two_suites(UNDERPOWERED)
    assert any(c.verdict is CheckVerdict.INCONCLUSIVE for s in suites for c in s.checks)  # judged alone
    gate = judge_gate("g", suites)
    family = family_of(*gate.suites)
    assert gate.tested == len(raw) == 12
    assert [c.change.p_adjusted for c in family] == pytest.approx(list(multipletests(raw, method="holm")[1]))


def test_judge_suite_decides_a_suite_on_its_own_family():
    suites, _ = two_suites(SIGNIFICANT)
    alone = family_of(suites[0])
    raw = [c.change.p_value for c in alone]
    assert [c.change.p_adjusted for c in alone] == pytest.approx(list(multipletests(raw, method="holm")[1]))


def test_an_untested_change_check_reports_its_mde_at_alpha_and_keeps_its_point_verdict():
    suites, _ = two_suites({"f1": CheckConfig(max_decrease=0.001)})
    gate = judge_gate("g", suites)
    assert gate.tested == 0
    for check in (c for s in gate.suites for c in s.checks):
        change = check.change
        assert change.tested is False and change.p_adjusted is None and change.significant is None
        assert change.mde == pytest.approx(
            (scipy_stats.t.ppf(0.95, change.df) + scipy_stats.t.ppf(0.8, change.df)) * change.se, rel=1e-9)
        assert check.verdict is (CheckVerdict.FAIL if check.value < -0.001 - 1e-9 else CheckVerdict.PASS)


# ---------------------------------------------------------------- one check decided: significance, bound, power


def raw_check(value: float, se: float, p: float, *, fail: float = -0.05, warn: float | None = None,
              op: Op = Op.MIN, df: float = 9) -> CheckResult:
    change = Change(0.8, 0.8 + value, "max_decrease" if op is Op.MIN else "max_increase", n=10, tested=True,
                    estimate=value, se=se, df=df, method="paired t-test", p_value=p)
    return CheckResult("f1", "group", (("model", "a"),), op, fail, warn, value, CheckVerdict.PASS, change=change)


def planned_mde(se: float, df: float, level: float) -> float:
    return (scipy_stats.t.ppf(1 - level, df) + scipy_stats.t.ppf(0.8, df)) * se


def test_an_underpowered_check_that_is_significant_and_past_its_bound_still_fails():
    check = decide(raw_check(-0.2, se=0.05, p=0.002), 0.004, 0.05, 2)
    assert planned_mde(0.05, 9, 0.025) > 0.05  # it could not have seen a drop of 0.05 …
    assert check.verdict is CheckVerdict.FAIL and check.change.underpowered is True  # … but it saw one of 0.2
    assert check.change.mde == pytest.approx(planned_mde(0.05, 9, 0.025), rel=1e-9) and check.reason is None


@pytest.mark.parametrize("value, p", [(-0.02, 0.35), (-0.1, 0.06)])  # within the bound, or past it by noise
def test_an_underpowered_check_that_is_not_significant_is_inconclusive(value, p):
    check = decide(raw_check(value, se=0.05, p=p), p, 0.05, 1)
    assert check.verdict is CheckVerdict.INCONCLUSIVE and check.change.underpowered is True
    assert "underpowered" in check.reason and f"{planned_mde(0.05, 9, 0.05):.3g}" in check.reason
    assert check.change.significant is False


@pytest.mark.parametrize("value, p_adjusted, warn, expected", [
    (-0.06, 0.001, None, CheckVerdict.FAIL),   # significant and past the bound
    (-0.06, 0.2, None, CheckVerdict.PASS),     # past the bound, but within the noise
    (-0.03, 0.001, None, CheckVerdict.PASS),   # significant, within the bound: real but small enough
    (-0.03, 0.001, -0.02, CheckVerdict.WARN),  # significant and past the warn level
    (-0.03, 0.3, -0.02, CheckVerdict.PASS),    # past the warn level by noise
    (-0.06, 0.05, None, CheckVerdict.FAIL),    # p exactly alpha is significant
])
def test_a_well_powered_check_fails_only_when_significant_and_past_its_bound(value, p_adjusted, warn, expected):
    check = decide(raw_check(value, se=0.005, p=p_adjusted, warn=warn, df=40), p_adjusted, 0.05, 3)
    assert check.change.underpowered is False and check.verdict is expected
    assert check.change.p_adjusted == p_adjusted and check.change.significant is (p_adjusted <= 0.05)
    assert check.change.mde == pytest.approx(planned_mde(0.005, 40, 0.05 / 3), rel=1e-9)


def test_an_increase_bound_is_decided_the_same_way():
    rise = decide(raw_check(0.07, se=0.005, p=0.001, fail=0.05, op=Op.MAX, df=40), 0.001, 0.05, 1)
    noise = decide(raw_check(0.07, se=0.005, p=0.3, fail=0.05, op=Op.MAX, df=40), 0.3, 0.05, 1)
    assert (rise.verdict, noise.verdict) == (CheckVerdict.FAIL, CheckVerdict.PASS)


def test_a_bound_of_zero_is_never_underpowered():
    check = decide(raw_check(-0.01, se=0.5, p=0.49, fail=0.0), 0.49, 0.05, 1)
    assert check.change.underpowered is False and check.verdict is CheckVerdict.PASS


def test_deciding_a_decided_check_again_changes_nothing():
    for check in (raw_check(-0.2, 0.05, 0.002), raw_check(-0.02, 0.05, 0.35), raw_check(-0.06, 0.005, 0.001, df=40)):
        once = decide(check, check.change.p_value, 0.05, 2)
        assert decide(once, check.change.p_value, 0.05, 2) == once


# ---------------------------------------------------------------- gate.yml


def test_confidence_in_a_check_is_an_error_that_names_alpha(tmp_path):
    from gate.config.loader import load_config
    from gate.errors import ConfigError, ExitCode
    from gate.kinds import KINDS

    path = tmp_path / "gate.yml"
    path.write_text("version: 1\nsuites:\n  fb:\n    kind: drift\n    baseline: base/*.json\n"
                    "    candidates: out.jsonl\n    checks:\n"
                    "      bertscore_f1: {max_decrease: 0.02, significant: true, confidence: 0.9}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, metrics=KINDS)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    [problem] = caught.value.problems
    assert problem.line == 8 and problem.field == "suites.fb.checks.bertscore_f1"
    assert "`alpha: 0.1`" in problem.fix and problem.render().startswith(f"{path}:8")
