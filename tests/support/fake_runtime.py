"""`FakeRuntime`: a scripted `ModelRuntime` for testing scorer arithmetic without a model (no torch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gate.runtime.api import (
    BertScores,
    BertScoreSpec,
    ClassifierLabels,
    ClassProbabilities,
    Embeddings,
    Entailment,
    Fingerprint,
)


class FakeRuntime:
    """A model runtime with scripted BERTScores, for testing scorer arithmetic without a model.

    `scores` maps (candidate text, reference text) to (P, R, F); unknown pairs score 1.0 when the
    texts are equal and 0.5 otherwise.
    """

    def __init__(self, scores: dict[tuple[str, str], tuple[float, float, float]] | None = None,
                 probabilities: dict[str, float] | None = None, vectors: dict[str, list[float]] | None = None,
                 id2label: dict[int, str] | None = None, truncated: set[str] | None = None,
                 entailment: dict[tuple[str, str], float] | None = None):
        self.scores = scores or {}
        self.truncated = truncated or set()  # texts the embedder "cut" at its 256-token limit
        self.probabilities = probabilities or {}  # text -> P(stereotype); unknown texts 0.5
        self.vectors = vectors or {}  # text -> embedding; unknown texts [1, 0]
        self.id2label = id2label or {0: "Non-Stereotype", 1: "Stereotype"}
        self.calls: list[tuple[BertScoreSpec, list[str], list[str], list[str]]] = []
        self.classified: list[tuple[str, list[str], int]] = []
        self.entailment = entailment or {}  # (premise, hypothesis) -> P(entailment); unknown pairs 0.0
        self.entailed: list[tuple[str, list[tuple[str, str]]]] = []

    def bertscore(
        self,
        spec: BertScoreSpec,
        candidates: Sequence[str],
        references: Sequence[str],
        idf_corpus: Sequence[str] = (),
    ) -> BertScores:
        self.calls.append((spec, list(candidates), list(references), list(idf_corpus)))
        values = [
            self.scores.get((c, r), (1.0, 1.0, 1.0) if c == r else (0.5, 0.5, 0.5))
            for c, r in zip(candidates, references, strict=True)
        ]
        return BertScores(
            precision=tuple(v[0] for v in values),
            recall=tuple(v[1] for v in values),
            f1=tuple(v[2] for v in values),
            windowed=tuple(False for _ in values),
            max_tokens=512,
            layer=spec.layer or 0,
            fingerprint=Fingerprint(model=spec.model, weights="fake"),
        )


    def embed(self, model: str, texts) -> Embeddings:
        return Embeddings(np.array([self.vectors.get(t, [1.0, 0.0]) for t in texts], dtype=float),
                          Fingerprint(model=model, weights="fake"), tuple(t in self.truncated for t in texts), 256)

    def classifier_labels(self, model: str) -> ClassifierLabels:
        return ClassifierLabels(tuple(sorted(self.id2label.items())), Fingerprint(model=model, weights="fake"))

    def classify(self, model: str, texts, label: int) -> ClassProbabilities:
        self.classified.append((model, list(texts), label))
        return ClassProbabilities(tuple(self.probabilities.get(t, 0.5) for t in texts),
                                  tuple(False for _ in texts), 512, Fingerprint(model=model, weights="fake"))

    def entail(self, model: str, premises, hypotheses) -> Entailment:
        pairs = list(zip(premises, hypotheses, strict=True))
        self.entailed.append((model, pairs))
        p = tuple(self.entailment.get(pair, 0.0) for pair in pairs)
        return Entailment(p, tuple(0.0 for _ in p), tuple(1.0 - x for x in p), tuple(False for _ in p), 512,
                          Fingerprint(model=model, weights="fake"))
