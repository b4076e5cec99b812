"""report.json, schema version 1 (DESIGN.md §5): the machine contract of a gate run.

Additive fields since the verdict statistics (DESIGN.md §10), so readers of schema 1 keep working:
`counts_as` (what the exit code and check run follow: an inconclusive gate under `inconclusive: fail` counts
as "fail"), `statistics` (the gate's false-alarm budget `alpha`, its `correction` and the number of `tested`
checks sharing it; null when the gate was skipped), `notes` (waivers that matched nothing or expired), per
check its `change` evidence (raw and adjusted p, MDE, baseline runs…) and its `waiver`, per baseline `runs`.
Issue 35, item 3: per check `advisory` (true: judged and shown, never blocking, outside the verdicts), the gate's
`advisory` object (`checks`, `verdicts` {verdict: count}, `summary` "2 advisory checks failed" or null) and
`statistics.advisory_tested` (advisory checks tested alone at alpha, outside the family of `tested`). Item 2: per
suite `flaky` (null without repeated samples, else `count` and the worst 20 `items`: key, metric, column, op, bound,
met, draws, min, max, sd); item 1: per suite `pass_rates` (null without gate.yml's `items:`, else its `criterion`,
the number of rated `items`, the suite's k-of-n `metrics` and the 20 `lowest` items by Wilson lower bound with their
draws, passed, pass_rate, pass_rate_low, pass_at_k, pass_hat_k and pass_rate_met).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

import gate.report.flaky as flaky
from gate import __version__
from gate.judge import BaselineComparison, CheckResult, CheckVerdict, GateVerdict, SuiteVerdict
from gate.report.formatting import advisory_note
from gate.report.gate_changes import to_json as gate_changes_json
from gate.results import key_dict

SCHEMA_VERSION = 1


def report_json(verdict: GateVerdict, generated_at: str, commit: str | None,
                runtime: Mapping[str, Any] | None = None,
                generation: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "gate": verdict.name,
        "verdict": verdict.verdict.value,
        "generated_at": generated_at,
        "commit": commit,
        "tool": {"name": "llm-quality-gate", "version": __version__},
        "skipped_reason": verdict.skipped_reason,
        "counts_as": verdict.counts_as.value,
        "inconclusive_policy": verdict.inconclusive.value,
        "statistics": ({"alpha": verdict.alpha, "correction": verdict.correction, "tested": verdict.tested,
                        "advisory_tested": verdict.advisory_tested} if verdict.alpha is not None else None),
        "advisory": _advisory(verdict),
        "notes": list(verdict.notes),
        "gate_changes": gate_changes_json(verdict.gate_changes),  # what the PR changes in its own gate
        "suites": [_suite(s) for s in verdict.suites],
        "runtime": dict(runtime) if runtime else None,  # the model work's cost: device, time, tokens, cache
        "generation": dict(generation) if generation else None,  # calls replayed / recorded, tokens, cost
    }


def _suite(suite: SuiteVerdict) -> dict[str, Any]:
    result = suite.result
    return {
        "name": result.name,
        "kind": result.kind,
        "verdict": suite.verdict.value,
        "fingerprint": dict(result.fingerprint),
        "settings": result.settings_json(),
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
        "baseline": _baseline(suite.comparison),
        "flaky": flaky.to_json(suite),  # items whose samples straddle a check's bound (null: no repeated samples)
        "pass_rates": flaky.pass_rates_json(suite),  # k-of-n per item (gate.yml's `items:`; null without it)
    }


def _baseline(comparison: BaselineComparison | None) -> dict[str, Any] | None:
    if comparison is None:
        return None
    snapshot = comparison.snapshot
    return {"path": comparison.path, "present": snapshot is not None, "comparable": comparison.comparable,
            "differences": list(comparison.differences), "blessed_at": snapshot.created_at if snapshot else None,
            "commit": snapshot.commit if snapshot else None, "runs": snapshot.runs if snapshot else None,
            "age_days": comparison.age_days,
            "stale": comparison.stale, "changed_in_pr": list(comparison.changed_in_pr)}


def _advisory(verdict: GateVerdict) -> dict[str, Any]:
    """The advisory checks (never blocking, not in `verdict`): how many, their verdicts, the headline's words."""
    return {"checks": sum(len(s.checks) - len(s.required) for s in verdict.suites),
            "verdicts": {v.value: n for v in CheckVerdict if (n := verdict.advisory_count(v))},
            "summary": advisory_note(verdict.suites) or None}


def _check(check: CheckResult) -> dict[str, Any]:
    return {"metric": check.metric, "scope": check.scope, "key": key_dict(check.key), "op": check.op.value,
            "fail": check.fail, "warn": check.warn, "value": check.value, "verdict": check.verdict.value,
            "advisory": check.advisory,
            **({"reason": check.reason} if check.reason else {}),
            **({"change": asdict(check.change)} if check.change else {}),
            **({"waiver": asdict(check.waiver)} if check.waiver else {})}
