"""The judge against hand-worked thresholds: boundaries, warn levels, scopes, unmeasured, verdicts."""

from __future__ import annotations

import pytest

from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import CheckVerdict, Op, Verdict, judge_gate, judge_suite, judge_value
from gate.results import GroupResult, SuiteResult, Unmeasured


@pytest.mark.parametrize("value, expected", [
    (0.79, CheckVerdict.FAIL), (0.80, CheckVerdict.PASS), (0.81, CheckVerdict.PASS), (None, CheckVerdict.UNMEASURED),
])
def test_min_without_warn(value, expected):
    assert judge_value(value, Op.MIN, 0.8, None) is expected


@pytest.mark.parametrize("value, expected", [
    (0.799, CheckVerdict.FAIL), (0.8, CheckVerdict.WARN), (0.849, CheckVerdict.WARN), (0.85, CheckVerdict.PASS),
])
def test_min_with_warn(value, expected):
    assert judge_value(value, Op.MIN, 0.8, 0.85) is expected


@pytest.mark.parametrize("value, expected", [
    (3.01, CheckVerdict.FAIL), (3.0, CheckVerdict.WARN), (2.51, CheckVerdict.WARN), (2.5, CheckVerdict.PASS),
    (0.0, CheckVerdict.PASS),
])
def test_max_with_warn(value, expected):
    assert judge_value(value, Op.MAX, 3.0, 2.5) is expected


def result(groups, metrics=None, unmeasured=()):
    return SuiteResult(name="s", kind="drift", metrics=metrics or {}, groups=tuple(groups), items=(),
                       item_columns=(), unmeasured=tuple(unmeasured))


A = (("exercise", "1"), ("model", "a"))
B = (("exercise", "1"), ("model", "b"))
MA = (("model", "a"),)


def test_scopes_select_their_groups_and_suite_verdict_is_the_worst():
    r = result([GroupResult("group", A, {"f1": 0.9, "d": 1.0}, 3), GroupResult("group", B, {"f1": 0.82, "d": 4.0}, 3),
                GroupResult("model", MA, {"f1": 0.9}, 3)], metrics={"f1": 0.86})
    verdict = judge_suite(r, {"f1": CheckConfig(min=0.8, warn=0.85), "d": CheckConfig(max=3.0)}, UnmeasuredPolicy.WARN)
    by = {(c.metric, c.key): c.verdict for c in verdict.checks}
    assert by == {("f1", A): CheckVerdict.PASS, ("f1", B): CheckVerdict.WARN,
                  ("d", A): CheckVerdict.PASS, ("d", B): CheckVerdict.FAIL}
    assert verdict.verdict is Verdict.FAIL
    assert verdict.group_verdict("group", A) is Verdict.PASS
    assert verdict.group_verdict("group", B) is Verdict.FAIL
    assert verdict.group_verdict("model", MA) is None  # no check looks at it
    suite_level = judge_suite(r, {"f1": CheckConfig(min=0.87, scope="suite")}, UnmeasuredPolicy.WARN)
    [check] = suite_level.checks
    assert (check.key, check.value, check.verdict) == ((), 0.86, CheckVerdict.FAIL)
    model_level = judge_suite(r, {"f1": CheckConfig(min=0.95, scope="model")}, UnmeasuredPolicy.WARN)
    assert [c.key for c in model_level.checks] == [MA]


def test_min_and_max_on_one_metric_are_two_checks():
    r = result([GroupResult("group", A, {"f1": 0.5}, 1)])
    verdict = judge_suite(r, {"f1": CheckConfig(min=0.1, max=0.4)}, UnmeasuredPolicy.WARN)
    assert [(c.op, c.verdict) for c in verdict.checks] == [(Op.MIN, CheckVerdict.PASS), (Op.MAX, CheckVerdict.FAIL)]


@pytest.mark.parametrize("policy, expected", [(UnmeasuredPolicy.WARN, Verdict.WARN),
                                              (UnmeasuredPolicy.FAIL, Verdict.FAIL)])
def test_unmeasured_is_never_a_pass(policy, expected):
    r = result([GroupResult("group", A, {"f1": None}, 0)], unmeasured=[Unmeasured(A, "f1", "no candidates")])
    verdict = judge_suite(r, {"f1": CheckConfig(min=0.8)}, policy)
    [check] = verdict.checks
    assert check.verdict is CheckVerdict.UNMEASURED and check.value is None
    assert check.reason == "no candidates"
    assert verdict.verdict is expected


def test_a_level_without_groups_is_unmeasured():
    verdict = judge_suite(result([]), {"f1": CheckConfig(min=0.8)}, UnmeasuredPolicy.WARN)
    [check] = verdict.checks
    assert check.verdict is CheckVerdict.UNMEASURED and "no group groups" in check.reason


def test_gate_verdict_is_the_worst_suite_and_skipped_without_suites():
    passing = judge_suite(result([GroupResult("group", A, {"f1": 0.9}, 1)]), {"f1": CheckConfig(min=0.8)},
                          UnmeasuredPolicy.WARN)
    warning = judge_suite(result([GroupResult("group", A, {"f1": 0.82}, 1)]), {"f1": CheckConfig(min=0.8, warn=0.85)},
                          UnmeasuredPolicy.WARN)
    assert judge_gate("g", [passing]).verdict is Verdict.PASS
    assert judge_gate("g", [passing, warning]).verdict is Verdict.WARN
    skipped = judge_gate("g", [], "--suite x* matched no suite")
    assert skipped.verdict is Verdict.SKIPPED and skipped.skipped_reason == "--suite x* matched no suite"


def test_rounding_noise_at_a_threshold_is_on_the_threshold():
    value = 2.4 / 3  # the mean of 0.9, 0.7 and 0.8 as math.fsum computes it
    assert value < 0.8
    assert judge_value(value, Op.MIN, 0.8, None) is CheckVerdict.PASS
    assert judge_value(0.8 - 1e-6, Op.MIN, 0.8, None) is CheckVerdict.FAIL
    assert judge_value(3.0 + 1e-12, Op.MAX, 3.0, None) is CheckVerdict.PASS


def test_a_check_applies_only_to_the_groups_that_have_its_metric():
    # a rubric's category metric exists only in its category's groups: the others are not "unmeasured"
    coding, writing = (("model", "a"), ("category", "coding")), (("model", "a"), ("category", "writing"))
    r = result([GroupResult("group", coding, {"correctness_mean": 4.0, "final_score_mean": 6.0}, 3),
                GroupResult("group", writing, {"final_score_mean": 7.0}, 3)])
    verdict = judge_suite(r, {"correctness_mean": CheckConfig(min=5.0)}, UnmeasuredPolicy.WARN)
    assert [(c.key, c.verdict) for c in verdict.checks] == [(coding, CheckVerdict.FAIL)]
    # a group that has the metric but could not measure it is still unmeasured, never skipped
    r = result([GroupResult("group", coding, {"correctness_mean": None}, 3),
                GroupResult("group", writing, {"final_score_mean": 7.0}, 3)],
               unmeasured=[Unmeasured(coding, "correctness_mean", "no responses")])
    [check] = judge_suite(r, {"correctness_mean": CheckConfig(min=5.0)}, UnmeasuredPolicy.WARN).checks
    assert check.verdict is CheckVerdict.UNMEASURED and check.reason == "no responses"
    # no group has it at all: every group is unmeasured (a typo never silently passes)
    [one, two] = judge_suite(r, {"typo_mean": CheckConfig(min=5.0)}, UnmeasuredPolicy.WARN).checks
    assert one.verdict is two.verdict is CheckVerdict.UNMEASURED
