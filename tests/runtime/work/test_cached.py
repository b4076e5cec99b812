"""A run whose every model output is cached loads no engine (`gate.runtime.work.cached`), and answers exactly
what the run that cached them computed; anything missing, and the engines load as before.

Real engines (a tiny BERT for BERTScore, a tiny ALBERT classifier, the embedded MiniLM embedder).
"""

from __future__ import annotations

import numpy as np
import pytest

from gate.config import RuntimeConfig
from gate.runtime.api import BertScoreSpec
from gate.runtime.engines import device
from gate.runtime.engines.session import TorchRuntime, resolve_layer
from gate.runtime.work.cache import ArrayCache
from gate.runtime.work.execute import execute, summary
from gate.runtime.work.plan import RecordingRuntime, build_plan
from gate.runtime.work.replay import StoreRuntime
from tests.support.tiny_models import FEEDBACK_SENTENCES, build_tiny_albert_classifier, build_tiny_bert

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
CANDIDATES = [*FEEDBACK_SENTENCES[:5], " ".join(FEEDBACK_SENTENCES[:8])]  # the last one windowed / truncated


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return build_tiny_bert(root / "bert"), build_tiny_albert_classifier(root / "albert"), root


def run(models, cache_dir, candidates=CANDIDATES):
    """Plan (labels from config.json, as a run plans), execute with the cache, replay: (runtime, summary,
    values)."""
    bert, albert, root = models
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(cache_dir), batch_size=4, device="cpu"), root)
    cache = ArrayCache(cache_dir, 2**30)
    references = list(FEEDBACK_SENTENCES[12:12 + len(candidates)])
    recorder = RecordingRuntime(runtime.declared_labels, resolve_layer)
    spec = BertScoreSpec(model=bert, layer=2)
    recorder.bertscore(spec, candidates, references)
    recorder.embed(MINILM, candidates)
    recorder.classify(albert, candidates, 1)
    store = execute(build_plan(recorder.requests, 5, 4), runtime, None, cache)
    replay = StoreRuntime(store)
    scores, vectors = replay.bertscore(spec, candidates, references), replay.embed(MINILM, candidates)
    classes = replay.classify(albert, candidates, 1)
    values = (scores.f1, scores.windowed, vectors.vectors, vectors.truncated, classes.probability, classes.windowed,
              store.engine(store.engines[0].info.key).info.max_tokens)
    return runtime, summary(runtime, cache, store), values


def same(first, second) -> bool:
    return all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b for a, b in zip(first, second,
                                                                                            strict=True))


def test_a_fully_cached_run_loads_no_engine_and_equals_the_cold_run(models, tmp_path):
    cold_runtime, cold_work, cold = run(models, tmp_path)
    assert len(cold_runtime.loaded_engines()) == 3 and cold_work.encoded_texts > 0
    warm_runtime, warm_work, warm = run(models, tmp_path)
    assert warm_runtime.loaded_engines() == [] and warm_runtime._device is None  # no engine, no torch device
    assert warm_work.encoded_texts == 0 and warm_work.model_seconds == 0 and warm_work.engines == ()
    assert warm_work.cache["hits"] == cold_work.cache["written"] and warm_work.cache["misses"] == 0
    assert (warm_work.device, warm_work.dtype) == (cold_work.device, cold_work.dtype) == ("cpu", "float32")
    assert same(warm, cold) and any(cold[1]) and any(cold[5])  # windowed flags survive, exactly


def test_one_missing_output_loads_the_engine(models, tmp_path):
    run(models, tmp_path)
    runtime, work, warm = run(models, tmp_path, [*CANDIDATES[:-1], "A rewritten answer."])
    assert len(runtime.loaded_engines()) == 3 and work.encoded_texts == 3  # one new text per engine
    _, _, cold = run(models, tmp_path / "fresh", [*CANDIDATES[:-1], "A rewritten answer."])
    for a, b in zip(warm, cold, strict=True):  # other batch mates move the last bits only
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), atol=1e-5)


def test_a_cache_without_engine_manifests_loads_the_engines_and_agrees(models, tmp_path):
    """A cache an earlier version wrote (no manifests, no pair scores): the engines load, as before."""
    _, _, cold = run(models, tmp_path)
    for manifest in tmp_path.rglob("engine.json"):
        manifest.unlink()
    runtime, work, warm = run(models, tmp_path)
    assert len(runtime.loaded_engines()) == 3 and work.encoded_texts == 0 and same(warm, cold)
    runtime, _, again = run(models, tmp_path)  # the loaded engines wrote them back
    assert runtime.loaded_engines() == [] and same(again, cold)


def test_the_device_is_decided_without_torch_only_where_certain(monkeypatch):
    from gate.config import Device, Precision

    assert device.peek(Device.CPU, Precision.AUTO) == device.DeviceChoice("cpu", "float32", "cpu")
    assert device.peek(Device.CUDA, Precision.AUTO) is None  # only torch can say whether it is there
    assert device.peek(Device.CPU, Precision.BF16) is None  # native bf16: torch's CPU probe
    monkeypatch.setattr(device, "cuda_possible", lambda: True)
    assert device.peek(Device.AUTO, Precision.AUTO) is None
    monkeypatch.setattr(device, "cuda_possible", lambda: False)
    assert device.peek(Device.AUTO, Precision.FP32) == device.DeviceChoice("cpu", "float32", "cpu")
