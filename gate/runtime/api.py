"""Pure types at the boundary between scorers and the model runtime (no torch here).

Scorers ask a `ModelRuntime` for model work and get plain Python/numpy values back, so they stay
pure and testable; `gate.runtime.engines.session.TorchRuntime` is the implementation that runs models,
`gate.runtime.work.replay.StoreRuntime` the one that answers from stored results.

The rule every scorer keeps: the texts a scorer requests must not depend on the values it gets back.
The planning pass (`gate.runtime.work.plan.RecordingRuntime`) runs the scorers against placeholder values
to learn which texts the run needs, computes exactly those, and replays them; a scorer whose second request
depended on its first answer would ask the replay for texts that were never computed (`NotInStore`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # for annotations only: importing the runtime's interface loads no numpy
    import numpy as np
    from numpy.typing import NDArray

# The kinds of model engine, as plans, stores and cost summaries name them.
BERTSCORE, EMBEDDING, CLASSIFIER = "bertscore", "embedding", "classifier"
NLI = "nli"  # a sequence-pair classifier: (premise, hypothesis) -> entailment / neutral / contradiction

@dataclass(frozen=True)
class Fingerprint:
    """What a result was computed with. Two results are comparable only if fingerprints match."""

    model: str  # the name as configured, e.g. "roberta-large"
    weights: str  # sha256 of the weight file(s), or a hub revision when hashing is impossible
    params: tuple[tuple[str, object], ...] = ()  # e.g. (("layer", 17), ("idf", False))
    libraries: tuple[tuple[str, str], ...] = ()  # e.g. (("transformers", "5.23.0"),)
    source: str = ""  # where it was loaded from; informational, not part of comparability

    def comparable_to(self, other: Fingerprint) -> bool:
        return (self.model, self.weights, self.params, self.libraries) == (
            other.model,
            other.weights,
            other.params,
            other.libraries,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "model": self.model,
            "weights": self.weights,
            **{k: v for k, v in self.params},
            "libraries": dict(self.libraries),
            "source": self.source,
        }


@dataclass(frozen=True)
class BertScoreSpec:
    """How BERTScore is computed. Mirrors `models.bertscore` in gate.yml."""

    model: str
    layer: int | None = None  # None: bert-score's default layer for a model it knows
    idf: bool = False
    rescale_with_baseline: bool = False
    baseline_path: str | None = None
    lang: str = "en"


@dataclass(frozen=True)
class BertScores:
    """Per-pair BERTScore, in the order the pairs were given."""

    precision: tuple[float, ...]
    recall: tuple[float, ...]
    f1: tuple[float, ...]
    # True where the candidate or the reference exceeded the model's token limit and was encoded
    # in overlapping windows (never silently truncated).
    windowed: tuple[bool, ...]
    max_tokens: int
    layer: int
    fingerprint: Fingerprint
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Embeddings:
    """Sentence embeddings in the order the texts were given (not normalised)."""

    vectors: NDArray[np.float32]  # (n, dim)
    fingerprint: Fingerprint
    # True where the text exceeded the model's token limit and only its first `max_tokens` tokens were embedded
    # (sentence-transformers truncates, as the seeds' scripts do); empty when unknown
    truncated: tuple[bool, ...] = ()
    max_tokens: int = 0

    def truncation_note(self, what: str) -> str | None:
        """A report note saying how many of the texts (`what`: "responses") were cut at the limit; None if none."""
        count = sum(self.truncated)
        if not count:
            return None
        return (f"{count} of {len(self.truncated)} {what} exceed the embedding model's {self.max_tokens}-token "
                f"limit; their embeddings come from their first {self.max_tokens} tokens (sentence-transformers "
                "truncates, as the seeds' scripts do).")


@dataclass(frozen=True)
class ClassifierLabels:
    """A sequence classifier's labels, as its config's `id2label` names them."""

    id2label: tuple[tuple[int, str], ...]
    fingerprint: Fingerprint


@dataclass(frozen=True)
class ClassProbabilities:
    """softmax(logits)[label] per text, in the order given.

    A text over the model's token limit is classified in overlapping windows and gets the largest
    probability of any window (what the label flags anywhere in a long answer counts); it is flagged.
    """

    probability: tuple[float, ...]
    windowed: tuple[bool, ...]
    max_tokens: int
    fingerprint: Fingerprint


@dataclass(frozen=True)
class Entailment:
    """Per (premise, hypothesis) pair, in the order given: an NLI model's softmax probabilities.

    A pair over the model's token limit has its premise cut into overlapping windows (the hypothesis whole in
    each) and is answered by the window with the largest entailment probability (entailed by any part of the
    premise counts); it is flagged. Neutral / contradiction are None where the model has no such label.
    """

    entailment: tuple[float, ...]
    neutral: tuple[float | None, ...]
    contradiction: tuple[float | None, ...]
    windowed: tuple[bool, ...]
    max_tokens: int
    fingerprint: Fingerprint


class ModelRuntime(Protocol):
    """What scorers may ask of the model runtime.

    The texts a scorer requests must not depend on the values it gets back: the run plans its model
    work from the requests the scorers make against placeholder values (see the module docstring).
    """

    def embed(self, model: str, texts: Sequence[str]) -> Embeddings: ...

    def classifier_labels(self, model: str) -> ClassifierLabels: ...

    def classify(self, model: str, texts: Sequence[str], label: int) -> ClassProbabilities: ...

    def entail(self, model: str, premises: Sequence[str], hypotheses: Sequence[str]) -> Entailment: ...

    def bertscore(
        self,
        spec: BertScoreSpec,
        candidates: Sequence[str],
        references: Sequence[str],
        idf_corpus: Sequence[str] = (),
    ) -> BertScores: ...


@dataclass(frozen=True)
class EngineCost:
    """One model engine's share of a run's model work."""

    kind: str  # bertscore | embedding | classifier | nli
    model: str
    layer: int | None
    seconds: float
    texts: int  # texts encoded (cache misses)
    tokens: int
    padded_positions: int

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "model": self.model, **({"layer": self.layer} if self.layer is not None else {}),
                "model_seconds": round(self.seconds, 3), "texts": self.texts, "tokens": self.tokens,
                "padded_positions": self.padded_positions}


@dataclass(frozen=True)
class RuntimeSummary:
    """What a run's model work cost: report.json `runtime`, the report's footer, the benchmark."""

    device: str
    dtype: str
    threads: int
    model_seconds: float  # in model forward passes
    encoded_texts: int  # texts forwarded (cache misses)
    encoded_tokens: int
    padded_positions: int  # positions forwarded, padding included
    engines: tuple[EngineCost, ...] = ()
    cache: dict[str, object] = field(default_factory=dict)  # hits, misses, written, rejected, evicted, size_bytes
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"device": self.device, "dtype": self.dtype, "threads": self.threads,
                "model_seconds": round(self.model_seconds, 3),
                "encoded": {"texts": self.encoded_texts, "tokens": self.encoded_tokens,
                            "padded_positions": self.padded_positions},
                "engines": [e.to_dict() for e in self.engines],
                "cache": dict(self.cache)}
