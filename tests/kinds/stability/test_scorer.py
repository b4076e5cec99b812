"""The stability scorer against a numpy reference of the formula on fixed embeddings."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.kinds.base import ScoringContext
from gate.kinds.stability.config import AnswerProbability, StabilitySuiteConfig
from gate.kinds.stability.records import StabilityRecord, load_stability
from gate.kinds.stability.scorer import response_probability, score_stability
from gate.stats.similarity import off_diagonal_mean
from tests.support.fake_runtime import FakeRuntime

VECTORS = {"a": [1.0, 0.0, 0.0], "b": [0.8, 0.6, 0.0], "c": [0.0, 1.0, 0.0], "d": [0.6, 0.0, 0.8],
           "e": [1.0, 1.0, 1.0]}


def reference(texts, probabilities):
    """The DESIGN.md §4 reading of the seed: (mean over i != j of cos) * mean(P)."""
    v = np.array([VECTORS[t] for t in texts], dtype=float)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    sims = v @ v.T
    n = len(texts)
    off = [sims[i, j] for i in range(n) for j in range(n) if i != j]
    return float(np.mean(off)) * float(np.mean(probabilities))


def record(model="m", task="t", question="q1", response="a", **extra) -> dict:
    return {"model": model, "task": task, "question_id": question, "response": response, **extra}


def score(tmp_path, rows, mode=AnswerProbability.GEOMETRIC, name="r.jsonl", truncated=None):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = StabilitySuiteConfig(kind="stability", records=[name], answer_probability=mode)
    gate = GateConfig(version=1, suites={"s": suite})
    return score_stability("s", suite, load_stability("s", suite, tmp_path),
                           ScoringContext(gate, FakeRuntime(vectors=VECTORS, truncated=truncated), tmp_path))


def items(result):
    return {dict(i.key)["question_id"]: i.values for i in result.items}


def test_coefficient_equals_the_numpy_reference(tmp_path):
    lps = [[-0.1, -0.3], [-0.2], [-0.5, -0.5, -0.2], [-1.0]]
    rows = [record(response=t, variant_id=f"v{k}", token_logprobs=lp)
            for k, (t, lp) in enumerate(zip("abcd", lps, strict=True))]
    result = score(tmp_path, rows)
    geometric = [math.exp(np.mean(lp)) for lp in lps]
    q = items(result)["q1"]
    assert q["n"] == 4
    assert q["stability_coefficient"] == pytest.approx(reference("abcd", geometric), abs=1e-12)
    assert q["answer_probability"] == pytest.approx(np.mean(geometric))
    assert q["probability_source"] == "geometric"


@pytest.mark.parametrize("mode, per_response", [
    (AnswerProbability.GEOMETRIC, lambda lp: math.exp(np.mean(lp))),
    (AnswerProbability.JOINT, lambda lp: math.exp(np.sum(lp))),
    (AnswerProbability.MEAN, lambda lp: float(np.mean(np.exp(lp)))),
])
def test_probability_modes(tmp_path, mode, per_response):
    lps = [[-0.1, -0.7], [-0.4, -0.05, -0.3]]
    rows = [record(response=t, token_logprobs=lp) for t, lp in zip("ab", lps, strict=True)]
    q = items(score(tmp_path, rows, mode))["q1"]
    assert q["stability_coefficient"] == pytest.approx(reference("ab", [per_response(lp) for lp in lps]))


def test_given_answer_probability_wins_and_partial_probabilities_are_noted(tmp_path):
    assert response_probability(StabilityRecord(model="m", task="t", question_id="1", response="x",
                                                answer_probability=0.3, token_logprobs=[-5.0]),
                                AnswerProbability.GEOMETRIC) == 0.3
    rows = [record(response="a", answer_probability=0.9), record(response="b", answer_probability=0.5),
            record(response="c")]
    result = score(tmp_path, rows)
    q = items(result)["q1"]
    assert q["answer_probability"] == pytest.approx(0.7) and q["probability_source"] == "partial (2 of 3)"
    assert any("only some responses" in n for n in result.notes)


def test_responses_cut_at_the_embedding_limit_are_noted(tmp_path):
    rows = [record(response=t, answer_probability=0.9) for t in "abc"]
    assert not any("token limit" in n for n in score(tmp_path, rows).notes)
    notes = score(tmp_path, rows, truncated={"b"}).notes
    assert "1 of 3 responses exceed the embedding model's 256-token limit; their embeddings come from their first " \
           "256 tokens (sentence-transformers truncates, as the seeds' scripts do)." in notes


def test_n1_is_unmeasured_n2_is_one_pair_and_questions_may_differ_in_n(tmp_path):
    rows = [record(question="single", response="a", answer_probability=0.8),
            record(question="pair", response="a", answer_probability=1.0),
            record(question="pair", response="b", answer_probability=0.5),
            record(question="five", response="a", answer_probability=1.0)] + [
            record(question="five", response=t, answer_probability=1.0) for t in "bcde"]
    result = score(tmp_path, rows)
    values = items(result)
    assert values["single"]["stability_coefficient"] is None
    assert result.unmeasured_reason((("model", "m"), ("task", "t"), ("question_id", "single")),
                                    "stability_coefficient") == "only one response: n < 2"
    assert values["pair"]["stability_coefficient"] == pytest.approx(0.8 * 0.75)  # cos(a, b) = 0.8
    assert values["five"]["stability_coefficient"] == pytest.approx(reference("abcde", [1.0] * 5))
    [group] = result.groups_at("group")
    expected = [0.8 * 0.75, reference("abcde", [1.0] * 5)]
    assert group.metrics["stability_coefficient"] == pytest.approx(np.mean(expected))  # n=1 left out
    assert group.metrics["stability_coefficient_std"] == pytest.approx(np.std(expected))
    assert group.metrics["questions"] == 2


def test_no_probabilities_anywhere_means_p_is_one(tmp_path):
    result = score(tmp_path, [record(response="a"), record(response="c")])
    assert items(result)["q1"]["stability_coefficient"] == pytest.approx(0.0)  # cos(a, c) = 0
    assert items(result)["q1"]["probability_source"] == "none (P = 1)"
    assert "P = 1" in result.notes[0]


def test_groups_per_model_task_model_and_variation(tmp_path):
    rows = []
    for model, texts in (("good", "aab"), ("bad", "acd")):
        for task in ("x", "y"):
            rows += [record(model=model, task=task, response=t, answer_probability=1.0,
                            variation=["original", "typo", "reordered"][k]) for k, t in enumerate(texts)]
    result = score(tmp_path, rows)
    cells = {tuple(v for _, v in g.key): g.metrics["stability_coefficient"] for g in result.groups_at("group")}
    assert cells[("good", "x")] == pytest.approx(reference("aab", [1, 1, 1]))
    assert cells[("bad", "y")] == pytest.approx(reference("acd", [1, 1, 1]))
    per_model = {dict(g.key)["model"]: g for g in result.groups_at("model")}
    assert per_model["good"].metrics["questions"] == 2
    variation = {tuple(v for _, v in g.key): g.metrics["mean_similarity"] for g in result.groups_at("variation")}
    # "reordered" in bad: d's mean similarity to a (0.6) and c (0.0)
    assert variation[("bad", "reordered")] == pytest.approx(0.3)
    assert variation[("good", "original")] == pytest.approx((1.0 + 0.8) / 2)


def test_csv_input_and_input_errors(in_tmp):
    tmp_path = in_tmp
    (tmp_path / "r.csv").write_text("model,task,question_id,variant_id,response,token_logprobs\n"
                                    'm,t,1,v1,a,"[-0.1, -0.2]"\n'
                                    "m,t,1,v2,b,[-0.3]\n")
    suite = StabilitySuiteConfig(kind="stability", records=["r.csv"])
    data = load_stability("s", suite, tmp_path)
    assert data.records[0].token_logprobs == [-0.1, -0.2] and data.variants == ("v1", "v2")
    (tmp_path / "bad.csv").write_text("model,task,question_id,variant_id,response,token_logprobs,answer_probability\n"
                                      "m,t,1,v1,a,[-0.5],\n"
                                      "m,t,1,v1,b,,\n"
                                      "m,t,1,v2,b,not json,\n"
                                      "m,t,1,v3,c,,1.5\n"
                                      "m,t,1,v4,c,[0.5],\n")
    with pytest.raises(InputError) as caught:
        load_stability("s", StabilitySuiteConfig(kind="stability", records=["bad.csv"]), tmp_path)
    rendered = "\n".join(p.render() for p in caught.value.problems)
    assert "bad.csv:6" in rendered and "≤ 0" in rendered
    assert "bad.csv:3" in rendered and "variant 'v1' again (first at bad.csv:2)" in rendered
    assert "bad.csv:4" in rendered and "JSON list" in rendered
    assert "bad.csv:5" in rendered and "answer_probability" in rendered


def test_off_diagonal_mean_is_not_the_seeds_double_subtraction():
    sims = np.array([[1.0, 0.5], [0.5, 1.0]])
    assert off_diagonal_mean(sims) == 0.5  # the seed's (sum_{i!=j} - n) / n(n-1) would give -0.5


def test_questions_with_a_single_response_are_named_in_report_md(tmp_path):
    from gate.config import ReportConfig, UnmeasuredPolicy
    from gate.judge import judge_gate, judge_suite
    from gate.kinds.stability.scorer import DEFAULT_CHECKS
    from gate.report import context, write

    rows = [record(question="lonely", response="a"), record(task="u", question="alone", response="b"),
            record(question="pair", response="a"), record(question="pair", response="b")]
    result = score(tmp_path, rows)
    verdict = judge_gate("g", [judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN)])
    out = tmp_path / "out"
    write(verdict, context.RunInfo(generated_at="2026-11-22T00:00:00+00:00", output_dir="out"), ReportConfig(), out)
    note = "2 question(s) have a single response and are unmeasured (n < 2): m · t · lonely, m · u · alone."
    assert note in result.notes
    assert "> " + note.replace("<", "&lt;") in (out / "report.md").read_text()  # Markdown-escaped
    unmeasured = json.loads((out / "report.json").read_text())["suites"][0]["unmeasured"]
    assert {(u["key"].get("question_id"), u["reason"]) for u in unmeasured if u["key"].get("question_id")} == {
        ("lonely", "only one response: n < 2"), ("alone", "only one response: n < 2")}
