"""An engine's results straight from the persistent cache, without loading its model (or importing torch).

A pull request that changes nothing model-related -- a threshold, a report option, or nothing at all -- asks
for exactly the texts an earlier run computed. Loading an engine costs seconds (torch, transformers, the
weights) although its every output is in the cache. So before loading, `from_cache` looks everything up under
keys made without the model: the fingerprint (weight digest memoised by path, size and mtime; library
versions from the installed metadata; the precision from `TorchRuntime.choice`) and the engine's *manifest*
(its token limit, width and labels, saved by the run that loaded it). Only when every output is there is the
engine skipped; anything missing and the engine loads and runs as before (`gate.runtime.work.execute`).

BERTScore caches token states per text, but scoring pairs from them needs the model's tensors: its pair
scores (raw P/R/F, float64) are cached too, and a fully cached BERTScore engine answers from those. They are
the very values the run that cached them computed, so a fully cached run equals that run exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gate.runtime.api import BERTSCORE, CLASSIFIER, EMBEDDING, NLI, Fingerprint
from gate.runtime.engines import models
from gate.runtime.engines.native import IMPLEMENTATION, native_bert
from gate.runtime.engines.pooled import plain_layout
from gate.runtime.engines.session import EMBEDDING_LIBRARIES, TorchRuntime
from gate.runtime.work.cache import ArrayCache
from gate.runtime.work.plan import EngineKey, EnginePlan, Shard, entry_key
from gate.runtime.work.store import EngineInfo, EngineResults

# What each kind's per-text entries hold: part of their namespace (as `gate.runtime.work.execute` names them).
ENTRY_KIND = {BERTSCORE: "token states", EMBEDDING: "truncation flags", CLASSIFIER: "softmax windows",
              NLI: "pair softmax windows"}
PAIR_SCORES = "pair scores"


def engine_fingerprint(runtime: TorchRuntime, key: EngineKey) -> Fingerprint:
    """The engine's fingerprint as its results carry it, whether they are computed or read from the cache."""
    return runtime.fingerprint(key.name, EMBEDDING_LIBRARIES if key.kind == EMBEDDING else ())


def engine_namespace(runtime: TorchRuntime, key: EngineKey) -> str:
    """Everything an engine's outputs depend on besides its inputs and its own limits: model weights and files,
    library versions, device, precision, layer. Computed without loading the model."""
    return _namespace(runtime, key)


def entries_namespace(runtime: TorchRuntime, key: EngineKey, what: str, max_tokens: int) -> str:
    """The namespace of one kind of entry (`ENTRY_KIND`, `PAIR_SCORES`) of an engine with `max_tokens`."""
    return _namespace(runtime, key, what, max_tokens)


def _namespace(runtime: TorchRuntime, key: EngineKey, *entries: object) -> str:
    fingerprint = engine_fingerprint(runtime, key)
    choice = runtime.choice
    resolved = runtime.resolve(key.name)
    own = (IMPLEMENTATION,) if runs_natively(key.kind, resolved.path) else ()
    return ArrayCache.namespace(key.kind, key.layer, fingerprint.weights, fingerprint.libraries,
                                models.files_digest(resolved), choice.device, choice.dtype, *own, *entries)


def runs_natively(kind: str, path: Path) -> bool:
    """Whether the engine of `kind` runs the model at `path` as the gate's own BERT encoder (`gate.runtime.engines.
    native`): its entries then live in a namespace of their own, never mixed with states transformers computed."""
    if kind == EMBEDDING and plain_layout(path) is None:  # SentenceTransformer loads it through transformers
        return False
    return kind in (BERTSCORE, EMBEDDING) and native_bert(path) is not None


def pair_text(idf: str, candidate: str, reference: str) -> str:
    """A BERTScore pair as the cache's text key (JSON: no two pairs share one)."""
    return json.dumps([idf, candidate, reference])


def remember(runtime: TorchRuntime, cache: ArrayCache, info: EngineInfo) -> None:
    """Save what the loaded engine said about itself, so that a later run can skip loading it."""
    if cache.enabled:
        cache.put_manifest(engine_namespace(runtime, info.key), {"max_tokens": info.max_tokens, "dim": info.dim,
                                                                 "id2label": [list(p) for p in info.id2label]})


def from_cache(engine: EnginePlan, runtime: TorchRuntime, shard: Shard, cache: ArrayCache) -> EngineResults | None:
    """`engine`'s results for the blocks `shard` owns, every one from the cache; None when any is missing (or
    no run has saved the engine's manifest yet): then the engine must load. Nothing is counted on a miss."""
    if not cache.enabled:
        return None
    key = engine.key
    manifest = cache.get_manifest(engine_namespace(runtime, key))
    try:
        info = EngineInfo(key, engine_fingerprint(runtime, key),
                          max_tokens=int(manifest["max_tokens"]), dim=int(manifest["dim"]),  # type: ignore[index]
                          id2label=tuple((int(i), str(name)) for i, name in manifest["id2label"]))  # type: ignore[index]
    except (TypeError, KeyError, ValueError):
        return None  # no manifest, or not one this version wrote
    blocks = [b for b in engine.blocks if shard.owns(b.number)]
    texts = list(dict.fromkeys(t for b in blocks for t in b.texts))
    if key.kind == BERTSCORE:
        wanted = {}
        for block in blocks:
            members = set(block.texts)
            for call in engine.calls:
                for candidate, reference in call.pairs:
                    if candidate in members:
                        wanted[pair_text(call.idf_digest, candidate, reference)] = entry_key(
                            key, call.idf_digest, candidate, reference)
        namespace = entries_namespace(runtime, key, PAIR_SCORES, info.max_tokens)
        found = _all(cache, namespace, list(wanted), lambda v: v.shape == (3,) and v.dtype == np.float64)
        entries = {wanted[t]: entry for t, entry in found.items()} if found is not None else None
    else:
        namespace = entries_namespace(runtime, key, ENTRY_KIND[key.kind], info.max_tokens)
        fits = ((lambda v: v.shape == (info.dim,)) if key.kind == EMBEDDING
                else (lambda v: v.ndim == 2 and v.shape[1] == len(info.id2label) and v.shape[0] >= 1))
        found = _all(cache, namespace, texts, fits)
        entries = {entry_key(key, t): entry for t, entry in found.items()} if found is not None else None
    if entries is None:
        return None
    cache.count_hits(len(texts))
    return EngineResults(info, {k: v for k, (v, _) in entries.items()}, {k: f for k, (_, f) in entries.items()}, 0)


def _all(cache: ArrayCache, namespace: str, texts: list[str], fits: Callable[[np.ndarray], bool]
         ) -> dict[str, tuple[np.ndarray, bool]] | None:
    """Every one of `texts`' entries, or None at the first missing (uncounted lookups: the run may go on to
    load the engine, whose own lookups count)."""
    found: dict[str, tuple[np.ndarray, bool]] = {}
    for text in texts:
        entry = cache.get_many(namespace, [text], lambda _, v: fits(v), counted=False).get(text)
        if entry is None:
            return None
        found[text] = entry
    return found
