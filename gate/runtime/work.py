"""Run the blocks of a `WorkPlan` (all, or one shard's) on a `TorchRuntime` into a `ResultStore`.

Each block is encoded in ONE engine call of exactly its texts, forgetting whatever the engine memoised
before (`encode_block`), so a text's batch mates -- and with them its last bits -- depend on the block
alone. A BERTScore block then scores, per recorded request, that request's pairs within the block in one
`score` call, so pair-scoring batches are a function of (block, request) too. Hence shard i of N computes
bitwise what an unsharded run computes for the same blocks on the same hardware.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gate.runtime.api import BertScoreSpec
from gate.runtime.plan import BERTSCORE, CLASSIFIER, EMBEDDING, EnginePlan, Shard, WorkPlan, entry_key
from gate.runtime.session import EMBEDDING_LIBRARIES, TorchRuntime
from gate.runtime.store import EngineInfo, EngineResults, ResultStore


def execute(plan: WorkPlan, runtime: TorchRuntime, shard: Shard | None = None) -> ResultStore:
    """The results of the blocks `shard` owns (all blocks without a shard)."""
    shard = shard or Shard(1, 1)
    if runtime.config.batch_size != plan.batch_size:
        raise ValueError(f"the plan is for batches of {plan.batch_size}, the runtime's are {runtime.config.batch_size}")
    # Every shard loads every engine: its fingerprint and limits are checked against the other shards'.
    engines = tuple(_RUNNERS[engine.key.kind](engine, runtime, shard) for engine in plan.engines)
    blocks = tuple(b for b in range(plan.total_blocks) if shard.owns(b))
    return ResultStore(plan.digest, plan.block_texts, plan.total_blocks, shard, blocks, engines, environment(runtime))


def environment(runtime: TorchRuntime) -> dict[str, str]:
    """What decides the last bits beyond models and libraries: the device, its precision and its kernels."""
    import torch

    choice = runtime.device
    kernels = torch.cuda.get_device_name(0) if choice.device == "cuda" else torch.backends.cpu.get_cpu_capability()
    return {"device": choice.device, "dtype": choice.dtype, "kernels": str(kernels)}


def _owned(engine: EnginePlan, shard: Shard):
    return [block for block in engine.blocks if shard.owns(block.number)]


def _bertscore(engine: EnginePlan, runtime: TorchRuntime, shard: Shard) -> EngineResults:
    key = engine.key
    model, _ = runtime.engine_for(BertScoreSpec(model=key.name, layer=key.layer))
    info = EngineInfo(key, runtime.fingerprint(key.name), max_tokens=int(model.max_tokens))
    values: dict[str, np.ndarray] = {}
    flags: dict[str, bool] = {}
    encoded = 0
    for block in _owned(engine, shard):
        model.encode_block(block.texts)
        encoded += len(block.texts)
        members = set(block.texts)
        for call in engine.calls:
            pairs = [pair for pair in call.pairs if pair[0] in members]  # a pair's texts share a block
            if not pairs:
                continue
            raw = model.score([c for c, _ in pairs], [r for _, r in pairs],
                              idf_corpus=list(call.idf) if call.idf is not None else None)
            for i, (candidate, reference) in enumerate(pairs):
                entry = entry_key(key, call.idf_digest, candidate, reference)
                values[entry] = np.array([raw.precision[i], raw.recall[i], raw.f1[i]], dtype=np.float64)
                flags[entry] = bool(raw.windowed[i])
    return EngineResults(info, values, flags, encoded)


def _embedding(engine: EnginePlan, runtime: TorchRuntime, shard: Shard) -> EngineResults:
    key = engine.key
    embedder: Any = runtime.embedder(key.name)
    info = EngineInfo(key, runtime.fingerprint(key.name, EMBEDDING_LIBRARIES), dim=int(embedder.dim))
    values: dict[str, np.ndarray] = {}
    encoded = 0
    for block in _owned(engine, shard):
        vectors = embedder.encode_block(block.texts)
        encoded += len(block.texts)
        for text, vector in zip(block.texts, vectors, strict=True):
            values[entry_key(key, text)] = np.asarray(vector, dtype=np.float32)
    return EngineResults(info, values, dict.fromkeys(values, False), encoded)


def _classifier(engine: EnginePlan, runtime: TorchRuntime, shard: Shard) -> EngineResults:
    key = engine.key
    classifier: Any = runtime.classifier(key.name)
    info = EngineInfo(key, runtime.fingerprint(key.name), max_tokens=int(classifier.max_tokens),
                      id2label=tuple(sorted(classifier.id2label.items())))
    values: dict[str, np.ndarray] = {}
    flags: dict[str, bool] = {}
    encoded = 0
    for block in _owned(engine, shard):
        classifier.classify_block(block.texts)
        encoded += len(block.texts)
        for text in block.texts:
            entry = entry_key(key, text)
            values[entry], flags[entry] = classifier.softmax_windows(text)
    return EngineResults(info, values, flags, encoded)


_RUNNERS = {BERTSCORE: _bertscore, EMBEDDING: _embedding, CLASSIFIER: _classifier}
