"""Checks that can never be measured: each would only ever be unmeasured, silently turning the gate off, so
gate.yml is rejected at load time (before any model runs) with the check's line and the fix."""

from __future__ import annotations

from tests.badinputs.corpus import Case, case
from tests.badinputs.projects import SUITES, gate_yml


def _rag(checks: str, *, baseline: bool = True, extra: str = "") -> dict:
    body = SUITES["rag"] if baseline else SUITES["rag"].replace("    baseline: rag/baseline.*\n", "")
    return {"gate.yml": gate_yml("rag", body + extra + "    checks:\n" + "".join(f"      {c}\n" for c in checks))}


def _at(files: dict, metric: str) -> str:
    text = files["gate.yml"]
    return f"gate.yml:{text[: text.index(f'      {metric}:')].count(chr(10)) + 1}"


def _case(id: str, files: dict, metric: str, *expect: str) -> Case:
    return case(id, "rag", files, _at(files, metric), f"field 'suites.s.checks.{metric}'", *expect)


def impossible_check_cases() -> list[Case]:
    no_scope = _rag(["overall_score: {min: 0.1}", "delta_mrr: {min: 0.0}"])
    no_baseline = _rag(["delta_mrr: {min: 0.0, scope: comparison}"], baseline=False)
    system_at_comparison = _rag(["bleu: {min: 0.1, scope: comparison}"])
    k_missing = _rag(["recall_at_k.10: {min: 0.5}"])
    delta_k_missing = _rag(["delta_ndcg_at_k.4: {min: 0, scope: comparison}"], extra="    k: [1, 3]\n")
    judge_off = _rag(["judge_accuracy: {min: 0.5}"])
    judge_criterion = _rag(["judge_tone: {min: 0.5}"],
                           extra="    judge: {enabled: true, criteria: [accuracy, coherence]}\n")
    at_suite = _rag(["overall_score: {min: 0.5, scope: suite}"])
    significant_count = _rag(["queries: {max_decrease: 1, significant: true}"])
    significant_delta = _rag(["delta_mrr: {max_decrease: 0.05, significant: true, scope: comparison}"])
    counts_per_system = _rag(["regressions: {max: 0}"])
    return [
        _case("check-delta-without-comparison-scope", no_scope, "delta_mrr",
              "`scope: comparison` for delta_mrr", "scope 'group'", "Fix: add `scope: comparison`"),
        _case("check-comparison-without-baseline", no_baseline, "delta_mrr",
              "a `baseline:` in the suite", "no `baseline:`", "Fix: comparison metrics need a `baseline:` system"),
        _case("check-system-metric-at-comparison", system_at_comparison, "bleu",
              "delta_<metric>, regressions or improvements", "bleu, a per-system value",
              "Fix: check delta_bleu at `scope: comparison`, or drop `scope: comparison`"),
        _case("check-k-not-configured", k_missing, "recall_at_k.10",
              "a cut-off of the suite's `k:` (1, 3, 5)", "10 is not in `k:`",
              "Fix: add 10 to `k:` or check recall_at_k.5"),
        _case("check-delta-k-not-configured", delta_k_missing, "delta_ndcg_at_k.4",
              "(1, 3)", "Fix: add 4 to `k:` or check delta_ndcg_at_k.3"),
        _case("check-judge-disabled", judge_off, "judge_accuracy",
              "an enabled LLM judge", "`judge.enabled` is false", "Fix: set `judge: {enabled: true}`"),
        _case("check-judge-criterion-missing", judge_criterion, "judge_tone",
              "a criterion of `judge.criteria`: accuracy, coherence", "'tone' is not configured",
              "Fix: add tone to `judge.criteria`"),
        _case("check-rag-suite-scope", at_suite, "overall_score",
              "a rag suite has no suite-wide values", "Fix: drop `scope: suite`"),
        _case("check-significant-count", significant_count, "queries",
              "a metric the items determine (the test recomputes it on resampled items)",
              "queries, which its group's item values do not determine", "Fix: drop `significant: true`"),
        _case("check-significant-comparison", significant_delta, "delta_mrr",
              "delta_mrr, which its group's item values do not determine", "Fix: drop `significant: true`"),
        _case("check-counts-per-system", counts_per_system, "regressions",
              "`scope: comparison` for regressions", "Fix: add `scope: comparison`"),
    ]
