"""Sharded model work on the bundled example equals the unsharded run bitwise, through files and a merge.

One plan with small blocks (several per engine), computed whole and as shards 1/3, 2/3, 3/3 saved to
files; the merged shards score every suite to exactly (==) the values of the unsharded store. The
unsharded store in turn equals the direct path (scorers on TorchRuntime) within 1e-6: blocks change a
text's batch mates, which moves the last bits only.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gate.config import RuntimeConfig
from gate.errors import InputError
from gate.run import read_config
from gate.runtime.api import BertScoreSpec
from gate.runtime.engines.session import TorchRuntime, resolve_layer
from gate.runtime.work.execute import execute
from gate.runtime.work.plan import RecordingRuntime, Shard, build_plan
from gate.runtime.work.replay import StoreRuntime
from gate.runtime.work.store import ResultStore
from gate.steps import (
    compute_model_work,
    load_suites,
    merge_model_work,
    plan_model_work,
    score,
    select_suites,
)
from tests.conftest import EXAMPLES
from tests.support.tiny_models import FEEDBACK_SENTENCES, build_tiny_bert

BLOCK = 40  # texts per block: 4 BERTScore, 2 classifier and 11 embedding blocks on the example


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    config = read_config(EXAMPLES / "gate.yml")
    cache = tmp_path_factory.mktemp("cache")
    config = config.model_copy(update={"runtime": config.runtime.model_copy(update={"cache_dir": str(cache)})})
    return config, EXAMPLES, load_suites(select_suites(config, []), EXAMPLES)


@pytest.fixture(scope="module")
def plain(example):
    """The unsharded store on a fresh runtime, and how often each engine forwarded a text."""
    config, base, loaded = example
    runtime = TorchRuntime(config.runtime, base)
    store = compute_model_work(loaded, config, runtime, base, block_texts=BLOCK)
    counts = (runtime.engine_for(BertScoreSpec("sentence-transformers/all-MiniLM-L6-v2", 6))[0].encode_count(),
              runtime.classifier("models/hearts-standin").encode_count(),
              runtime.embedder("sentence-transformers/all-MiniLM-L6-v2").encode_count())
    return store, runtime, counts


@pytest.fixture(scope="module")
def shard_paths(example, plain, tmp_path_factory):
    """Shards 1..3 of 3, on the runtime that already computed everything: what it memoised must not matter."""
    config, base, loaded = example
    folder = tmp_path_factory.mktemp("shards")
    return [compute_model_work(loaded, config, plain[1], base, shard=Shard(i, 3), block_texts=BLOCK)
            .save(folder / f"model-work-{i}.npz") for i in (1, 2, 3)]


def values(results) -> dict:
    """Every suite, group and item value of a run, by where it is."""
    out = {}
    for r in results:
        out.update({(r.name, "suite", k): v for k, v in r.metrics.items()})
        for g in r.groups:
            out.update({(r.name, g.level, g.key, k): v for k, v in g.metrics.items()})
        for item in r.items:
            out.update({(r.name, "item", item.key, k): v for k, v in item.values.items()})
    return out


def test_merged_shards_score_exactly_like_the_unsharded_run(example, plain, shard_paths):
    config, base, loaded = example
    whole = values(score(loaded, config, StoreRuntime(plain[0]), base))
    merged = values(score(loaded, config, StoreRuntime(merge_model_work(shard_paths, loaded, config, base)), base))
    assert merged.keys() == whole.keys() and len(whole) > 3000
    differing = [k for k in whole if not (merged[k] == whole[k] or _both_nan(merged[k], whole[k]))]
    assert differing == []  # ==, not approx: bitwise the same floats
    assert {r[0] for r in whole} == {"feedback-drift", "stereotype", "stability", "rubric", "retrieval"}


def test_shards_split_the_work_without_overlap(example, plain, shard_paths):
    config, base, loaded = example
    store, runtime, counts = plain
    plan = plan_model_work(loaded, config, base, runtime.classifier_labels, BLOCK)
    assert plan.digest == store.plan_digest and [len(e.blocks) for e in plan.engines] == [4, 2, 11]
    parts = [ResultStore.load(p) for p in shard_paths]
    assert sorted(b for p in parts for b in p.blocks) == list(range(store.total_blocks)) == list(range(17))
    for i, engine in enumerate(store.engines):
        keys = [set(p.engines[i].values) for p in parts]
        assert sum(map(len, keys)) == len(set().union(*keys)) and set().union(*keys) == set(engine.values)
        assert sum(p.engines[i].encoded for p in parts) == engine.encoded
        for key in engine.values:  # the arrays themselves, bit for bit
            part = next(p.engines[i] for p in parts if key in p.engines[i].values)
            assert part.values[key].tobytes() == engine.values[key].tobytes() and part.flags[key] == engine.flags[key]
    # every unique text was forwarded once per engine in the unsharded run
    assert counts == tuple(e.encoded for e in store.engines) == (132, 56, 405)


def test_unsharded_store_equals_the_direct_path_within_1e6(example, plain):
    config, base, loaded = example
    direct = values(score(loaded, config, TorchRuntime(config.runtime, base), base))
    stored = values(score(loaded, config, StoreRuntime(plain[0]), base))
    assert stored.keys() == direct.keys()
    for key, value in direct.items():
        if isinstance(value, float) and not isinstance(value, bool):
            assert stored[key] == pytest.approx(value, abs=1e-6, nan_ok=True), key
        else:
            assert stored[key] == value, key


def test_merge_refuses_shards_of_other_inputs(example, shard_paths):
    config, base, loaded = example
    fewer = [replace(s, data=replace(s.data, records=s.data.records[:-1])) if s.name == "stereotype" else s
             for s in loaded]
    with pytest.raises(InputError) as err:
        merge_model_work(shard_paths, fewer, config, base)
    problem = err.value.problems[0]
    assert "model-work-1.npz" in problem.file and "other inputs" in problem.found and "re-run" in problem.fix


def test_planning_never_calls_the_llm_judge(example, plain, monkeypatch):
    from gate.kinds.rag import grader_client

    config, base, loaded = example
    monkeypatch.setattr(grader_client, "run_grader", lambda *a, **k: pytest.fail("the planning pass judged"))
    judged = [replace(s, config=s.config.model_copy(update={"judge": s.config.judge.model_copy(
        update={"enabled": True})})) if s.name == "retrieval" else s for s in loaded]
    labels = StoreRuntime(plain[0]).classifier_labels
    plan = plan_model_work(judged, config, base, labels, BLOCK)
    assert plan.digest == plain[0].plan_digest  # the judge asks no model of ours


def test_idf_and_rescaled_bertscore_replay_bitwise(tmp_path):
    """One block, one request: the store replays `TorchRuntime.bertscore` exactly, rescaling included."""
    model = build_tiny_bert(tmp_path / "bert")
    (tmp_path / "baseline.tsv").write_text("LAYER,P,R,F\n2,0.31,0.32,0.315\n")
    spec = BertScoreSpec(model=model, layer=2, idf=True, rescale_with_baseline=True,
                         baseline_path=str(tmp_path / "baseline.tsv"))
    cands, refs = list(FEEDBACK_SENTENCES[:12]), list(FEEDBACK_SENTENCES[12:24])
    corpus = list(FEEDBACK_SENTENCES)
    config = RuntimeConfig(cache_dir=str(tmp_path / "cache"))
    direct = TorchRuntime(config, tmp_path).bertscore(spec, cands, refs, corpus)
    recorder = RecordingRuntime(lambda name: None, resolve_layer)
    recorder.bertscore(spec, cands, refs, corpus)
    store = execute(build_plan(recorder.requests, 100, config.batch_size), TorchRuntime(config, tmp_path))
    assert StoreRuntime(store).bertscore(spec, cands, refs, corpus) == direct
    assert direct.notes and dict(direct.fingerprint.params)["idf"] is True


def _both_nan(a, b) -> bool:
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def test_store_survives_a_round_trip(plain, tmp_path):
    store = plain[0]
    again = ResultStore.load(store.save(tmp_path / "whole.npz"))
    assert again.plan_digest == store.plan_digest and again.complete
    assert all(np.array_equal(a.values[k], b.values[k]) for a, b in zip(store.engines, again.engines, strict=True)
               for k in a.values)
    assert Path(again.source).name == "whole.npz"


@pytest.mark.parametrize("embedding_metrics", [True, False])
def test_a_scorers_plan_asks_exactly_what_its_scoring_asks(example, plain, embedding_metrics):
    """The planning pass takes a scorer's cheap `plan` where it has one (RAG): its requests must be scoring's, in
    order, or the run would find a result missing from the store."""
    from gate.kinds import get_kind
    from gate.runtime.facade import recorder
    from gate.steps.suites import ask, score

    config, base, loaded = example
    suites = [replace(s, config=s.config.model_copy(update={"embedding_metrics": embedding_metrics}))
              if s.config.kind == "rag" else s for s in loaded]
    assert any(get_kind(s.config.kind).plan for s in suites)
    labels = StoreRuntime(plain[0]).classifier_labels
    planned, scored = recorder(labels), recorder(labels)
    ask(suites, config, planned, base)
    score(suites, config, scored, base)
    assert planned.requests == scored.requests and (bool(planned.requests) or not embedding_metrics)
