"""JUnit XML: counts, names, failure messages, warnings, unmeasured, policy, skipped gate, hostile
strings — and every document validates against the common (Jenkins xunit junit-10) schema."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import judge_gate, judge_suite
from gate.report.junit import junit_xml, xml_text
from gate.results import GroupResult, SuiteResult, Unmeasured

SCHEMA = xmlschema.XMLSchema(Path(__file__).resolve().parent.parent / "support" / "junit.xsd")
STAMP = "2024-05-01T12:00:00+00:00"

A = (("exercise", "14676"), ("model", "llama"))
B = (("exercise", "14677"), ("model", "llama"))
C = (("exercise", "14678"), ("model", "llama"))
M = (("model", "llama"),)


def suite_result(name, groups, metrics=None, unmeasured=(), kind="drift"):
    return SuiteResult(name=name, kind=kind, metrics=metrics or {}, groups=tuple(groups), items=(), item_columns=(),
                       unmeasured=tuple(unmeasured))


def render(gate):
    text = junit_xml(gate, STAMP)
    SCHEMA.validate(text)  # raises with the offending path when invalid
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    return text, ET.fromstring(text.encode("utf-8"))


def drift_gate(policy=UnmeasuredPolicy.WARN):
    """A: passes, B: f1 fails, C: f1 warns and credit drift is unmeasured; a suite-level check passes."""
    result = suite_result("feedback-drift", [
        GroupResult("group", A, {"bertscore_f1": 0.91, "credit_drift_mean": 1.0}, 3),
        GroupResult("group", B, {"bertscore_f1": 0.518, "credit_drift_mean": 2.0}, 3),
        GroupResult("group", C, {"bertscore_f1": 0.72, "credit_drift_mean": None}, 0),
        GroupResult("model", M, {"bertscore_f1": 0.72}, 9),
    ], metrics={"coverage": 1.0}, unmeasured=[Unmeasured(C, "credit_drift_mean", "no candidates for exercise 14678")])
    checks = {"bertscore_f1": CheckConfig(min=0.7, warn=0.75), "credit_drift_mean": CheckConfig(max=3.0),
              "coverage": CheckConfig(min=0.9, scope="suite")}
    drift = judge_suite(result, checks, policy)
    other = judge_suite(suite_result("second", [GroupResult("group", M, {"f1": 0.9}, 1)]),
                        {"f1": CheckConfig(min=0.5)}, policy)
    return judge_gate("quality", [drift, other])


def cases(root):
    return {case.get("name"): case for case in root.iter("testcase")}


def test_counts_names_and_suites():
    _, root = render(drift_gate())
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("name", "tests", "failures", "errors", "time")} == {
        "name": "quality", "tests": "8", "failures": "1", "errors": "0", "time": "0"}
    first, second = root.findall("testsuite")
    assert {k: first.get(k) for k in ("name", "tests", "failures", "errors", "skipped", "timestamp")} == {
        "name": "feedback-drift", "tests": "7", "failures": "1", "errors": "0", "skipped": "1", "timestamp": STAMP}
    assert (second.get("name"), second.get("tests"), second.get("failures"), second.get("skipped")) == (
        "second", "1", "0", "0")
    assert {p.get("name"): p.get("value") for p in first.iter("property")} == {
        "kind": "drift", "verdict": "fail", "unmeasured_policy": "warn"}
    names = [c.get("name") for c in first.findall("testcase")]
    assert names == [
        "bertscore_f1 [exercise 14676, model llama] (min 0.7)",
        "bertscore_f1 [exercise 14677, model llama] (min 0.7)",
        "bertscore_f1 [exercise 14678, model llama] (min 0.7)",
        "credit_drift_mean [exercise 14676, model llama] (max 3)",
        "credit_drift_mean [exercise 14677, model llama] (max 3)",
        "credit_drift_mean [exercise 14678, model llama] (max 3)",
        "coverage [suite] (min 0.9)",
    ]
    assert {c.get("classname") for c in first.findall("testcase")} == {"quality.feedback-drift"}
    assert all(c.get("time") == "0" for c in root.iter("testcase"))
    assert len(names) == len(set(names))  # CI systems key results by classname + name


def test_failed_check_is_a_failure_with_message_and_body():
    _, root = render(drift_gate())
    case = cases(root)["bertscore_f1 [exercise 14677, model llama] (min 0.7)"]
    [failure] = case.findall("failure")
    assert failure.get("message") == "bertscore_f1 = 0.518 < min 0.7"
    assert failure.get("type") == "fail"
    assert "exercise 14677, model llama" in failure.text and "below the minimum 0.7" in failure.text
    assert "warns below 0.75" in failure.text
    assert case.find("skipped") is None and case.find("system-out") is None


def test_max_check_failure_message():
    result = suite_result("s", [GroupResult("group", A, {"credit_drift_mean": 4.25}, 1)])
    gate = judge_gate("g", [judge_suite(result, {"credit_drift_mean": CheckConfig(max=3.0)}, UnmeasuredPolicy.WARN)])
    _, root = render(gate)
    [failure] = root.iter("failure")
    assert failure.get("message") == "credit_drift_mean = 4.25 > max 3"
    assert "above the maximum 3" in failure.text


def test_warned_check_passes_with_a_warning_on_system_out():
    _, root = render(drift_gate())
    case = cases(root)["bertscore_f1 [exercise 14678, model llama] (min 0.7)"]
    assert case.find("failure") is None and case.find("skipped") is None
    out = case.find("system-out").text
    assert out.startswith("warning: ") and "bertscore_f1 = 0.72 < warn 0.75" in out and "fails < 0.7" in out
    passed = cases(root)["bertscore_f1 [exercise 14676, model llama] (min 0.7)"]
    assert list(passed) == []  # a plain pass has no children


def test_unmeasured_check_is_skipped_under_the_default_policy():
    _, root = render(drift_gate(UnmeasuredPolicy.WARN))
    case = cases(root)["credit_drift_mean [exercise 14678, model llama] (max 3)"]
    [skipped] = case.findall("skipped")
    assert skipped.get("message") == "unmeasured: no candidates for exercise 14678"
    assert case.find("failure") is None


def test_unmeasured_check_fails_under_policy_fail():
    _, root = render(drift_gate(UnmeasuredPolicy.FAIL))
    first = root.find("testsuite")
    assert (first.get("failures"), first.get("skipped")) == ("2", "0")
    assert (root.get("tests"), root.get("failures")) == ("8", "2")
    case = cases(root)["credit_drift_mean [exercise 14678, model llama] (max 3)"]
    [failure] = case.findall("failure")
    assert failure.get("message") == "unmeasured: no candidates for exercise 14678"
    assert failure.get("type") == "unmeasured"
    assert case.find("skipped") is None


def test_a_level_without_groups_is_an_unmeasured_testcase():
    result = suite_result("s", [])
    gate = judge_gate("g", [judge_suite(result, {"f1": CheckConfig(min=0.8)}, UnmeasuredPolicy.WARN)])
    _, root = render(gate)
    [case] = root.iter("testcase")
    assert case.get("name") == "f1 [suite] (min 0.8)"  # the check has no key
    assert case.find("skipped").get("message") == "unmeasured: the suite has no group groups to check"


def test_skipped_gate_is_one_skipped_testcase_naming_the_reason():
    _, root = render(judge_gate("quality", [], "--suite x* matched no suite"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "0")
    [suite] = root.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("skipped"), suite.get("failures")) == (
        "quality", "1", "1", "0")
    [case] = suite.findall("testcase")
    assert case.find("skipped").get("message") == "--suite x* matched no suite"


def test_suite_without_checks_is_an_empty_testsuite():
    empty = judge_suite(suite_result("quiet", [GroupResult("group", A, {"f1": 0.5}, 1)]), {}, UnmeasuredPolicy.WARN)
    _, root = render(judge_gate("g", [empty]))
    [suite] = root.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("0", "0", "0")


HOSTILE = 'q"uo\'te ]]> <tag> & \x00\x01\x08\x0b\x0c\x0e\x1f\x7f\ud800\ufffe end\n'


def test_hostile_strings_survive_and_forbidden_characters_are_removed():
    clean = xml_text(HOSTILE)
    assert clean == 'q"uo\'te ]]> <tag> & \x7f end\n'  # DEL is allowed in XML 1.0; the rest are not
    key = (("exercise", HOSTILE), ("model", "<script>alert(1)</script>"))
    result = suite_result(f"suite {HOSTILE}", [GroupResult("group", key, {"f1": 0.1, "d": None}, 1)],
                          unmeasured=[Unmeasured(key, "d", f"reason {HOSTILE}")])
    checks = {"f1": CheckConfig(min=0.8, warn=0.9), "d": CheckConfig(max=1.0)}
    gate = judge_gate(f"gate {HOSTILE}", [judge_suite(result, checks, UnmeasuredPolicy.WARN)])
    text, root = render(gate)
    assert "\x00" not in text and "<script>" not in text and "<tag>" not in text
    assert root.get("name") == f"gate {clean}"
    [suite] = root.findall("testsuite")
    assert suite.get("name") == f"suite {clean}"
    first, second = suite.findall("testcase")
    assert first.get("classname") == f"gate {clean}.suite {clean}"
    assert first.get("name") == f"f1 [exercise {clean}, model <script>alert(1)</script>] (min 0.8)"
    failure = first.find("failure")
    assert f"exercise {clean}" in failure.text and "<script>alert(1)</script>" in failure.text
    assert second.find("skipped").get("message") == f"unmeasured: reason {clean}"
    # the same document through the validator's own parser (xmlschema) as a whole-document round trip
    assert SCHEMA.to_dict(text)["@name"] == f"gate {clean}"


def test_skipped_gate_reason_is_cleaned():
    _, root = render(judge_gate("g\x00", [], "why\x1b?"))
    assert root.get("name") == "g"
    assert root.find("testsuite/testcase/skipped").get("message") == "why?"


@pytest.mark.parametrize("bad", [
    '<testsuites skipped="1"/>',  # no such attribute on <testsuites>
    '<testsuites><testsuite name="s" tests="1" failures="0"/></testsuites>',  # errors is required
    '<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase/></testsuite></testsuites>',
    '<testsuites><testsuite name="s" tests="1" failures="0" errors="0" time="abc"/></testsuites>',
    '<testsuites><testsuite name="s" tests="1" failures="0" errors="0">'
    '<testcase name="t"><oops/></testcase></testsuite></testsuites>',
])
def test_the_schema_rejects_what_it_should(bad):
    """The validation above is not vacuous: the schema refuses malformed JUnit."""
    assert not SCHEMA.is_valid(bad)
