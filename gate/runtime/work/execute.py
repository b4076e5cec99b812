"""Run the blocks of a `WorkPlan` (all, or one shard's) on a `TorchRuntime` into a `ResultStore`.

Each block is encoded in ONE engine call of exactly its texts, forgetting whatever the engine memoised
before (`encode_block`), so a text's batch mates -- and with them its last bits -- depend on the block
alone. A BERTScore block then scores, per recorded request, that request's pairs within the block in one
`score` call, so pair-scoring batches are a function of (block, request) too. Hence shard i of N computes
bitwise what an unsharded run computes for the same blocks on the same hardware.

With the persistent cache (`gate.runtime.work.cache`), a block's texts found there are adopted and only the
others are encoded, together. The cache is what makes a PR that changes only candidates cheap; a warm
result differs from a cold one in the last bits only (other batch mates). Shards use the cache like any run:
shard i computes bitwise what an unsharded run computes for its blocks from the same cache.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from gate.runtime.api import BERTSCORE, CLASSIFIER, EMBEDDING, NLI, BertScoreSpec, EngineCost, RuntimeSummary
from gate.runtime.engines import progress
from gate.runtime.engines.device import available_cpus, cpu_caps
from gate.runtime.engines.session import TorchRuntime
from gate.runtime.work.cache import ArrayCache
from gate.runtime.work.cached import (
    ENTRY_KIND,
    PAIR_SCORES,
    engine_fingerprint,
    entries_namespace,
    from_cache,
    pair_text,
    remember,
)
from gate.runtime.work.plan import Block, EngineKey, EnginePlan, Shard, WorkPlan, entry_key
from gate.runtime.work.store import EngineInfo, EngineResults, ResultStore


def execute(plan: WorkPlan, runtime: TorchRuntime, shard: Shard | None = None,
            cache: ArrayCache | None = None, shown: progress.Reporter | None = None,
            labels: Mapping[str, str] | None = None) -> ResultStore:
    """The results of the blocks `shard` owns (all blocks without a shard), reusing `cache`'s entries.

    `shown` displays the work (default: nothing), one task per engine named by `labels` (engine id -> label,
    e.g. the suites it serves; default: the engine alone)."""
    shown = shown or progress.Reporter(progress.Mode.OFF)
    shard = shard or Shard(1, 1)
    cache = cache or ArrayCache(None, 0)
    wanted, have = (plan.batch_size, plan.batch_tokens), (runtime.config.batch_size, runtime.config.batch_tokens)
    if wanted != have:
        raise ValueError(f"the plan is for batches of (texts, positions) {wanted}, the runtime's are {have}")
    # Every shard loads every engine: its fingerprint and limits are checked against the other shards'.
    engines: list[EngineResults] = []
    computed = False  # whether any engine ran here (else every result came from the cache, torch unimported)
    for engine in plan.engines:
        found = from_cache(engine, runtime, shard, cache)  # all cached: the model never loads
        if found is None and not computed:
            computed = True
            with shown.status("loading torch…"):
                runtime.device  # noqa: B018 -- selecting the device imports torch: the first seconds of a cold run
        engines.append(_run_engine(engine, runtime, shard, cache, shown, (labels or {}).get(engine.key.id), found))
    cache.flush()  # on disk before scoring and reports: a run killed before its `finish` keeps what it computed
    blocks = tuple(b for b in range(plan.total_blocks) if shard.owns(b))
    # No model work (a model-free kind, or one without embeddings): no device to describe, torch stays unimported.
    where = environment(runtime) if computed else cached_environment(runtime) if plan.engines else {}
    return ResultStore(plan.digest, plan.block_texts, plan.total_blocks, shard, blocks, tuple(engines), where)


def _run_engine(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache,
                shown: progress.Reporter, label: str | None, found: EngineResults | None) -> EngineResults:
    """One engine's share of the work as one task of `shown`: loading the model, then its blocks' texts; or
    `found`, its results all from the cache."""
    key = engine.key
    texts = sum(len(b.texts) for b in engine.blocks if shard.owns(b.number))
    label = label or progress.engine_label(key.kind, key.name, key.layer)
    if found is not None:
        with shown.task(label, texts) as task:
            task.advance(texts)
        return found
    with shown.task(label, texts, loading=key.name):
        results = _RUNNERS[key.kind](engine, runtime, shard, cache)
    remember(runtime, cache, results.info)
    return results


def environment(runtime: TorchRuntime) -> dict[str, str]:
    """What decides the last bits beyond models and libraries: the device, its precision and its kernels."""
    choice = runtime.device
    if choice.device == "cuda":
        import torch

        kernels = torch.cuda.get_device_name(0)
    else:
        kernels = cpu_caps().kernels
    return {"device": choice.device, "dtype": choice.dtype, "kernels": str(kernels)}


def cached_environment(runtime: TorchRuntime) -> dict[str, str]:
    """`environment` of a store whose every result came from the cache: no kernel ran here (torch, which probes
    them, was not imported); the values are those of the run that cached them."""
    choice = runtime.choice
    return {"device": choice.device, "dtype": choice.dtype, "kernels": "none: every result from the cache"}


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
    choice = runtime.choice  # no engine loaded (all cached): decided without torch where certain
    return RuntimeSummary(
        device=choice.device, dtype=choice.dtype, threads=runtime.threads or threads_for(runtime),
        model_seconds=sum(m.seconds for m in meters.values()), encoded_texts=sum(e.encoded for e in store.engines),
        encoded_tokens=sum(m.tokens for m in meters.values()),
        padded_positions=sum(m.positions for m in meters.values()), engines=tuple(costs),
        cache={"enabled": cache.enabled, **stats.to_dict()}, notes=stats.notes)


def threads_for(runtime: TorchRuntime) -> int:
    """The threads torch would have been given (`device.set_threads`), for a run that never loaded it."""
    return runtime.config.threads or available_cpus()


def _namespace(cache: ArrayCache, runtime: TorchRuntime, key: EngineKey, what: str, max_tokens: int) -> str:
    """Everything an engine's per-text arrays depend on besides the text (`gate.runtime.work.cache`); no digest
    work without a cache."""
    return entries_namespace(runtime, key, what, max_tokens) if cache.enabled else ""


Cached = dict[str, tuple[np.ndarray, bool]]
# One block's work for one engine kind: given the block, the texts the cache answered (text -> (array, flag))
# and the texts to encode, encode those, adopt the cached ones, save new arrays to the cache, and yield
# (entry key, value, flag) for every result the block owns.
BlockStep = Callable[[Block, Cached, list[str]], Iterator[tuple[str, np.ndarray, bool]]]


def _run_blocks(engine: EnginePlan, shard: Shard, cache: ArrayCache, namespace: str, info: EngineInfo,
                fits: Callable[[str, np.ndarray], bool], step: BlockStep) -> EngineResults:
    """The one block loop every engine kind shares: per owned block, split it into cached and missing texts
    (`fits` rejects a cached array of the wrong shape for the model), let `step` do the kind's work, and
    count what was encoded."""
    values: dict[str, np.ndarray] = {}
    flags: dict[str, bool] = {}
    encoded = 0
    task = progress.active()  # `_run_engine`'s
    task.loaded()
    for block in engine.blocks:
        if not shard.owns(block.number):
            continue
        cached = cache.get_many(namespace, block.texts, fits) if cache.enabled else {}
        missing = [t for t in block.texts if t not in cached]
        for entry, value, flag in step(block, cached, missing):
            values[entry], flags[entry] = value, flag
        encoded += len(missing)
        task.advance(len(block.texts))
    return EngineResults(info, values, flags, encoded)


def _bertscore(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache) -> EngineResults:
    """Token states per text (cached), then per recorded request its pairs within the block in one `score` call;
    the block's states are released once its pairs are scored (a pair's texts share its block)."""
    key = engine.key
    model, _ = runtime.engine_for(BertScoreSpec(model=key.name, layer=key.layer))
    info = EngineInfo(key, engine_fingerprint(runtime, key), max_tokens=int(model.max_tokens))
    namespace = _namespace(cache, runtime, key, ENTRY_KIND[BERTSCORE], model.max_tokens)
    pairs_at = _namespace(cache, runtime, key, PAIR_SCORES, model.max_tokens)

    def step(block: Block, cached: Cached, missing: list[str]) -> Iterator[tuple[str, np.ndarray, bool]]:
        model.encode_block(missing)
        for text, (states, _) in cached.items():
            model.adopt_states(text, states)
        for text in missing if cache.enabled else ():  # token_states copies: only when kept
            cache.put(namespace, text, model.token_states(text))
        members = set(block.texts)
        for call in engine.calls:
            pairs = [pair for pair in call.pairs if pair[0] in members]  # a pair's texts share a block
            if not pairs:
                continue
            raw = model.score([c for c, _ in pairs], [r for _, r in pairs],
                              idf_corpus=list(call.idf) if call.idf is not None else None)
            for i, (candidate, reference) in enumerate(pairs):
                scores = np.array([raw.precision[i], raw.recall[i], raw.f1[i]], dtype=np.float64)
                if cache.enabled:  # a later run with every pair cached needs no model (`gate.runtime.work.cached`)
                    cache.put(pairs_at, pair_text(call.idf_digest, candidate, reference), scores,
                              bool(raw.windowed[i]), counted=False)
                yield entry_key(key, call.idf_digest, candidate, reference), scores, bool(raw.windowed[i])
        model.release(block.texts)  # scored: holding every block's states grew a run by ~0.4 MB a text

    return _run_blocks(engine, shard, cache, namespace, info, lambda t, v: model.fits(t, v), step)


def _embedding(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache) -> EngineResults:
    """One vector per text; over `max_tokens` a text is truncated (the flag)."""
    key = engine.key
    embedder: Any = runtime.embedder(key.name)
    info = EngineInfo(key, engine_fingerprint(runtime, key), dim=int(embedder.dim),
                      max_tokens=int(embedder.max_tokens))
    namespace = _namespace(cache, runtime, key, ENTRY_KIND[EMBEDDING], embedder.max_tokens)

    def step(block: Block, cached: Cached, missing: list[str]) -> Iterator[tuple[str, np.ndarray, bool]]:
        fresh = dict(zip(missing, embedder.encode_block(missing), strict=True))
        for text, (vector, truncated) in cached.items():
            embedder.adopt(text, vector, truncated)
        for text in block.texts:
            value = np.asarray(fresh[text] if text in fresh else cached[text][0], dtype=np.float32)
            flag = embedder.truncated(text)
            if text in fresh:
                cache.put(namespace, text, value, flag)
            yield entry_key(key, text), value, flag

    return _run_blocks(engine, shard, cache, namespace, info, lambda _, v: embedder.fits(v), step)


def _classifier(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache) -> EngineResults:
    """The softmax of every window of a text (over `max_tokens`, overlapping windows: the flag); an NLI engine's
    texts are its (premise, hypothesis) pairs (`gate.runtime.engines.entailment.pair_text`)."""
    key = engine.key
    classifier: Any = runtime.nli(key.name) if key.kind == NLI else runtime.classifier(key.name)
    info = EngineInfo(key, engine_fingerprint(runtime, key), max_tokens=int(classifier.max_tokens),
                      id2label=tuple(sorted(classifier.id2label.items())))
    namespace = _namespace(cache, runtime, key, ENTRY_KIND[key.kind], classifier.max_tokens)

    def step(block: Block, cached: Cached, missing: list[str]) -> Iterator[tuple[str, np.ndarray, bool]]:
        classifier.classify_block(missing)
        for text, (probs, windowed) in cached.items():
            classifier.adopt(text, probs, windowed)
        for text in block.texts:
            value, flag = classifier.softmax_windows(text)
            if text not in cached:
                cache.put(namespace, text, value, flag)
            yield entry_key(key, text), value, flag

    return _run_blocks(engine, shard, cache, namespace, info, lambda t, v: classifier.fits(t, v), step)


_RUNNERS = {BERTSCORE: _bertscore, EMBEDDING: _embedding, CLASSIFIER: _classifier, NLI: _classifier}
