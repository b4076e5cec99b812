"""report.json, schema version 1 (DESIGN.md §5): the machine contract of a gate run."""

from __future__ import annotations

from typing import Any

from gate import __version__
from gate.judge import CheckResult, GateVerdict, SuiteVerdict
from gate.results import key_dict

SCHEMA_VERSION = 1


def report_json(verdict: GateVerdict, generated_at: str, commit: str | None) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "gate": verdict.name,
        "verdict": verdict.verdict.value,
        "generated_at": generated_at,
        "commit": commit,
        "tool": {"name": "llm-quality-gate", "version": __version__},
        "skipped_reason": verdict.skipped_reason,
        "suites": [_suite(s) for s in verdict.suites],
    }


def _suite(suite: SuiteVerdict) -> dict[str, Any]:
    result = suite.result
    return {
        "name": result.name,
        "kind": result.kind,
        "verdict": suite.verdict.value,
        "fingerprint": dict(result.fingerprint),
        "settings": dict(result.settings),
        "metrics": dict(result.metrics),
        "groups": [
            {"level": g.level, "key": key_dict(g.key), "n": g.n, "metrics": dict(g.metrics),
             "verdict": (v.value if (v := suite.group_verdict(g.level, g.key)) else None)}
            for g in result.groups
        ],
        "checks": [_check(c) for c in suite.checks],
        "unmeasured": [{"key": key_dict(u.key), "metric": u.metric, "reason": u.reason} for u in result.unmeasured],
        "unmeasured_policy": suite.policy.value,
        "notes": list(result.notes),
    }


def _check(check: CheckResult) -> dict[str, Any]:
    return {"metric": check.metric, "scope": check.scope, "key": key_dict(check.key), "op": check.op.value,
            "fail": check.fail, "warn": check.warn, "value": check.value, "verdict": check.verdict.value,
            **({"reason": check.reason} if check.reason else {})}
