"""Waivers (`gate.judge.waivers`, gate.yml's `waivers:`): a known regression accepted for a while, shown as
waived — never as passed — with its reason and owner; an expired or stale waiver says so. And what an
inconclusive gate counts as under each `inconclusive:` policy."""

from __future__ import annotations

import datetime as dt

import pytest

from gate.config import InconclusivePolicy, UnmeasuredPolicy, Waiver
from gate.config.loader import load_config
from gate.errors import ConfigError, ExitCode
from gate.judge import (
    CheckResult,
    CheckVerdict,
    GateVerdict,
    Op,
    SuiteVerdict,
    Verdict,
    VerdictSettings,
    WaiverInfo,
    apply_waivers,
    judge_gate,
)
from gate.kinds import KINDS
from gate.results import SuiteResult

TODAY = dt.date(2026, 11, 22)
A, B = (("model", "a"),), (("model", "b"),)


def check(verdict: CheckVerdict, key=A, metric: str = "f1", scope: str = "group") -> CheckResult:
    return CheckResult(metric, scope, key, Op.MIN, 0.8, None, 0.7, verdict, suite="rag")


def suite(*checks: CheckResult, name: str = "rag") -> SuiteVerdict:
    result = SuiteResult(name, "rag", {}, (), (), ())
    return SuiteVerdict(result, tuple(checks), Verdict.PASS, UnmeasuredPolicy.WARN)


def waiver(expires: dt.date = dt.date(2026, 12, 31), **fields) -> Waiver:
    return Waiver(**{"suite": "rag", "metric": "f1", "reason": "new retriever, tuning in #412", "owner": "@ana",
                     "expires": expires, **fields})


def gate_of(*suites: SuiteVerdict, waivers=(), today=TODAY) -> GateVerdict:
    return judge_gate("g", list(suites), settings=VerdictSettings(waivers=tuple(waivers), today=today))


def test_a_failing_check_matched_is_waived_not_passed_and_the_gate_no_longer_fails():
    assert gate_of(suite(check(CheckVerdict.FAIL))).verdict is Verdict.FAIL
    gate = gate_of(suite(check(CheckVerdict.FAIL)), waivers=[waiver()])
    [[waived]] = [s.checks for s in gate.suites]
    assert waived.verdict is CheckVerdict.WAIVED and waived.verdict is not CheckVerdict.PASS
    assert waived.waiver == WaiverInfo("new retriever, tuning in #412", "@ana", "2026-12-31", False, "fail")
    assert gate.suites[0].verdict is Verdict.PASS and gate.verdict is Verdict.PASS and gate.notes == ()
    assert gate.suites[0].count(CheckVerdict.WAIVED) == 1 and gate.suites[0].count(CheckVerdict.PASS) == 0


@pytest.mark.parametrize("verdict", [CheckVerdict.WARN, CheckVerdict.INCONCLUSIVE, CheckVerdict.UNMEASURED])
def test_any_result_that_did_not_pass_can_be_waived(verdict):
    [waived_suite], _ = apply_waivers([suite(check(verdict))], [waiver()], TODAY)
    [waived] = waived_suite.checks
    assert waived.verdict is CheckVerdict.WAIVED and waived.waiver.replaced == verdict.value


def test_a_waiver_works_through_its_last_day_and_not_after():
    last_day, _ = apply_waivers([suite(check(CheckVerdict.FAIL))], [waiver(expires=TODAY)], TODAY)
    assert last_day[0].checks[0].verdict is CheckVerdict.WAIVED
    gate = gate_of(suite(check(CheckVerdict.FAIL)), waivers=[waiver(expires=TODAY - dt.timedelta(days=1))])
    [failed] = gate.suites[0].checks
    assert failed.verdict is CheckVerdict.FAIL and gate.verdict is Verdict.FAIL
    assert failed.waiver == WaiverInfo("new retriever, tuning in #412", "@ana", "2026-11-21", True, None)
    assert gate.notes == ("waiver for rag.f1 (@ana) expired on 2026-11-21 and no longer applies",)


def test_a_waiver_matching_nothing_is_a_note():
    gate = gate_of(suite(check(CheckVerdict.FAIL)), waivers=[waiver(metric="f1_typo"), waiver(suite="other")])
    assert gate.verdict is Verdict.FAIL and gate.suites[0].checks[0].waiver is None
    assert gate.notes == ("waiver for rag.f1_typo (@ana) matches no check: remove it or fix its suite/metric",
                          "waiver for other.f1 (@ana) matches no check: remove it or fix its suite/metric")


def test_where_and_scope_narrow_a_waiver():
    checks = [check(CheckVerdict.FAIL, A), check(CheckVerdict.FAIL, B), check(CheckVerdict.FAIL, (), scope="suite")]
    by_where, _ = apply_waivers([suite(*checks)], [waiver(where={"model": "a"})], TODAY)
    assert [c.verdict for c in by_where[0].checks] == [CheckVerdict.WAIVED, CheckVerdict.FAIL, CheckVerdict.FAIL]
    by_scope, _ = apply_waivers([suite(*checks)], [waiver(scope="suite")], TODAY)
    assert [c.verdict for c in by_scope[0].checks] == [CheckVerdict.FAIL, CheckVerdict.FAIL, CheckVerdict.WAIVED]
    everything, _ = apply_waivers([suite(*checks)], [waiver()], TODAY)
    assert all(c.verdict is CheckVerdict.WAIVED for c in everything[0].checks)
    nothing, notes = apply_waivers([suite(*checks)], [waiver(where={"model": "c"})], TODAY)
    assert all(c.verdict is CheckVerdict.FAIL for c in nothing[0].checks) and "matches no check" in notes[0]


def test_a_waiver_names_its_suite_and_metric():
    other_suite = suite(check(CheckVerdict.FAIL), name="drift")
    other_metric = suite(check(CheckVerdict.FAIL, metric="recall"))
    out, _ = apply_waivers([other_suite, other_metric], [waiver()], TODAY)
    assert [s.checks[0].verdict for s in out] == [CheckVerdict.FAIL, CheckVerdict.FAIL]


def test_a_passing_check_matched_stays_passed_with_the_waiver_shown():
    gate = gate_of(suite(check(CheckVerdict.PASS)), waivers=[waiver()])
    [passed] = gate.suites[0].checks
    assert passed.verdict is CheckVerdict.PASS and gate.notes == ()
    assert passed.waiver == WaiverInfo("new retriever, tuning in #412", "@ana", "2026-12-31", False, None)


def test_without_the_runs_date_no_waiver_applies():
    gate = gate_of(suite(check(CheckVerdict.FAIL)), waivers=[waiver()], today=None)
    assert gate.verdict is Verdict.FAIL and gate.suites[0].checks[0].waiver is None


def test_a_renewed_waiver_applies_whatever_its_order():
    expired, renewed = waiver(expires=dt.date(2026, 10, 31)), waiver(expires=dt.date(2027, 1, 31))
    gate = gate_of(suite(check(CheckVerdict.FAIL)), waivers=[expired, renewed])
    assert gate.suites[0].checks[0].verdict is CheckVerdict.WAIVED
    assert not any("matches no check" in note for note in gate.notes)


# ---------------------------------------------------------------- what an inconclusive gate counts as


@pytest.mark.parametrize("policy, expected", [
    (InconclusivePolicy.NEUTRAL, Verdict.INCONCLUSIVE), (InconclusivePolicy.WARN, Verdict.WARN),
    (InconclusivePolicy.FAIL, Verdict.FAIL), (InconclusivePolicy.PASS, Verdict.PASS)])
def test_an_inconclusive_gate_counts_as_its_policy_says(policy, expected):
    gate = judge_gate("g", [suite(check(CheckVerdict.PASS), check(CheckVerdict.INCONCLUSIVE, B))],
                      settings=VerdictSettings(inconclusive=policy))
    assert gate.verdict is Verdict.INCONCLUSIVE and gate.inconclusive is policy
    assert gate.counts_as is expected


@pytest.mark.parametrize("verdict", [Verdict.PASS, Verdict.WARN, Verdict.FAIL, Verdict.SKIPPED])
@pytest.mark.parametrize("policy", list(InconclusivePolicy))
def test_other_verdicts_count_as_themselves_under_any_policy(verdict, policy):
    assert GateVerdict("g", verdict, (), inconclusive=policy).counts_as is verdict


def test_a_fail_outranks_an_inconclusive_and_an_inconclusive_outranks_a_warn():
    fail = judge_gate("g", [suite(check(CheckVerdict.INCONCLUSIVE), check(CheckVerdict.FAIL, B))])
    warn = judge_gate("g", [suite(check(CheckVerdict.INCONCLUSIVE), check(CheckVerdict.WARN, B))])
    assert (fail.verdict, warn.verdict) == (Verdict.FAIL, Verdict.INCONCLUSIVE)


# ---------------------------------------------------------------- gate.yml


GATE_YML = """\
version: 1
suites:
  fb:
    kind: drift
    baseline: base/*.json
    candidates: out.jsonl
waivers:
"""


def load(tmp_path, waivers: str):
    path = tmp_path / "gate.yml"
    path.write_text(GATE_YML + waivers)
    return load_config(path, metrics=KINDS), path


def test_a_waiver_loads_from_gate_yml(tmp_path):
    config, _ = load(tmp_path, "  - {suite: fb, metric: bertscore_f1, where: {model: gpt-4o}, reason: 'tuning, #412',"
                               " owner: '@ana', expires: 2026-12-31}\n")
    [loaded] = config.waivers
    assert (loaded.suite, loaded.metric, loaded.where, loaded.owner) == ("fb", "bertscore_f1", {"model": "gpt-4o"},
                                                                         "@ana")
    assert loaded.reason == "tuning, #412"
    assert loaded.expires == dt.date(2026, 12, 31) and loaded.scope is None


@pytest.mark.parametrize("missing", ["reason", "owner", "expires"])
def test_a_waiver_without_reason_owner_or_expiry_is_a_located_error(tmp_path, missing):
    fields = {"suite": "fb", "metric": "bertscore_f1", "reason": "tuning in #412", "owner": "'@ana'",
              "expires": "2026-12-31"}
    text = "  - suite: fb\n" + "".join(f"    {k}: {v}\n" for k, v in fields.items() if k not in ("suite", missing))
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    [problem] = caught.value.problems
    assert problem.field == f"waivers.0.{missing}" and problem.line == 8
    assert problem.expected == "this required field" and f"`{missing}:`" in problem.fix
    assert f"gate.yml:8, field 'waivers.0.{missing}'" in problem.render()


@pytest.mark.parametrize("field, value", [("reason", "'   '"), ("owner", "''"), ("expires", "someday")])
def test_a_blank_reason_or_owner_or_a_bad_date_is_a_located_error(tmp_path, field, value):
    text = "  - {suite: fb, metric: bertscore_f1, reason: tuning, owner: '@ana', expires: 2026-12-31}\n"
    text = text.replace({"reason": "tuning", "owner": "'@ana'", "expires": "2026-12-31"}[field], value)
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    [problem] = caught.value.problems
    assert problem.field == f"waivers.0.{field}" and problem.line == 8


def test_a_waiver_beyond_max_waiver_days_is_a_located_error_listing_all_of_them(tmp_path):
    """Issue 31: `expires: 9999-12-31` is a permanent pass in disguise; every such waiver is named at once."""
    text = ("  - {suite: fb, metric: bertscore_f1, reason: forever, owner: '@ana', expires: 9999-12-31}\n"
            "  - {suite: fb, metric: bertscore_f1, reason: in bounds, owner: '@ana', expires: 2027-02-20}\n"
            "  - {suite: fb, metric: credit_drift_mean, reason: a year, owner: '@bo', expires: 2027-11-22}\n")
    path = tmp_path / "gate.yml"
    path.write_text(GATE_YML + text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, metrics=KINDS, today=TODAY)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    first, third = caught.value.problems
    assert (first.field, first.line, third.field, third.line) == ("waivers.0.expires", 8, "waivers.2.expires", 10)
    assert "at most max_waiver_days (90) after today (2026-11-22), i.e. on or before 2027-02-20" in first.expected
    assert first.found.startswith("9999-12-31 (") and "fb.bertscore_f1" in first.found
    assert "gate.yml:8, field 'waivers.0.expires'" in first.render()


def test_a_waiver_within_max_waiver_days_loads_and_the_horizon_is_configurable(tmp_path):
    text = "  - {suite: fb, metric: bertscore_f1, reason: tuning, owner: '@ana', expires: 2027-02-20}\n"
    path = tmp_path / "gate.yml"
    path.write_text(GATE_YML + text)
    assert load_config(path, metrics=KINDS, today=TODAY).waivers[0].expires == dt.date(2027, 2, 20)
    path.write_text(GATE_YML + text + "max_waiver_days: 30\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, metrics=KINDS, today=TODAY)
    assert "at most max_waiver_days (30)" in caught.value.problems[0].expected


def test_an_expired_waiver_is_not_a_config_error(tmp_path):
    path = tmp_path / "gate.yml"
    path.write_text(GATE_YML + "  - {suite: fb, metric: bertscore_f1, reason: done, owner: '@a', "
                                "expires: 2020-01-01}\n")
    assert load_config(path, metrics=KINDS, today=TODAY).waivers[0].expires == dt.date(2020, 1, 1)


def test_a_group_kept_from_failing_only_by_a_waiver_is_shown_waived_not_passed():
    gate = gate_of(suite(check(CheckVerdict.FAIL), check(CheckVerdict.PASS, key=B),
                         check(CheckVerdict.PASS, key=A, metric="mrr")), waivers=[waiver()])
    [shown] = gate.suites
    assert shown.group_verdict("group", A) is Verdict.PASS  # what the suite's verdict counts
    assert shown.group_shown("group", A) is CheckVerdict.WAIVED  # what its icon shows: 🔕, never ✅
    assert shown.group_shown("group", B) is Verdict.PASS
    assert gate_of(suite(check(CheckVerdict.FAIL), check(CheckVerdict.FAIL, metric="mrr")),
                   waivers=[waiver()]).suites[0].group_shown("group", A) is Verdict.FAIL  # still failing: shown so
