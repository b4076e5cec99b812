"""`StoreRuntime`: a `ModelRuntime` that answers from a complete `ResultStore`, bitwise as `TorchRuntime` would.

It computes what `TorchRuntime` computes from the same per-text / per-pair values: embeddings stacked in
request order, a label's probability as the max over a text's windows (as `SequenceClassifier`), and
BERTScore through `session.bertscore_result` (rescaling, fingerprint, notes) on the stored raw P/R/F.
A request the store cannot answer means the run differs from the one the store was planned for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gate.errors import RuntimeFailure
from gate.runtime.api import (
    BERTSCORE,
    CLASSIFIER,
    EMBEDDING,
    NLI,
    BertScores,
    BertScoreSpec,
    ClassifierLabels,
    ClassProbabilities,
    Embeddings,
    Entailment,
)
from gate.runtime.engines.session import bertscore_result, resolve_layer
from gate.runtime.work.plan import EngineKey, entry_key, idf_digest
from gate.runtime.work.store import EngineResults, ResultStore


class NotInStore(RuntimeFailure):
    """The store lacks a result a scorer asked for: the run is not the one its model work was planned for."""


class StoreRuntime:
    def __init__(self, store: ResultStore):
        if not store.complete:
            raise RuntimeFailure(f"the model work of {store.source or 'this run'} is shard {store.shard} only",
                                 fix="merge the files of all shards (`llm-gate merge`) before scoring")
        self.store = store

    def embed(self, model: str, texts: Sequence[str]) -> Embeddings:
        engine = self._engine(EngineKey(EMBEDDING, model))
        if not texts:
            return Embeddings(np.zeros((0, engine.info.dim), dtype=np.float32), engine.info.fingerprint, (),
                              engine.info.max_tokens)
        vectors = np.stack([self._value(engine, t) for t in texts]).astype(np.float32, copy=False)
        truncated = tuple(engine.flags[entry_key(engine.info.key, t)] for t in texts)
        return Embeddings(vectors, engine.info.fingerprint, truncated, engine.info.max_tokens)

    def classifier_labels(self, model: str) -> ClassifierLabels:
        engine = self._engine(EngineKey(CLASSIFIER, model))
        return ClassifierLabels(engine.info.id2label, engine.info.fingerprint)

    def classify(self, model: str, texts: Sequence[str], label: int) -> ClassProbabilities:
        engine = self._engine(EngineKey(CLASSIFIER, model))
        id2label = dict(engine.info.id2label)
        if isinstance(label, bool) or label not in id2label:  # as SequenceClassifier.probabilities
            names = ", ".join(f"{k} ({v})" for k, v in sorted(id2label.items()))
            raise ValueError(f"label {label!r} is not one of the classifier's labels: {names}")
        entries = [entry_key(engine.info.key, t) for t in texts]
        probability = np.array([float(self._get(engine, e)[:, label].max()) for e in entries], dtype=np.float64)
        return ClassProbabilities(tuple(float(p) for p in probability), tuple(engine.flags[e] for e in entries),
                                  engine.info.max_tokens, engine.info.fingerprint)

    def entail(self, model: str, premises: Sequence[str], hypotheses: Sequence[str]) -> Entailment:
        from gate.runtime.engines.entailment import entailment_result, pair_text

        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        engine = self._engine(EngineKey(NLI, model))
        entries = [entry_key(engine.info.key, pair_text(p, h)) for p, h in zip(premises, hypotheses, strict=True)]
        return entailment_result([self._get(engine, e) for e in entries], [engine.flags[e] for e in entries],
                                 dict(engine.info.id2label), f"the NLI model {model!r}'s config.json",
                                 engine.info.max_tokens, engine.info.fingerprint)

    def bertscore(self, spec: BertScoreSpec, candidates: Sequence[str], references: Sequence[str],
                  idf_corpus: Sequence[str] = ()) -> BertScores:
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        layer = resolve_layer(spec)
        engine = self._engine(EngineKey(BERTSCORE, spec.model, layer))
        idf = idf_digest(list(idf_corpus) if spec.idf else None)
        entries = [entry_key(engine.info.key, idf, c, r) for c, r in zip(candidates, references, strict=True)]
        rows = np.stack([self._get(engine, e) for e in entries]) if entries else np.zeros((0, 3), np.float64)
        return bertscore_result(spec, layer, rows[:, 0], rows[:, 1], rows[:, 2], [engine.flags[e] for e in entries],
                                engine.info.max_tokens, engine.info.fingerprint)

    def _engine(self, key: EngineKey) -> EngineResults:
        engine = self.store.engine(key)
        if engine is None:
            raise NotInStore(f"the model work of {self.store.source or 'this run'} has no results of the "
                             f"{key.kind} model {key.name!r}" + (f" (layer {key.layer})" if key.layer is not None
                                                                 else ""), fix=_FIX)
        return engine

    def _value(self, engine: EngineResults, text: str) -> np.ndarray:
        return self._get(engine, entry_key(engine.info.key, text))

    def _get(self, engine: EngineResults, entry: str) -> np.ndarray:
        try:
            return engine.values[entry]
        except KeyError:
            raise NotInStore(f"the model work of {self.store.source or 'this run'} lacks a result the "
                             f"{engine.info.key.kind} model {engine.info.key.name!r} was asked for", fix=_FIX) from None


_FIX = ("compute the model work with the same inputs, gate.yml and --suite/--model options as this run "
        "(re-run the shards), then merge again")
