"""The persistent cache in the model work: a warm run encodes only what it has not seen, and agrees with cold.

Real engines (a tiny BERT for BERTScore, a tiny ALBERT classifier, the embedded MiniLM embedder) through
`gate.runtime.work.execute`, the path every run takes.
"""

from __future__ import annotations

import numpy as np
import pytest

from gate.config import Precision, RuntimeConfig
from gate.runtime.api import BertScoreSpec
from gate.runtime.engines import device
from gate.runtime.engines.device import CpuCaps
from gate.runtime.engines.session import TorchRuntime, resolve_layer
from gate.runtime.work.cache import ArrayCache
from gate.runtime.work.execute import execute, summary
from gate.runtime.work.plan import RecordingRuntime, build_plan
from gate.runtime.work.replay import StoreRuntime
from tests.support.tiny_models import FEEDBACK_SENTENCES, build_tiny_albert_classifier, build_tiny_bert

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
LONG = " ".join(FEEDBACK_SENTENCES[:8])  # past the tiny models' 32/64 positions: windowed


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return build_tiny_bert(root / "bert"), build_tiny_albert_classifier(root / "albert"), root


def workload(models, candidates, runtime):
    bert, albert, _ = models
    references = list(FEEDBACK_SENTENCES[12:12 + len(candidates)])
    recorder = RecordingRuntime(runtime.classifier_labels, resolve_layer)
    spec = BertScoreSpec(model=bert, layer=2)
    recorder.bertscore(spec, candidates, references)
    recorder.embed(MINILM, [*candidates, *references])
    recorder.classifier_labels(albert)
    recorder.classify(albert, candidates, 1)
    return spec, references, build_plan(recorder.requests, 5, 4)


def run(models, candidates, cache_dir, precision=Precision.AUTO):
    config = RuntimeConfig(cache_dir=str(cache_dir), batch_size=4, precision=precision)
    runtime = TorchRuntime(config, models[2])  # the workspace holds the models
    cache = ArrayCache(cache_dir, 2**30)
    spec, references, plan = workload(models, candidates, runtime)
    store = execute(plan, runtime, None, cache)
    work = summary(runtime, cache, store)
    replay = StoreRuntime(store)
    values = (replay.bertscore(spec, candidates, references).f1, replay.embed(MINILM, candidates).vectors,
              replay.classify(models[1], candidates, 1).probability)
    return values, work


CANDIDATES = [*FEEDBACK_SENTENCES[:11], LONG]


def test_a_warm_run_encodes_nothing_and_equals_the_cold_run(models, tmp_path):
    cold, first = run(models, CANDIDATES, tmp_path)
    warm, second = run(models, CANDIDATES, tmp_path)
    assert first.encoded_texts == 24 + 24 + 12 and first.cache["written"] == 60  # bertscore, embedder, classifier
    assert second.encoded_texts == 0 and second.cache["hits"] == 60 and second.model_seconds == 0
    assert warm[0] == cold[0] and np.array_equal(warm[1], cold[1]) and warm[2] == cold[2]


def test_changing_candidates_re_encodes_only_them(models, tmp_path):
    run(models, CANDIDATES, tmp_path)
    changed = [*CANDIDATES[:9], "A rewritten answer.", "Another new answer.", "A third new one."]
    warm, work = run(models, changed, tmp_path)
    assert work.encoded_texts == 3 * 3  # three new candidates for each of the three engines
    cold, _ = run(models, changed, tmp_path / "fresh")
    # other batch mates move the last bits only
    np.testing.assert_allclose(warm[0], cold[0], atol=1e-5)
    np.testing.assert_allclose(warm[1], cold[1], atol=1e-5)
    np.testing.assert_allclose(warm[2], cold[2], atol=1e-5)


def test_another_precision_never_reads_fp32_entries(models, tmp_path, monkeypatch):
    # The cache's keys are under test, not bf16 speed: a CPU without native bf16 is told it has it (torch
    # emulates it), so the test runs on any machine.
    monkeypatch.setattr(device, "cpu_caps", lambda: CpuCaps("AVX512", native_bf16=True))
    run(models, CANDIDATES, tmp_path)
    _, work = run(models, CANDIDATES, tmp_path, Precision.BF16)
    assert work.cache["hits"] == 0 and work.encoded_texts == 60 and work.dtype == "bfloat16"


def test_corrupt_entries_are_recomputed_not_trusted(models, tmp_path):
    cold, _ = run(models, CANDIDATES, tmp_path)
    for path in sorted((tmp_path / "vectors").rglob("*"))[::3]:
        if path.is_file():
            path.write_bytes(path.read_bytes()[:-8] + b"\x00" * 8)
    warm, work = run(models, CANDIDATES, tmp_path)
    assert work.cache["rejected"] > 0 and work.encoded_texts == work.cache["rejected"]
    np.testing.assert_allclose(warm[0], cold[0], atol=1e-5)
    np.testing.assert_allclose(warm[2], cold[2], atol=1e-5)


def test_summary_splits_the_cost_by_engine(models, tmp_path):
    _, work = run(models, CANDIDATES, tmp_path)
    by_kind = {e.kind: e for e in work.engines}
    assert sorted(by_kind) == ["bertscore", "classifier", "embedding"]
    assert (by_kind["bertscore"].texts, by_kind["embedding"].texts, by_kind["classifier"].texts) == (24, 24, 12)
    assert by_kind["bertscore"].layer == 2 and by_kind["embedding"].model == MINILM
    assert all(e.seconds > 0 and 0 < e.tokens <= e.padded_positions for e in work.engines)
    assert work.model_seconds == pytest.approx(sum(e.seconds for e in work.engines))
    assert work.padded_positions == sum(e.padded_positions for e in work.engines)
    assert work.to_dict()["engines"][0] == {"kind": "bertscore", "model": models[0], "layer": 2,
                                            "model_seconds": round(by_kind["bertscore"].seconds, 3), "texts": 24,
                                            "tokens": by_kind["bertscore"].tokens,
                                            "padded_positions": by_kind["bertscore"].padded_positions}


def test_the_truncation_flag_of_an_embedding_survives_the_cache(models, tmp_path):
    over = " ".join(FEEDBACK_SENTENCES * 3)  # past MiniLM's 256 tokens

    def embedded(cache_dir):
        config = RuntimeConfig(cache_dir=str(cache_dir), batch_size=4)
        runtime = TorchRuntime(config, models[2])
        recorder = RecordingRuntime(runtime.classifier_labels, resolve_layer)
        recorder.embed(MINILM, [over, "short"])
        cache = ArrayCache(cache_dir, 2**30)
        store = execute(build_plan(recorder.requests, 5, 4), runtime, None, cache)
        return StoreRuntime(store).embed(MINILM, ["short", over]), summary(runtime, cache, store)

    cold, first = embedded(tmp_path)
    warm, second = embedded(tmp_path)
    assert first.encoded_texts == 2 and second.encoded_texts == 0
    assert cold.truncated == warm.truncated == (False, True) and cold.max_tokens == warm.max_tokens == 256
    assert np.array_equal(cold.vectors, warm.vectors)


def test_token_states_are_released_block_by_block_with_the_same_numbers(models, tmp_path, monkeypatch):
    """Issue 37: each block's token states go once its pairs are scored, so a run holds one block's states, not
    every text's; the numbers are bitwise those of a run that kept them all, cold and warm (adopted states)."""
    from gate.runtime.engines.bertscore import BertScoreEngine

    changed = [*CANDIDATES[:9], "A rewritten answer.", "Another new answer.", "A third new one."]
    release = BertScoreEngine.release
    monkeypatch.setattr(BertScoreEngine, "release", lambda self, texts: None)  # as before: states kept
    kept = [run(models, texts, tmp_path / "kept")[0] for texts in (CANDIDATES, changed)]
    held: list[tuple[int, int]] = []  # (states held when a block is scored, after its release)

    def recording(self, texts):
        before = self.held()
        release(self, texts)
        held.append((before, self.held()))

    monkeypatch.setattr(BertScoreEngine, "release", recording)
    cold, cold_work = run(models, CANDIDATES, tmp_path / "released")
    blocks = len(held)
    warm, warm_work = run(models, changed, tmp_path / "released")  # 9 candidates' states adopted from the cache
    assert cold_work.encoded_texts == 60 and 0 < warm_work.cache["hits"] and warm_work.encoded_texts == 9
    assert blocks == 6 and len(held) == 12  # 12 pairs of 2 texts in blocks of 5 texts: two pairs a block
    assert max(b for b, _ in held) == 4 and {a for _, a in held} == {0}
    for mine, theirs in zip((cold, warm), kept, strict=True):
        assert mine[0] == theirs[0] and np.array_equal(mine[1], theirs[1]) and mine[2] == theirs[2]


def test_every_entry_is_on_disk_when_execute_returns_without_finish(models, tmp_path):
    """A sharded run (`run --shard`) executes its blocks and saves its store, never `finish`ing the cache: the small
    entries the cache held until then (pair scores, embeddings, classifier windows) are written by `execute` itself."""
    config = RuntimeConfig(cache_dir=str(tmp_path), batch_size=4)
    runtime = TorchRuntime(config, models[2])
    _, _, plan = workload(models, CANDIDATES, runtime)
    execute(plan, runtime, None, ArrayCache(tmp_path, 2**30))  # as the shard path does: no finish, no summary
    _, again = run(models, CANDIDATES, tmp_path)  # a later run finds everything
    assert again.encoded_texts == 0 and again.cache["hits"] == 60 and again.model_seconds == 0
