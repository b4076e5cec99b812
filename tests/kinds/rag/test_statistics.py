"""A RAG system's figures recomputed from its queries (what a significance test resamples): corpus BLEU from
per-answer n-gram statistics against sacrebleu itself, percentiles, throughput, cost and the overall score
against the scorer's own values."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import sacrebleu

from gate.config import GateConfig, GraderConfig
from gate.config.loader import parse_config
from gate.errors import ConfigError
from gate.kinds import KINDS
from gate.kinds.base import ScoringContext
from gate.kinds.rag import score_rag
from gate.kinds.rag import summary as rag_summary
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.generation import BLEU_STATISTICS, bleu_statistics
from gate.kinds.rag.grader import GraderRun, GraderScore
from gate.kinds.rag.records import load_rag
from gate.kinds.rag.statistics import BLEU, corpus_bleu, overall_statistic
from tests.kinds.test_item_statistics import assert_recomputed, rows_of
from tests.support.fake_runtime import FakeRuntime

WORDS = "the a refunds take five business days logs are kept for thirty uptime is 99.9 % page on-call .".split()


def pairs(seed: int, count: int) -> list[tuple[str, str]]:
    """Random answers and references over a small vocabulary: some share many n-grams, some none, some 1-2 words."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        reference = " ".join(rng.choices(WORDS, k=rng.randint(1, 12)))
        kind = rng.random()
        if kind < 0.2:
            answer = "zebra " * rng.randint(1, 3)  # no match at all
        elif kind < 0.6:
            answer = " ".join(w if rng.random() < 0.7 else rng.choice(WORDS) for w in reference.split())
        else:
            answer = " ".join(rng.choices(WORDS, k=rng.randint(1, 14)))
        out.append((answer.strip(), reference))
    return out


def test_corpus_bleu_from_summed_statistics_is_sacrebleus():
    pool = pairs(11, 60)
    stats = np.array([bleu_statistics(a, r) for a, r in pool])
    rng = np.random.default_rng(2)
    subsets = [rng.choice(len(pool), size=size, replace=True) for size in (*range(1, 9), 20, 60) for _ in range(25)]
    zero = 0
    for subset in subsets:
        expected = sacrebleu.corpus_bleu([pool[i][0] for i in subset], [[pool[i][1] for i in subset]]).score / 100
        found = float(corpus_bleu(stats[subset].sum(axis=0)))
        assert found == pytest.approx(expected, rel=1e-9, abs=1e-15), subset
        zero += expected == 0
    assert 0 < zero < len(subsets)  # tiny corpora with no match (or no 4-gram) are among them
    resamples = stats[np.array([s for s in subsets if len(s) == 20])]  # vectorised: (25, 20, 10) in one call
    expected = [sacrebleu.corpus_bleu([pool[i][0] for i in s], [[pool[i][1] for i in s]]).score / 100
                for s in subsets if len(s) == 20]
    assert BLEU.compute(resamples) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_unanswered_queries_are_left_out_of_the_corpus():
    pool = pairs(4, 5)
    rows = np.array([bleu_statistics(a, r) for a, r in pool] + [[np.nan] * len(BLEU_STATISTICS)])
    expected = sacrebleu.corpus_bleu([a for a, _ in pool], [[r for _, r in pool]]).score / 100
    assert BLEU(rows) == pytest.approx(expected, rel=1e-9)
    assert np.isnan(BLEU(np.full((3, len(BLEU_STATISTICS)), np.nan)))


ANSWERS = [("Refunds take five business days.", "Refunds are processed within five business days."),
           ("The SLA guarantees 99.9% uptime per month.", "Uptime is guaranteed at 99.9 percent monthly."),
           ("Logs are kept for 30 days, then deleted.", "We retain logs for thirty days."),
           ("Contact on-call via the pager.", "Page the on-call engineer."), ("", "Empty answers are unmeasured."),
           ("No expected answer here.", None)]


def sample(i: int, system: str, rng: random.Random) -> dict:
    answer, expected = ANSWERS[i % len(ANSWERS)]
    truth = rng.sample(["a", "b", "c", "d", "e"], k=rng.randint(1, 2))
    return {"id": f"q{i}", "query": f"question {i}?", "actual_answer": answer, "expected_answer": expected,
            "retrieved_ids": rng.sample(["a", "b", "c", "d", "e"], k=3), "ground_truth_ids": truth,
            "latency": round(rng.uniform(0.2, 3.0), 3), "prompt_tokens": rng.randint(100, 900),
            "completion_tokens": rng.randint(10, 90), "system": system}


def grader(kind: str, config: GraderConfig, items) -> GraderRun:
    """Scripted scores; `accuracy` is unscored for 2 of 20 queries (10 %, over the scorer's 5 %), `coherence`
    for 1 (5 %, kept: a mean over the rest)."""
    def score(item) -> float | None:
        i = int(item.key) % 40
        if (item.criterion == "accuracy" and i in (3, 7)) or (item.criterion == "coherence" and i == 5):
            return None
        return round((i * 7 % 11) / 10, 1)
    scores = tuple(GraderScore(i.key, i.criterion, score(i), None if score(i) is not None else "no reply", False, 0)
                   for i in items)
    return GraderRun(scores, 0, 0, 0, 0.0, False)


def run(tmp_path, **fields):
    rng = random.Random(9)
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(sample(i, s, rng)) + "\n"
                                              for s in ("alpha", "beta") for i in range(20)))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(sample(i, "old", rng)) + "\n" for i in range(20)))
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], baseline=["b.jsonl"], k=[1, 3], **fields)
    gate = GateConfig(version=1, suites={"r": suite})
    context = ScoringContext(gate, FakeRuntime(), tmp_path, grader=grader)
    return suite, score_rag("r", suite, load_rag("r", suite, tmp_path), context)


def _which(group, item) -> bool:
    return item.details.which == ("baseline" if group.level == "baseline" else "candidate")


@pytest.mark.parametrize("judged", [False, True])
def test_every_system_figure_is_recomputed_from_its_queries(tmp_path, judged):
    fields = {"judge": {"enabled": True, "criteria": ["accuracy", "coherence"]},
              "overall_weights": {"mrr": 0.3, "recall_at_k": 0.2, "bleu": 0.2, "judge_accuracy": 0.2,
                                  "judge_coherence": 0.1}} if judged else {}
    suite, result = run(tmp_path, **fields)
    checked = assert_recomputed("rag", suite, result, ("group", "baseline"), {"queries"}, belongs=_which)
    assert checked >= 3 * 20
    metrics = result.groups_at("group")[0].metrics
    assert metrics["bleu"] is not None and metrics["overall_score"] is not None
    if judged:  # accuracy is left out of the overall score (and the weights rescale), coherence is kept
        assert metrics["judge_accuracy"] is None and metrics["judge_coherence"] is not None
    assert result.item_columns[-len(BLEU_STATISTICS):] == BLEU_STATISTICS  # items.csv lists what bleu sums
    answered = next(i for i in result.items if i.values["bleu"] is not None)
    assert all(answered.values[c] is not None for c in BLEU_STATISTICS)  # the values a snapshot keeps


def test_overall_score_recomputed_follows_summary_overall():
    """Against `summary.overall` on hand-made per-system means, including a component with no value at all."""
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], k=[1, 5],
                           overall_weights={"mrr": 0.5, "recall_at_k": 0.25, "context_similarity": 0.25, "ndcg": 0.0})
    statistic = overall_statistic(suite, 0.05)
    assert statistic.columns == ("reciprocal_rank", "recall_at_k.5", "context_similarity")  # a zero weight is no column
    rows = np.array([[1.0, 0.5, np.nan], [0.5, np.nan, np.nan], [0.0, 1.0, np.nan]])
    expected, left_out = rag_summary.overall({"mrr": 0.5, "recall_at_k.5": 0.75, "context_similarity": None},
                                             suite.overall_weights, 5)
    assert left_out == ["context_similarity"] and statistic(rows) == pytest.approx(expected, rel=1e-12)


def test_items_of_a_system_resampled_recompute_the_figures_each_time(tmp_path):
    """The statistics take a block of resamples (B, n, c) and give B values, each the figure of its resample."""
    suite, result = run(tmp_path)
    items = [i for i in result.items if dict(i.key)["system"] == "alpha"]
    rng = np.random.default_rng(0)
    draws = rng.integers(0, len(items), size=(6, len(items)))
    for metric in ("bleu", "overall_score", "latency_p95", "throughput_qps"):
        statistic = KINDS["rag"].statistic(suite, metric, tuple(items[0].values))
        rows = rows_of(items, statistic.columns) if len(statistic.columns) > 1 else \
            np.array([[float(i.values[statistic.columns[0]])] for i in items])
        together = statistic.compute(rows[draws])
        one_by_one = [statistic(rows[d]) for d in draws]
        assert together == pytest.approx(one_by_one, rel=1e-12, nan_ok=True)
        assert len(set(np.round(together, 12))) > 1, metric


RAG = "version: 1\nsuites:\n  r:\n    kind: rag\n    records: c.jsonl\n    baseline: b.jsonl\n    checks:\n"


@pytest.mark.parametrize("metric", ["bleu", "overall_score", "latency_p95", "throughput_qps", "cost_per_query"])
def test_significance_on_system_figures_loads(metric):
    config = parse_config(RAG + f"      {metric}: {{max_decrease: 0.05, significant: true}}\n", metrics=KINDS)
    assert config.suites["r"].checks[metric].significant


def test_significance_on_the_query_count_is_a_located_error():
    with pytest.raises(ConfigError) as caught:
        parse_config(RAG + "      queries: {max_decrease: 1, significant: true}\n", "gate.yml", metrics=KINDS)
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (8, "suites.r.checks.queries")
    assert "a metric the items determine" in problem.expected and problem.fix.startswith("drop `significant: true`")
