"""Waivers: a justified regression accepted for a while, without editing thresholds (DESIGN.md §10).

A waiver in gate.yml names a suite and metric (optionally a scope and the group key values it covers), a
reason, an owner and the last day it works. A check it matches that did not pass (failed, warned,
inconclusive, unmeasured) becomes `waived` — shown with the reason and owner, counted as neither passed nor
failed in the suite's verdict. An expired waiver changes nothing but says so beside the check; a waiver that
matches no check is a note in the report (a renamed metric must not leave a stale waiver silently around).
Pure: the date of the run is handed in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace

from gate.config import Waiver
from gate.judge.types import CheckResult, CheckVerdict, SuiteVerdict, WaiverInfo

_WAIVABLE = (CheckVerdict.FAIL, CheckVerdict.WARN, CheckVerdict.INCONCLUSIVE, CheckVerdict.UNMEASURED)


def apply_waivers(suites: Sequence[SuiteVerdict], waivers: Sequence[Waiver],
                  today: dt.date) -> tuple[list[SuiteVerdict], list[str]]:
    """The suites with matching checks waived (or marked as under an expired waiver), and notes."""
    used = [False] * len(waivers)
    out = []
    for suite in suites:
        checks = []
        for check in suite.checks:
            hits = [i for i, waiver in enumerate(waivers) if matches(waiver, suite.result.name, check)]
            for i in hits:
                used[i] = True
            if hits:  # a waiver in force wins over an expired one, whatever their order
                best = min(hits, key=lambda i: (waivers[i].expires < today, i))
                check = _waive(check, waivers[best], today)
            checks.append(check)
        out.append(replace(suite, checks=tuple(checks)))
    notes = [f"waiver for {w.suite}.{w.metric} ({w.owner}) matches no check: remove it or fix its suite/metric"
             for w, hit in zip(waivers, used, strict=True) if not hit]
    notes += [f"waiver for {w.suite}.{w.metric} ({w.owner}) expired on {w.expires.isoformat()} and no longer "
              "applies" for w, hit in zip(waivers, used, strict=True) if hit and w.expires < today]
    return out, notes


def matches(waiver: Waiver, suite: str, check: CheckResult) -> bool:
    if waiver.suite != suite or waiver.metric != check.metric:
        return False
    if waiver.scope is not None and waiver.scope != check.scope:
        return False
    key = dict(check.key)
    return all(key.get(field) == value for field, value in (waiver.where or {}).items())


def _waive(check: CheckResult, waiver: Waiver, today: dt.date) -> CheckResult:
    expired = waiver.expires < today
    info = WaiverInfo(waiver.reason, waiver.owner, waiver.expires.isoformat(), expired)
    if expired or check.verdict not in _WAIVABLE:
        return replace(check, waiver=info)
    return replace(check, verdict=CheckVerdict.WAIVED, waiver=replace(info, replaced=check.verdict.value))
