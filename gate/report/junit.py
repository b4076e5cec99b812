"""JUnit XML (report.junit.xml): one testcase per check, for CI systems that read JUnit results.

The document validates against the Jenkins xunit-plugin schema (junit-10.xsd; a copy is in
tests/support/junit.xsd), the de-facto common JUnit schema:

    <testsuites name=GATE tests failures errors time>
      <testsuite name=SUITE tests failures errors skipped time timestamp>   one per suite
        <properties> kind, verdict, unmeasured policy </properties>
        <testcase classname="GATE.SUITE" name="METRIC [KEY] (OP THRESHOLD)" time="0">   one per check
          <failure message type>  a failed check (or an unmeasured one under `unmeasured: fail`, or an
                                  inconclusive one under gate.yml's `inconclusive: fail`)
          <skipped message>       an unmeasured check under `unmeasured: warn` (the default); an inconclusive
                                  check (could not tell); a waived check (with its waiver)
          <system-out>            a warned check: it passes, with the warning as output; an advisory check
                                  (`advisory: true`, never blocking) that did not pass, with its verdict and why

JUnit knows passed, failed and skipped. "Could not tell" is not a failure (a CI that blocks on JUnit failures
would turn the gate's neutral verdict into a red build) and must not read as a pass, so it is `skipped` with
its reason — a failure only where gate.yml makes inconclusive count as a failure, as the exit code does. A
waived check is `skipped` too, never passed: the message names the waiver, its owner, expiry and what the
check would have been (DESIGN.md §10: a waived check shows as waived, never as passed).

`<testsuites>` carries no `skipped` count: the schema has no such attribute there (each
`<testsuite>` has one). A skipped gate (no suites run) is one testsuite holding one skipped testcase
with the reason. Pure: verdicts in, text out; ElementTree escapes, and characters XML 1.0 cannot
carry at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF) are removed first.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from gate.config import InconclusivePolicy, UnmeasuredPolicy
from gate.judge import CheckResult, CheckVerdict, GateVerdict, Op, SuiteVerdict
from gate.report.context import why
from gate.results import key_label

# Everything outside XML 1.0's Char production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


def xml_text(value: object) -> str:
    """`value` as a string XML 1.0 can hold: forbidden characters removed, nothing else changed."""
    return _NOT_XML.sub("", str(value))


def junit_xml(verdict: GateVerdict, generated_at: str) -> str:
    """The gate's verdict as JUnit XML (with declaration; encode the returned text as UTF-8)."""
    root = _element(None, "testsuites", name=verdict.name)
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    if verdict.suites:
        for suite in verdict.suites:
            counts = _suite(root, verdict.name, suite, generated_at, verdict.inconclusive)
            totals = {k: totals[k] + counts[k] for k in totals}
    else:
        _skipped_gate(root, verdict, generated_at)
        totals = {"tests": 1, "failures": 0, "skipped": 1}
    _set(root, tests=totals["tests"], failures=totals["failures"], errors=0, time="0")
    ET.indent(root)
    return _DECLARATION + ET.tostring(root, encoding="unicode") + "\n"


def _suite(root: ET.Element, gate: str, suite: SuiteVerdict, generated_at: str,
           inconclusive: InconclusivePolicy) -> dict[str, int]:
    name = suite.result.name
    element = _element(root, "testsuite", name=name)
    properties = _element(element, "properties")
    for prop, value in (("kind", suite.result.kind), ("verdict", suite.verdict.value),
                        ("unmeasured_policy", suite.policy.value)):
        _element(properties, "property", name=prop, value=value)
    counts = {"tests": 0, "failures": 0, "skipped": 0}
    for check in suite.checks:
        outcome = _testcase(element, f"{gate}.{name}", check, suite.policy, inconclusive)
        counts["tests"] += 1
        if outcome in counts:
            counts[outcome] += 1
    _set(element, tests=counts["tests"], failures=counts["failures"], errors=0, skipped=counts["skipped"],
         time="0", timestamp=generated_at)
    return counts


def testcase_name(check: CheckResult) -> str:
    """`bertscore_f1 [exercise 14676, model llama] (min 0.7)`; the key reads `suite` for suite-level checks;
    a change check reads `Δ bertscore_f1 [...] (max_decrease 0.02)`; an advisory one ends in ` advisory`."""
    mark = " advisory" if check.advisory else ""
    if check.change is not None:
        return f"Δ {check.metric} [{key_label(check.key)}] ({check.change.bound} {_num(abs(check.fail))}){mark}"
    return f"{check.metric} [{key_label(check.key)}] ({check.op.value} {_num(check.fail)}){mark}"


def _change_text(check: CheckResult, level: float) -> str:
    """`bertscore_f1 fell by 0.031 (0.871 → 0.84) > max_decrease 0.02; p 0.004, adjusted 0.012; detects ≥ 0.021;
    n 24`."""
    change = check.change
    assert change is not None and check.value is not None
    moved = "fell" if check.value < 0 else "rose"
    text = (f"{check.metric} {moved} by {_num(abs(check.value))} ({_num(change.baseline)} → {_num(change.current)})"
            f" > {change.bound.replace('max', 'warn') if level != check.fail else change.bound} {_num(abs(level))}")
    if change.tested and change.p_value is not None:
        text += f"; p {_num(change.p_value)}"
        if change.p_adjusted is not None:
            text += f", adjusted {_num(change.p_adjusted)}"
    if change.mde is not None:
        text += f"; detects ≥ {_num(change.mde)}"
    if change.n:
        text += f"; n {change.n}"
    return text


def _untold(case: ET.Element, what: str, label: str, reason: str, fails_because: str | None) -> str:
    """A check that was not told (unmeasured, inconclusive): a failure where the policy says so, else skipped."""
    if fails_because is not None:
        _element(case, "failure", f"{what} ({reason}); {fails_because}.", message=f"{label}: {reason}", type=label)
        return "failures"
    _element(case, "skipped", message=f"{label}: {reason}")
    return "skipped"


def _testcase(parent: ET.Element, classname: str, check: CheckResult, policy: UnmeasuredPolicy,
              inconclusive: InconclusivePolicy = InconclusivePolicy.NEUTRAL) -> str:
    """Write one check; return what it counts as: `failures`, `skipped` or `passed`."""
    case = _element(parent, "testcase", classname=classname, name=testcase_name(check), time="0")
    where = key_label(check.key)
    if check.advisory:  # never blocks, so never a JUnit failure: its verdict and why as output
        if check.verdict is not CheckVerdict.PASS:
            _element(case, "system-out", f"advisory check (never blocks) {check.verdict.value}: {where}: "
                                         f"{why(check) or check.verdict.value}")
        return "passed"
    if check.verdict is CheckVerdict.WAIVED:
        _element(case, "skipped", message=f"waived: {why(check)}")
        return "skipped"
    if check.verdict is CheckVerdict.INCONCLUSIVE:
        return _untold(case, f"{where}: {check.metric} could not tell", "inconclusive", why(check) or "could not tell",
                       "gate.yml says `inconclusive: fail`" if inconclusive is InconclusivePolicy.FAIL else None)
    if check.verdict is CheckVerdict.FAIL and check.change is not None:
        text = _change_text(check, check.fail)
        _element(case, "failure", f"{where}: {text} against the baseline snapshot.", message=text, type="fail")
        return "failures"
    if check.verdict is CheckVerdict.WARN and check.change is not None and check.warn is not None:
        _element(case, "system-out", f"warning: {where}: {_change_text(check, check.warn)}")
        return "passed"
    if check.verdict is CheckVerdict.FAIL:
        message = f"{check.metric} = {_num(check.value)} {_cmp(check.op)} {check.op.value} {_num(check.fail)}"
        side = "below the minimum" if check.op is Op.MIN else "above the maximum"
        body = f"{where}: {check.metric} is {_num(check.value)}, {side} {_num(check.fail)}{_warn_note(check)}."
        _element(case, "failure", body, message=message, type="fail")
        return "failures"
    if check.verdict is CheckVerdict.UNMEASURED:
        return _untold(case, f"{where}: {check.metric} could not be measured", "unmeasured",
                       check.reason or "no measured value",
                       "the suite says `unmeasured: fail`" if policy is UnmeasuredPolicy.FAIL else None)
    if check.verdict is CheckVerdict.WARN:
        sign = "<" if check.op is Op.MIN else ">"
        text = (f"warning: {where}: {check.metric} = {_num(check.value)} {sign} warn {_num(check.warn)} "
                f"(fails {sign} {_num(check.fail)})")
        _element(case, "system-out", text)
    return "passed"


def _skipped_gate(root: ET.Element, verdict: GateVerdict, generated_at: str) -> None:
    reason = verdict.skipped_reason or "no suites were run"
    suite = _element(root, "testsuite", name=verdict.name, tests=1, failures=0, errors=0, skipped=1, time="0",
                     timestamp=generated_at)
    case = _element(suite, "testcase", classname=verdict.name, name="gate skipped", time="0")
    _element(case, "skipped", message=reason)


def _warn_note(check: CheckResult) -> str:
    if check.warn is None:
        return ""
    return f" (warns {'below' if check.op is Op.MIN else 'above'} {_num(check.warn)})"


def _cmp(op: Op) -> str:
    return "<" if op is Op.MIN else ">"


def _num(value: float | None) -> str:
    return "n/a" if value is None else format(value, ".4g")


def _element(parent: ET.Element | None, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    element = ET.Element(tag) if parent is None else ET.SubElement(parent, tag)
    _set(element, **attrs)
    if text is not None:
        element.text = xml_text(text)
    return element


def _set(element: ET.Element, **attrs: object) -> None:
    for name, value in attrs.items():
        element.set(name, xml_text(value))
