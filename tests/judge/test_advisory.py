"""Advisory checks (`advisory: true`, issue 35, item 3): measured, judged and shown, never blocking.

The family's Holm adjusted p's are checked against statsmodels' `multipletests` over the REQUIRED checks' raw p
only; an advisory tested check keeps its raw p (a family of one) and its MDE at alpha itself (scipy.stats.t)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import CheckVerdict, Verdict, VerdictSettings, judge_gate, judge_suite
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import Correction
from tests.judge.test_family import SIGNIFICANT, two_suites


def test_advisory_is_a_field_of_every_check_and_off_by_default():
    assert CheckConfig(min=0.8).advisory is False
    assert CheckConfig(min=0.8, advisory=True).advisory is True
    with pytest.raises(ValidationError):
        CheckConfig(advisory=True)  # still needs a bound


MIXED = {"f1": CheckConfig(max_decrease=0.0, significant=True),
         "f1b": CheckConfig(max_decrease=0.0, significant=True, advisory=True)}


@pytest.mark.parametrize("correction, method", [(Correction.HOLM, "holm"), (Correction.BH, "fdr_bh")])
def test_the_family_counts_required_checks_only(correction, method):
    suites, _ = two_suites(MIXED)
    gate = judge_gate("g", suites, settings=VerdictSettings(alpha=0.05, correction=correction))
    checks = [c for s in gate.suites for c in s.checks]
    required = [c for c in checks if not c.advisory]
    advisory = [c for c in checks if c.advisory]
    assert len(required) == len(advisory) == 6 and all(c.metric == "f1b" for c in advisory)
    assert gate.tested == 6 and gate.advisory_tested == 6
    raw = [c.change.p_value for c in required]
    assert [c.change.p_adjusted for c in required] == pytest.approx(list(multipletests(raw, method=method)[1]),
                                                                     rel=1e-12)
    # the same raw p's of the required checks as when the advisory metric was not configured at all
    alone_suites, _ = two_suites({"f1": MIXED["f1"]})
    assert raw == [c.change.p_value for s in alone_suites for c in s.checks]
    for check in advisory:  # tested alone: its own p at alpha, MDE at alpha (m = 1)
        change = check.change
        assert change.p_adjusted == change.p_value and change.alpha == 0.05
        assert change.significant is (change.p_value <= 0.05)
        expected = (scipy_stats.t.ppf(0.95, change.df) + scipy_stats.t.ppf(0.8, change.df)) * change.se
        assert change.mde == pytest.approx(expected, rel=1e-9)


def test_making_a_check_advisory_frees_the_required_checks_budget():
    """Holm over 12 checks vs over the 6 required ones: the required adjusted p's can only get smaller."""
    every, _ = two_suites(SIGNIFICANT)
    mixed, _ = two_suites(MIXED)
    full = judge_gate("g", every)
    part = judge_gate("g", mixed)
    assert (full.tested, part.tested) == (12, 6)
    before = [c.change.p_adjusted for s in full.suites for c in s.checks if c.metric == "f1"]
    after = [c.change.p_adjusted for s in part.suites for c in s.checks if c.metric == "f1"]
    assert all(a <= b + 1e-15 for a, b in zip(after, before, strict=True))


def result(value: float) -> SuiteResult:
    items = (Item((("id", "1"),), {"score": value}),)
    return SuiteResult("s", "stability", {"score": value, "other": 0.9},
                       (GroupResult("group", (("model", "m"),), {"score": value}, 1),), items, ("id", "score"))


def test_a_failing_advisory_check_leaves_the_suite_and_gate_passing():
    checks = {"score": CheckConfig(min=0.8, advisory=True), "other": CheckConfig(min=0.5, scope="suite")}
    suite = judge_suite(result(0.5), checks, UnmeasuredPolicy.WARN)
    failing = [c for c in suite.checks if c.verdict is CheckVerdict.FAIL]
    assert len(failing) == 1 and failing[0].advisory and failing[0].metric == "score"
    assert suite.verdict is Verdict.PASS and suite.group_verdict("group", (("model", "m"),)) is None
    assert suite.count(CheckVerdict.FAIL) == 0 and suite.count(CheckVerdict.FAIL, advisory=True) == 1
    gate = judge_gate("g", [suite])
    assert gate.verdict is gate.counts_as is Verdict.PASS and gate.advisory_count(CheckVerdict.FAIL) == 1


def test_a_failing_required_check_still_fails():
    checks = {"score": CheckConfig(min=0.8), "other": CheckConfig(min=0.5, scope="suite", advisory=True)}
    gate = judge_gate("g", [judge_suite(result(0.5), checks, UnmeasuredPolicy.WARN)])
    assert gate.verdict is Verdict.FAIL and gate.advisory_count(CheckVerdict.PASS) == 1


def test_an_unmeasured_advisory_check_never_counts_under_unmeasured_fail():
    checks = {"missing": CheckConfig(min=0.8, scope="suite", advisory=True)}
    suite = judge_suite(result(0.9), checks, UnmeasuredPolicy.FAIL)
    assert suite.checks[0].verdict is CheckVerdict.UNMEASURED and suite.verdict is Verdict.PASS
