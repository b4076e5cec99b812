"""A check its suite can never measure is a gate.yml error at load time, not an `unmeasured` verdict.

Such a check passes silently (unmeasured warns by default), so a typo would turn the gate off. The scorers
say which checks can exist (`Kind.impossible`); the loader reports each with the check's line and the fix,
together with the schema's own problems."""

from __future__ import annotations

import pytest

from gate.config.loader import parse_config
from gate.errors import ConfigError, ExitCode
from gate.kinds import KINDS

RAG = """\
version: 1
suites:
  r:
    kind: rag
    records: cand.jsonl
    baseline: base.jsonl
"""


def rag(*checks: str, suite: str = RAG, extra: str = "") -> str:
    return suite + extra + "    checks:\n" + "".join(f"      {c}\n" for c in checks)


def problems_of(text: str) -> dict:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "gate.yml", metrics=KINDS)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    return {p.field: p for p in caught.value.problems}


def test_the_issue_reproduction_fails_with_one_located_problem_per_check():
    text = rag("overall_score: {min: 0.75}", "delta_mrr: {min: 0.0}", "recall_at_k.10: {min: 0.5}",
               "bleu: {min: 0.1, scope: comparison}")
    problems = problems_of(text)
    assert set(problems) == {"suites.r.checks.delta_mrr", "suites.r.checks.recall_at_k.10", "suites.r.checks.bleu"}
    delta, k, bleu = (problems[f"suites.r.checks.{m}"] for m in ("delta_mrr", "recall_at_k.10", "bleu"))
    assert (delta.line, k.line, bleu.line) == (9, 10, 11)
    assert delta.fix == "add `scope: comparison`" and "scope 'group'" in delta.found
    assert k.fix == "add 10 to `k:` or check recall_at_k.5" and "(1, 3, 5)" in k.expected
    assert bleu.fix.startswith("check delta_bleu at `scope: comparison`")


def test_comparison_needs_a_baseline():
    text = rag("delta_mrr: {min: 0.0, scope: comparison}", "regressions: {max: 0}",
               suite=RAG.replace("    baseline: base.jsonl\n", ""))
    problems = problems_of(text)
    assert problems["suites.r.checks.delta_mrr"].found == "no `baseline:`"
    assert "comparison metrics need a `baseline:` system" in problems["suites.r.checks.delta_mrr"].fix
    assert problems["suites.r.checks.regressions"].fix.startswith("add `scope: comparison` and add `baseline:")


@pytest.mark.parametrize("check, fix", [
    ("ndcg_at_k.4: {min: 0.1}", "add 4 to `k:` or check ndcg_at_k.3"),  # the nearer cut-off, the lower on a tie
    ("delta_precision_at_k.20: {min: 0, scope: comparison}", "add 20 to `k:` or check delta_precision_at_k.10"),
])
def test_k_metrics_need_their_cut_off(check, fix):
    [problem] = problems_of(rag(check, extra="    k: [1, 3, 5, 10]\n")).values()
    assert problem.fix == fix and "(1, 3, 5, 10)" in problem.expected


def test_judge_metrics_need_the_judge_and_the_criterion():
    off = problems_of(rag("judge_accuracy: {min: 0.5}"))["suites.r.checks.judge_accuracy"]
    assert "`judge.enabled` is false" in off.found and off.fix.startswith("set `judge: {enabled: true}`")
    judged = "    judge: {enabled: true, criteria: [accuracy, coherence]}\n"
    missing = problems_of(rag("judge_acuracy: {min: 0.5}", extra=judged))["suites.r.checks.judge_acuracy"]
    assert missing.fix == "add acuracy to `judge.criteria`, or did you mean 'accuracy'?"


def test_a_rag_suite_has_no_suite_scope():
    problem = problems_of(rag("overall_score: {min: 0.5, scope: suite}"))["suites.r.checks.overall_score"]
    assert "no suite-wide values" in problem.found


@pytest.mark.parametrize("metric, scope", [
    ("queries", "group"),  # a count: every resample of the items has the same
    ("delta_mrr", "comparison"),  # two systems, not one group's items
])
def test_significance_needs_a_metric_the_items_determine(metric, scope):
    check = f"{metric}: {{max_increase: 0.05, significant: true, scope: {scope}}}"
    problem = problems_of(rag(check))[f"suites.r.checks.{metric}"]
    assert problem.fix == "drop `significant: true`" and "do not determine" in problem.found
    assert problem.expected.startswith("with `significant: true`, a metric the items determine")


def test_impossible_checks_are_reported_with_the_schema_problems():
    text = rag("recall_at_k.7: {min: 0.5}", "mrr: {min: high}")
    text = text.replace("suites:\n", "report: {formats: [pdf]}\nsuites:\n")
    problems = problems_of(text)
    assert {"report.formats.0", "suites.r.checks.recall_at_k.7", "suites.r.checks.mrr.min"} <= set(problems)
    assert problems["suites.r.checks.recall_at_k.7"].line == 9


@pytest.mark.parametrize("checks, extra", [
    (["delta_mrr: {min: 0, scope: comparison}", "regressions: {max: 0, scope: comparison}",
      "delta_overall_score: {min: -0.05, scope: comparison}", "delta_latency_p95: {max: 0.5, scope: comparison}"],
     ""),
    (["recall_at_k.10: {min: 0.5}", "delta_recall_at_k.10: {min: 0, scope: comparison}"], "    k: [5, 10]\n"),
    (["judge_accuracy: {min: 0.5}", "overall_score: {min: 0.1, scope: baseline}"],
     "    judge: {enabled: true, criteria: [accuracy]}\n"),
    (["mrr: {max_decrease: 0.05, significant: true}", "sentence_bleu: {max_decrease: 0.05, significant: true}",
      "bleu: {max_decrease: 0.05}", "precision_at_k.3: {max_decrease: 0.1, significant: true}"], ""),
    (["bleu: {max_decrease: 0.05, significant: true}", "overall_score: {max_decrease: 0.05, significant: true}",
      "latency_p95: {max_increase: 0.5, significant: true}"], ""),  # recomputed on resampled items
])
def test_checks_the_suite_can_measure_load(checks, extra):
    config = parse_config(rag(*checks, extra=extra), metrics=KINDS)
    assert len(config.suites["r"].checks) == len(checks)


def test_without_a_catalogue_nothing_is_judged_impossible():
    assert parse_config(rag("delta_mrr: {min: 0.0}"), metrics=None).suites["r"].checks["delta_mrr"].min == 0.0


HEURISTIC = "version: 1\nsuites:\n  r:\n    kind: heuristic\n    records: x.jsonl\n    checks:\n"


def test_a_rubric_category_metric_exists_only_per_model_and_category():
    problems = problems_of(HEURISTIC + "      correctness_mean: {min: 5, scope: model}\n"
                                      "      readability_std: {max: 2, scope: suite}\n")
    assert set(problems) == {"suites.r.checks.correctness_mean", "suites.r.checks.readability_std"}
    assert problems["suites.r.checks.correctness_mean"].line == 7
    assert "scope: group" in problems["suites.r.checks.correctness_mean"].fix
    parse_config(HEURISTIC + "      correctness_mean: {min: 5}\n      final_score_mean: {min: 5, scope: model}\n",
                 "gate.yml", metrics=KINDS)  # per group, and the final score at any scope, load
