"""The RAG suite: generation metrics against sacrebleu/rouge-score, performance against numpy, the
comparison's significance against scipy, the overall score, grade, issues and insights."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sacrebleu
from rouge_score import rouge_scorer

from gate.config import GateConfig
from gate.errors import InputError
from gate.kinds.base import ScoringContext
from gate.kinds.rag import score_rag
from gate.kinds.rag import summary as rag_summary
from gate.kinds.rag.config import RagSuiteConfig, Significance, Targets
from gate.kinds.rag.generation import generation_metrics, sentences
from gate.kinds.rag.records import RagRecord, load_rag
from tests.support.fake_runtime import FakeRuntime

ANSWERS = [("Refunds take five business days.", "Refunds are processed within five business days."),
           ("The SLA guarantees 99.9% uptime per month.", "Uptime is guaranteed at 99.9 percent monthly."),
           ("Logs are kept for 30 days, then deleted.", "We retain logs for thirty days."),
           ("Contact on-call via the pager.", "Page the on-call engineer.")]


def sample(i, answer, expected, system=None, **extra):
    return {"id": f"q{i}", "query": f"question {i}?", "actual_answer": answer, "expected_answer": expected,
            "retrieved_ids": ["a", "b", "c"], "ground_truth_ids": ["a" if i % 2 else "c"],
            "retrieved_contexts": [expected or "Context.", "Something else entirely.", "More text."],
            "latency": 0.5 + i * 0.3, "prompt_tokens": 700, "completion_tokens": 60,
            **({"system": system} if system else {}), **extra}


def run(tmp_path, candidate, baseline=None, truncated=None, **suite_fields):
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in candidate))
    if baseline:
        (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in baseline))
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], baseline=["b.jsonl"] if baseline else None,
                           **suite_fields)
    gate = GateConfig(version=1, suites={"r": suite})
    runtime = FakeRuntime(truncated=truncated)
    return score_rag("r", suite, load_rag("r", suite, tmp_path), ScoringContext(gate, runtime, tmp_path))


def group(result, level="group"):
    [g] = result.groups_at(level)
    return g.metrics


def test_bleu_and_rouge_agree_with_the_reference_libraries(tmp_path):
    result = run(tmp_path, [sample(i, a, e) for i, (a, e) in enumerate(ANSWERS)])
    m = group(result)
    hyps, refs = [a for a, _ in ANSWERS], [e for _, e in ANSWERS]
    assert m["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score / 100, abs=1e-12)
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    assert m["rouge_l"] == pytest.approx(np.mean([scorer.score(e, a)["rougeL"].fmeasure for a, e in ANSWERS]))
    items = {dict(i.key)["id"]: i.values for i in result.items}
    assert items["q0"]["bleu"] == pytest.approx(sacrebleu.sentence_bleu(ANSWERS[0][0], [ANSWERS[0][1]]).score / 100)


def test_texts_cut_at_the_embedding_limit_are_noted(tmp_path):
    rows = [sample(i, a, e) for i, (a, e) in enumerate(ANSWERS)]
    assert not any("token limit" in n for n in run(tmp_path, rows).notes)
    notes = run(tmp_path, rows, truncated={ANSWERS[0][0], "question 1?"}).notes
    assert any(n.startswith("2 of ") and "texts (queries, answers and their sentences, context sentences) exceed "
               "the embedding model's 256-token limit" in n for n in notes)


def test_performance_agrees_with_numpy(tmp_path):
    rows = [sample(i, a, e) for i, (a, e) in enumerate(ANSWERS * 3)]
    for i, row in enumerate(rows):
        row["id"] = f"q{i}"
    result = run(tmp_path, rows)
    m = group(result)
    latencies = [r["latency"] for r in rows]
    for q in (50, 95, 99):
        assert m[f"latency_p{q}"] == pytest.approx(np.percentile(latencies, q))
    assert m["throughput_qps"] == pytest.approx(len(rows) / sum(latencies))
    assert m["cost_per_query"] == pytest.approx((700 + 60) / 1000 * 0.002)  # the seed's default price


def test_given_costs_win_over_tokens():
    assert rag_summary.query_cost(RagRecord(query="q", actual_answer="a", cost=0.5, prompt_tokens=1000), 0.002) == 0.5
    assert rag_summary.query_cost(RagRecord(query="q", actual_answer="a", completion_tokens=2000), 0.003) == 0.006
    assert rag_summary.query_cost(RagRecord(query="q", actual_answer="a"), 0.002) is None


def test_faithfulness_and_relevancy_from_embeddings():
    vectors = {"q?": np.array([1.0, 0.0]), "A. B.": np.array([1.0, 1.0]), "A.": np.array([1.0, 0.0]),
               "B.": np.array([0.0, 1.0]), "ctx A.": np.array([0.9, 0.1]), "ctx C.": np.array([-1.0, 0.2])}
    record = RagRecord(query="q?", actual_answer="A. B.", retrieved_contexts=["ctx A. ctx C."], expected_answer="A.")
    values = generation_metrics(record, vectors.__getitem__, threshold=0.6)
    assert values["answer_relevancy"] == pytest.approx(1 / np.sqrt(2))
    assert values["context_similarity"] == 0.5  # "A." is supported by "ctx A.", "B." by nothing
    assert sentences("One. Two!\nThree? four") == ["One.", "Two!", "Three?", "four"]


def test_empty_answers_and_missing_data_are_unmeasured(tmp_path):
    result = run(tmp_path, [sample(0, "", "Expected."), sample(1, "An answer.", None),
                            {"id": "q2", "query": "q", "actual_answer": "x"}])
    items = {dict(i.key)["id"]: i.values for i in result.items}
    assert all(items["q0"][m] is None for m in ("bleu", "rouge_l", "context_similarity", "answer_relevancy"))
    assert items["q1"]["rouge_l"] is None and items["q1"]["answer_relevancy"] is not None
    assert items["q2"]["reciprocal_rank"] is None and items["q2"]["latency"] is None
    assert group(result)["bleu"] is None  # no query has both an answer and an expected answer


def test_overall_score_grade_and_rescaled_weights():
    score, missing = rag_summary.overall({"mrr": 0.8, "context_similarity": 0.6},
                                         {"mrr": 0.5, "context_similarity": 0.25, "bleu": 0.25}, 5)
    assert score == pytest.approx((0.5 * 0.8 + 0.25 * 0.6) / 0.75) and missing == ["bleu"]
    assert [rag_summary.grade(x) for x in (0.95, 0.9, 0.8999, 0.8, 0.7, 0.6, 0.59, None)] == [
        "A", "A", "B", "B", "C", "D", "F", None]


def test_issues_and_insights_follow_the_targets():
    metrics = {"latency_p95": 3.4, "throughput_qps": 12.0, "cost_per_query": 0.02, "mrr": 0.5,
               "context_similarity": 0.95, "answer_relevancy": 0.7, "precision_at_k.1": 0.85, "recall_at_k.5": 0.9}
    issues = rag_summary.issues(metrics, Targets(), 5)
    assert "P95 latency 3.40s exceeds the 3s target" in issues
    assert "Cost per query $0.0200 exceeds the $0.01 target" in issues
    assert "Relevant passages are ranked low (MRR 0.50)" in issues
    assert not any("Throughput" in i or "recall" in i for i in issues)
    insights = rag_summary.insights(metrics, "B", Targets())
    assert insights[:2] == ["Overall system performance is good", "Top-1 retrieval is highly accurate"]
    assert "Consider improving query understanding for better relevancy" in insights


def test_comparison_is_direction_aware(tmp_path):
    better = [sample(i, a, e, latency=0.4, retrieved_ids=["g", "x", "y"], ground_truth_ids=["g"])
              for i, (a, e) in enumerate(ANSWERS)]
    worse = [sample(i, a, e, retrieved_ids=["x", "y", "g"], ground_truth_ids=["g"]) for i, (a, e) in enumerate(ANSWERS)]
    result = run(tmp_path, better, worse, significance=Significance(resamples=2000))
    rows = {r.metric: r for r in result.details.comparisons["candidate vs baseline"]}
    assert rows["mrr"].outcome == "improvement" and rows["mrr"].delta == pytest.approx(1 - 1 / 3)
    assert rows["latency_mean"].delta < 0 and rows["latency_mean"].outcome == "improvement"  # faster
    assert rows["rouge_l"].outcome == "no significant change"
    comparison = group(result, "comparison")
    assert comparison["regressions"] == 0 and comparison["improvements"] >= 2
    assert comparison["delta_mrr"] == pytest.approx(2 / 3)
    swapped = run(tmp_path, worse, better, significance=Significance(resamples=2000))
    assert group(swapped, "comparison")["regressions"] >= 2


def test_systems_and_duplicates(tmp_path):
    rows = [sample(0, "a.", "b.", system="v1"), sample(0, "a.", "b.", system="v2")]
    result = run(tmp_path, rows)
    assert [dict(g.key)["system"] for g in result.groups_at("group")] == ["v1", "v2"]
    with pytest.raises(InputError) as caught:
        run(tmp_path, [sample(0, "a.", "b."), sample(0, "c.", "d.")])
    assert "id 'q0' again" in caught.value.problems[0].found


def test_misaligned_ids_and_grades_are_input_errors(tmp_path):
    with pytest.raises(InputError) as caught:
        run(tmp_path, [sample(0, "a.", "b.", ground_truth_ids=["a", "b"], ground_truth_relevance=[1])])
    assert "one grade per ground-truth id" in caught.value.problems[0].render()


def test_the_comparison_shows_the_paired_means_and_names_the_system_means(tmp_path):
    """The candidate leaves q4 and q5 unmeasured for retrieval (no ground truth); the baseline missed both. The
    comparison's Baseline/Candidate columns are the means over the 4 paired queries, the ones its Δ% is between
    (issue 35, item 12); the evidence names each system's own mean (the system table's) with its query count."""
    from gate.config import ReportConfig, UnmeasuredPolicy
    from gate.judge import judge_gate, judge_suite
    from gate.kinds.rag import DEFAULT_CHECKS
    from gate.report import context, write

    candidate = [sample(i, "An answer.", "An answer.", **({"ground_truth_ids": None} if i >= 4 else {}))
                 for i in range(6)]
    baseline = [sample(i, "An answer.", "An answer.", retrieved_ids=["c", "b", "a"] if i < 4 else ["x", "y", "z"])
                for i in range(6)]
    result = run(tmp_path, candidate, baseline)
    # reciprocal ranks by hand: candidate a,b,c with truth a (odd) / c (even); baseline c,b,a; q4, q5 missed
    cand_rr = [1 / 3, 1, 1 / 3, 1]
    base_rr = [1, 1 / 3, 1, 1 / 3, 0, 0]
    assert group(result)["mrr"] == pytest.approx(np.mean(cand_rr))
    assert group(result, "baseline")["mrr"] == pytest.approx(np.mean(base_rr))
    verdict = judge_gate("g", [judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN)])
    out = tmp_path / "out"
    write(verdict, context.RunInfo(generated_at="2026-11-22T00:00:00+00:00", output_dir="out"), ReportConfig(), out)
    report = (out / "report.md").read_text()
    system_cells: dict[str, list[str]] = {}  # the system table comes first (then the at-k table)
    for line in report.splitlines():
        if line.startswith(("| candidate", "| baseline")):
            system_cells.setdefault(line.split("|")[1].strip(), [c.strip() for c in line.split("|")])
    [mrr_row] = [line for line in report.splitlines() if line.startswith("| mrr |")]
    cells = [c.strip() for c in mrr_row.split("|")]
    paired_base, paired_cand = np.mean(base_rr[:4]), np.mean(cand_rr)
    assert cells[2:5] == [f"{paired_base:.3f}", f"{paired_cand:.3f}",
                          f"{100 * (paired_cand - paired_base) / paired_base:+.1f}%"]
    header = next(line for line in report.splitlines() if line.startswith("| System |"))
    column = [c.strip() for c in header.split("|")].index("mrr")
    assert system_cells["baseline (baseline)"][column] == f"{np.mean(base_rr):.3f}"
    assert system_cells["candidate"][column] == f"{np.mean(cand_rr):.3f}"
    assert (f"each system's mean over all its queries: {np.mean(base_rr):.3f} (6) → {np.mean(cand_rr):.3f} (4)"
            in cells[5])
    assert "n=4 paired" in cells[5]
    assert "Baseline and Candidate are the means over the n queries both systems measured" in report
