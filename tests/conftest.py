"""Shared fixtures. Every test runs offline: no model hub, ever."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gate.runtime import progress  # noqa: E402
from gate.runtime.api import (  # noqa: E402
    BertScores,
    BertScoreSpec,
    ClassifierLabels,
    ClassProbabilities,
    Embeddings,
    Fingerprint,
)

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"

progress.set_enabled(False)


class FakeRuntime:
    """A model runtime with scripted BERTScores, for testing scorer arithmetic without a model.

    `scores` maps (candidate text, reference text) to (P, R, F); unknown pairs score 1.0 when the
    texts are equal and 0.5 otherwise.
    """

    def __init__(self, scores: dict[tuple[str, str], tuple[float, float, float]] | None = None,
                 probabilities: dict[str, float] | None = None, vectors: dict[str, list[float]] | None = None,
                 id2label: dict[int, str] | None = None, truncated: set[str] | None = None):
        self.scores = scores or {}
        self.truncated = truncated or set()  # texts the embedder "cut" at its 256-token limit
        self.probabilities = probabilities or {}  # text -> P(stereotype); unknown texts 0.5
        self.vectors = vectors or {}  # text -> embedding; unknown texts [1, 0]
        self.id2label = id2label or {0: "Non-Stereotype", 1: "Stereotype"}
        self.calls: list[tuple[BertScoreSpec, list[str], list[str], list[str]]] = []
        self.classified: list[tuple[str, list[str], int]] = []

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


@pytest.fixture
def fake_runtime() -> FakeRuntime:
    return FakeRuntime()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch) -> Path:
    """Run the test inside an empty working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def github_api(httpserver, monkeypatch):
    """A fake GitHub API on loopback, driven by the real PyGithub client, without request spacing."""
    import re

    from gate import github as gate_github
    from tests.support.fake_github import FakeGitHub

    monkeypatch.setattr(gate_github, "REQUEST_SPACING", (0, 0))
    fake = FakeGitHub(base_url=httpserver.url_for("").rstrip("/"))
    httpserver.expect_request(re.compile(".*")).respond_with_handler(fake.handle)
    return fake


@pytest.fixture(autouse=True)
def _no_secrets_from_other_tests():
    """The redaction registry is process-wide (the CLI registers its environment's secrets): each test starts
    and ends with it empty, so what one test registered cannot mask or announce text in another."""
    from gate import redact

    redact.forget_all()
    yield
    redact.forget_all()
