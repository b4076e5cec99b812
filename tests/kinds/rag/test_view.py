"""The RAG suite's view (`gate.kinds.rag.view`) on hand-built judged suites: the systems table, the
baseline-vs-candidate rows (change wording, evidence, the paired-subset note) and the queries that got worse."""

from __future__ import annotations

import pytest

from gate.config import UnmeasuredPolicy
from gate.judge import CheckResult, CheckVerdict, Op, SuiteVerdict, Verdict
from gate.kinds.rag import RagDetails, RagItemDetails, RagSettings, Row, SystemSummary
from gate.kinds.rag import view as rag
from gate.results import GroupResult, Item, SuiteResult


def judged(groups=(), items=(), checks=(), systems=None, comparisons=None, judge=False) -> SuiteVerdict:
    settings = RagSettings(k=(1, 3), embedding="mini", context_similarity_threshold=0.5, weights={}, judge=judge,
                           significance={}, dataset="d", targets={})
    details = RagDetails(settings=settings, systems=systems or {}, comparisons=comparisons or {})
    result = SuiteResult("r", "rag", {}, tuple(groups), tuple(items), (), details=details)
    return SuiteVerdict(result, tuple(checks), Verdict.PASS, UnmeasuredPolicy.WARN)


def system(name, level="group", **metrics):
    return GroupResult(level, (("system", name),), metrics, 10)


def test_the_systems_table_has_candidates_then_baselines():
    groups = [system("old", "baseline", overall_score=0.5), system("new", mrr=0.75, latency_p50=1.234,
                                                                    cost_per_query=0.00123, **{"ndcg_at_k.3": 0.6})]
    summary = SystemSummary(grade="B", left_out=(), n=10, issues=("slow <p95>",), insights=("good recall",))
    checks = [CheckResult("mrr", "group", groups[1].key, Op.MIN, 0.8, None, 0.75, CheckVerdict.FAIL)]
    table = rag.build(judged(groups, checks=checks, systems={("candidate", "new"): summary}), 5)["systems"]
    new, old = table
    assert (new["system"], new["icon"], new["grade"], new["overall"], new["n"]) == ("new", "❌", "B", "n/a", 10)
    assert new["sections"]["Retrieval"] == ["0.750", "n/a", "n/a"]
    assert new["sections"]["Performance"] == ["1.23s", "n/a", "n/a", "n/a", "0.0012"]  # units only on values
    assert new["at_k"] == ["n/a", "n/a", "n/a", "n/a", "n/a", "0.600"]
    assert new["issues"] == ["slow &lt;p95&gt;"] and new["insights"] == ["good recall"]
    assert (old["system"], old["icon"], old["grade"], old["overall"]) == ("old (baseline)", "", "—", "0.500")
    assert old["issues"] == [] and old["insights"] == []


def test_columns_and_settings():
    view = rag.build(judged(judge=True), 5)
    assert view["at_k_columns"] == ["precision@1", "precision@3", "recall@1", "recall@3", "ndcg@1", "ndcg@3"]
    assert view["settings"] == ("k = 1, 3 · embedding <code>mini</code> · context_similarity: answer sentences with "
                                "cosine ≥ 0.5 to a context sentence · LLM judge on")
    assert view["systems"] == [] and view["comparisons"] == [] and view["worse"] == []


def row(metric="mrr", baseline=0.5, candidate=0.6, delta=0.1, pct=20.0, **more) -> Row:
    return Row(metric, baseline, candidate, delta, pct, **more)


def shown(r: Row) -> dict:
    [comparison] = rag.build(judged(comparisons={"new vs old": (r,)}), 5)["comparisons"]
    return comparison["rows"][0]


@pytest.mark.parametrize("metric, pct, change", [
    ("mrr", 20.0, "+20.0%"), ("mrr", -3.25, "-3.2%"), ("mrr", None, "—"),
    ("latency_p95", -12.5, "12.5% faster"), ("latency_mean", 8.0, "8.0% slower"),
    ("cost_per_query", -50.0, "50.0% cheaper"), ("cost_mean", 1.0, "1.0% dearer"),
])
def test_the_change_is_worded_by_the_metrics_direction(metric, pct, change):
    assert shown(row(metric, pct=pct))["change"] == change


@pytest.mark.parametrize("more, evidence", [
    ({"n": 12, "low": 0.01, "high": 0.2, "method": "paired bootstrap, 10000 resamples, 95% CI"},
     "CI [+0.010, +0.200], n=12 paired"),
    ({"n": 12, "p_value": 0.01234, "method": "Wilcoxon signed-rank"}, "p=0.0123, n=12 paired"),
    ({"n": 12, "low": 0.01, "high": 0.2, "method": "Wilcoxon signed-rank", "p_value": 0.5}, "p=0.5, n=12 paired"),
    ({"n": 12}, "n=12 paired"),
    ({}, "system-level"),
    ({"n": 8, "n_baseline": 10, "n_candidate": 8, "system_baseline": 0.45, "system_candidate": 0.55},
     "n=8 paired; each system's mean over all its queries: 0.450 (10) → 0.550 (8)"),
    ({"n": 0, "n_baseline": 10, "n_candidate": 8}, "no query measured in both: each system's own mean"),
    ({"n": 10, "n_baseline": 10, "n_candidate": 10}, "n=10 paired"),  # the same queries: no note
])
def test_the_evidence_says_how_the_change_was_tested(more, evidence):
    assert shown(row(**more))["evidence"] == evidence


def test_metric_names_marks_and_formats():
    assert shown(row("ndcg_at_k.3", outcome="improvement")) == {
        "metric": "ndcg@3", "baseline": "0.500", "candidate": "0.600", "change": "+20.0%",
        "evidence": "system-level", "mark": "✅ improvement"}
    assert shown(row(outcome="regression"))["mark"] == "⚠️ regression"
    assert shown(row(outcome="no significant change"))["mark"] == ""
    assert shown(row("cost_per_query", 0.001, None, None, None))["candidate"] == "n/a"
    assert shown(row("cost_per_query", 0.001, None, None, None))["baseline"] == "0.0010"


def test_a_row_without_pairs_shows_the_system_means_without_a_change():
    r = Row("context_similarity", None, None, None, None, n=0, system_baseline=0.4, system_candidate=0.7, n_baseline=3,
            n_candidate=5)
    assert {k: shown(r)[k] for k in ("baseline", "candidate", "change")} == {
        "baseline": "0.400", "candidate": "0.700", "change": "—"}


def test_rows_with_nothing_measured_are_left_out():
    rows = (row("mrr", None, None, None, None), row("ndcg", 0.1, None, None, None))
    [comparison] = rag.build(judged(comparisons={"new <vs> old": rows}), 5)["comparisons"]
    assert comparison["title"] == "new &lt;vs&gt; old" and [r["metric"] for r in comparison["rows"]] == ["ndcg"]


def query(qid, which, rr, rouge, answer="a"):
    return Item((("system", "x"), ("which", which), ("id", qid)), {"reciprocal_rank": rr, "rouge_l": rouge},
                details=RagItemDetails(answer=answer, expected="the answer", which=which))


def test_the_queries_that_got_worse_most_come_first():
    items = [query("q1", "baseline", 1.0, 0.5), query("q1", "candidate", 0.5, 0.5),     # −0.5
             query("q2", "baseline", 1.0, 0.8), query("q2", "candidate", 0.0, 0.1),     # −1.7
             query("q3", "baseline", 0.5, 0.5), query("q3", "candidate", 1.0, 0.5),     # better
             query("q4", "candidate", 0.0, 0.0),                                        # no baseline
             query("q5", "baseline", None, 0.4), query("q5", "candidate", None, 0.3, "<b>x</b>")]  # −0.1, None as 0
    worse = rag.build(judged(items=items), 5)["worse"]
    assert [w["query"] for w in worse] == ["q2", "q1", "q5"]
    assert worse[0] == {"query": "q2", "rr": "1.000 → 0.000", "rouge": "0.800 → 0.100", "baseline": "a",
                        "candidate": "a", "expected": "the answer"}
    assert worse[2]["rr"] == "n/a → n/a" and worse[2]["candidate"] == "&lt;b&gt;x&lt;/b&gt;"
    assert [w["query"] for w in rag.build(judged(items=items), 1)["worse"]] == ["q2"]
