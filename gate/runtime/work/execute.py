"""Run the blocks of a `WorkPlan` (all, or one shard's) on a `TorchRuntime` into a `ResultStore`.

Each block is encoded in ONE engine call of exactly its texts, forgetting whatever the engine memoised
before (`encode_block`), so a text's batch mates -- and with them its last bits -- depend on the block
alone. A BERTScore block then scores, per recorded request, that request's pairs within the block in one
`score` call, so pair-scoring batches are a function of (block, request) too. Hence shard i of N computes
bitwise what an unsharded run computes for the same blocks on the same hardware.

With the persistent cache (`gate.runtime.work.cache`), a block's texts found there are adopted and only the
others are encoded, together. The cache is what makes a PR that changes only candidates cheap; a warm
result differs from a cold one in the last bits only (other batch mates), which is why `llm-gate run
--shard` leaves the cache out: shards must be bitwise what one unsharded cold run computes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gate.runtime.api import BERTSCORE, CLASSIFIER, EMBEDDING, BertScoreSpec, EngineCost, RuntimeSummary
from gate.runtime.engines import models
from gate.runtime.engines.device import cpu_caps
from gate.runtime.engines.session import EMBEDDING_LIBRARIES, TorchRuntime
from gate.runtime.work.cache import ArrayCache
from gate.runtime.work.plan import EnginePlan, Shard, WorkPlan, entry_key
from gate.runtime.work.store import EngineInfo, EngineResults, ResultStore


def execute(plan: WorkPlan, runtime: TorchRuntime, shard: Shard | None = None,
            cache: ArrayCache | None = None) -> ResultStore:
    """The results of the blocks `shard` owns (all blocks without a shard), reusing `cache`'s entries."""
    shard = shard or Shard(1, 1)
    cache = cache or ArrayCache(None, 0)
    wanted, have = (plan.batch_size, plan.batch_tokens), (runtime.config.batch_size, runtime.config.batch_tokens)
    if wanted != have:
        raise ValueError(f"the plan is for batches of (texts, positions) {wanted}, the runtime's are {have}")
    # Every shard loads every engine: its fingerprint and limits are checked against the other shards'.
    engines = tuple(_RUNNERS[engine.key.kind](engine, runtime, shard, cache) for engine in plan.engines)
    blocks = tuple(b for b in range(plan.total_blocks) if shard.owns(b))
    # No model work (heuristic, RAG without embeddings): no device to describe, and torch stays unimported.
    where = environment(runtime) if plan.engines else {}
    return ResultStore(plan.digest, plan.block_texts, plan.total_blocks, shard, blocks, engines, where)


def environment(runtime: TorchRuntime) -> dict[str, str]:
    """What decides the last bits beyond models and libraries: the device, its precision and its kernels."""
    choice = runtime.device
    if choice.device == "cuda":
        import torch

        kernels = torch.cuda.get_device_name(0)
    else:
        kernels = cpu_caps().kernels
    return {"device": choice.device, "dtype": choice.dtype, "kernels": str(kernels)}


def summary(runtime: TorchRuntime, cache: ArrayCache, store: ResultStore) -> RuntimeSummary:
    """The model work's cost, from the engines' meters; ends the run's use of the cache (size cap)."""
    costs, meters = [], {}
    for results in store.engines:
        key = results.info.key
        meter = runtime.meter(key.kind, key.name, key.layer)
        if meter is None:
            continue
        meters[id(meter)] = meter  # two names of one model directory share an engine: count it once
        costs.append(EngineCost(kind=key.kind, model=key.name, layer=key.layer, seconds=meter.seconds,
                                texts=results.encoded, tokens=meter.tokens, padded_positions=meter.positions))
    stats = cache.finish()
    choice = runtime.device
    return RuntimeSummary(
        device=choice.device, dtype=choice.dtype, threads=runtime.threads,
        model_seconds=sum(m.seconds for m in meters.values()), encoded_texts=sum(e.encoded for e in store.engines),
        encoded_tokens=sum(m.tokens for m in meters.values()),
        padded_positions=sum(m.positions for m in meters.values()), engines=tuple(costs),
        cache={"enabled": cache.enabled, **stats.to_dict()}, notes=stats.notes)


def _namespace(cache: ArrayCache, runtime: TorchRuntime, key, *extra: object) -> str:
    """Everything an engine's per-text arrays depend on besides the text (`gate.runtime.work.cache`); no digest
    work without a cache."""
    if not cache.enabled:
        return ""
    fingerprint = runtime.fingerprint(key.name, EMBEDDING_LIBRARIES if key.kind == EMBEDDING else ())
    choice = runtime.device
    return ArrayCache.namespace(key.kind, key.layer, fingerprint.weights, fingerprint.libraries,
                                models.files_digest(runtime.resolve(key.name)), choice.device, choice.dtype, *extra)


def _owned(engine: EnginePlan, shard: Shard):
    return [block for block in engine.blocks if shard.owns(block.number)]


def _split(cache: ArrayCache, namespace: str, texts, fits) -> tuple[dict[str, tuple[np.ndarray, bool]], list[str]]:
    """(the block's texts the cache answers, the texts to encode), in block order."""
    cached = cache.get_many(namespace, texts, fits) if cache.enabled else {}
    return cached, [t for t in texts if t not in cached]


def _bertscore(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache) -> EngineResults:
    key = engine.key
    model, _ = runtime.engine_for(BertScoreSpec(model=key.name, layer=key.layer))
    info = EngineInfo(key, runtime.fingerprint(key.name), max_tokens=int(model.max_tokens))
    namespace = _namespace(cache, runtime, key, "token states", model.max_tokens)
    values: dict[str, np.ndarray] = {}
    flags: dict[str, bool] = {}
    encoded = 0
    for block in _owned(engine, shard):
        cached, missing = _split(cache, namespace, block.texts, lambda t, v: model.fits(t, v))
        model.encode_block(missing)
        for text, (states, _) in cached.items():
            model.adopt_states(text, states)
        for text in missing if cache.enabled else ():  # token_states copies: only when kept
            cache.put(namespace, text, model.token_states(text))
        encoded += len(missing)
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


def _embedding(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache) -> EngineResults:
    key = engine.key
    embedder: Any = runtime.embedder(key.name)
    info = EngineInfo(key, runtime.fingerprint(key.name, EMBEDDING_LIBRARIES), dim=int(embedder.dim),
                      max_tokens=int(embedder.max_tokens))
    namespace = _namespace(cache, runtime, key, "truncation flags", embedder.max_tokens)
    values: dict[str, np.ndarray] = {}
    flags: dict[str, bool] = {}
    encoded = 0
    for block in _owned(engine, shard):
        cached, missing = _split(cache, namespace, block.texts, lambda _, v: embedder.fits(v))
        fresh = dict(zip(missing, embedder.encode_block(missing), strict=True))
        encoded += len(missing)
        for text, (vector, truncated) in cached.items():
            embedder.adopt(text, vector, truncated)
        for text in block.texts:
            entry = entry_key(key, text)
            values[entry] = np.asarray(fresh[text] if text in fresh else cached[text][0], dtype=np.float32)
            flags[entry] = embedder.truncated(text)
            if text in fresh:
                cache.put(namespace, text, values[entry], flags[entry])
    return EngineResults(info, values, flags, encoded)


def _classifier(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache) -> EngineResults:
    key = engine.key
    classifier: Any = runtime.classifier(key.name)
    info = EngineInfo(key, runtime.fingerprint(key.name), max_tokens=int(classifier.max_tokens),
                      id2label=tuple(sorted(classifier.id2label.items())))
    namespace = _namespace(cache, runtime, key, "softmax windows", classifier.max_tokens)
    values: dict[str, np.ndarray] = {}
    flags: dict[str, bool] = {}
    encoded = 0
    for block in _owned(engine, shard):
        cached, missing = _split(cache, namespace, block.texts, lambda t, v: classifier.fits(t, v))
        classifier.classify_block(missing)
        encoded += len(missing)
        for text, (probs, windowed) in cached.items():
            classifier.adopt(text, probs, windowed)
        for text in block.texts:
            entry = entry_key(key, text)
            values[entry], flags[entry] = classifier.softmax_windows(text)
            if text not in cached:
                cache.put(namespace, text, values[entry], flags[entry])
    return EngineResults(info, values, flags, encoded)


_RUNNERS = {BERTSCORE: _bertscore, EMBEDDING: _embedding, CLASSIFIER: _classifier}
