"""The model work of a run as a deterministic plan of blocks, so that it can be sharded exactly.

A text's token states / embedding / softmax differ in the last bits (~1e-6) with the other texts that
share its padded batch (CPU matmul blocking). For a sharded run to equal an unsharded one bitwise, every
text must meet the same batch mates wherever it is computed. So the work is cut into blocks that depend
on the requests only (never on the number of shards), each block is encoded in one engine call on its
own (`gate.runtime.work.execute`), and shard i of N computes the blocks b with b % N == i - 1.

- The requests come from a planning pass: the scorers run against `RecordingRuntime`, which records what
  they ask for and answers deterministic placeholders (no model runs, no LLM judge). Hence the rule of
  `gate.runtime.api`: the texts a scorer requests must not depend on the values it gets back.
- Per engine (BERTScore: model name and layer; embedder, classifier: model name) its unique texts in
  first-appearance order. Texts joined by a BERTScore candidate/reference pair form a component (the
  pair is scored where both are encoded); otherwise a text is its own component. Components are packed,
  never split, into blocks of about `block_texts` texts, longest first (by the characters of their
  longest text; ties in first-appearance order): a block then holds texts of similar length, so the
  length-sorted batches inside it carry little padding (first-appearance blocks padded embeddings by
  ~44% on the benchmark's workload).
- Engines are keyed by the configured name, not the resolved directory, so the plan (and its digest)
  is the same on every machine; two names for one directory are encoded separately, which only costs
  time.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from gate.errors import ConfigError, Problem
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
    Fingerprint,
)

PLAN_VERSION = 3  # 3: batches also capped by padded positions (runtime.batch_tokens)
BLOCK_BATCHES = 4  # a block holds about this many batches: small enough to balance shards, big enough to batch well
PLACEHOLDER_DIM = 8  # scorers only take cosines of embeddings, so any dimension serves the planning pass


def block_texts_for(batch_size: int) -> int:
    return BLOCK_BATCHES * max(1, int(batch_size))


@dataclass(frozen=True)
class EngineKey:
    kind: str  # BERTSCORE | EMBEDDING | CLASSIFIER | NLI
    name: str  # the model as configured
    layer: int | None = None  # BERTScore: the resolved layer

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}" + (f"@{self.layer}" if self.layer is not None else "")


def entry_key(engine: EngineKey, *parts: str) -> str:
    """Content key of one stored result: (engine, text) or (engine, idf digest, candidate, reference). Each part
    is prefixed with its length, so no two tuples of parts make the same string (~4x faster than json.dumps of
    the list, and computed ~3 times per text in a run)."""
    joined = "".join(f"{len(part)}:{part}" for part in (engine.id, *parts))
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()


def idf_digest(corpus: Sequence[str] | None) -> str:
    return "no-idf" if corpus is None else hashlib.sha256(json.dumps(list(corpus)).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`: it owns the blocks b with b % count == index - 1."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not (isinstance(self.count, int) and isinstance(self.index, int) and 1 <= self.index <= self.count):
            raise _shard_error(f"{self.index}/{self.count}")

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
        if match is None:
            raise _shard_error(text)
        return cls(int(match.group(1)), int(match.group(2)))

    def owns(self, block: int) -> bool:
        return block % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _shard_error(text: object) -> ConfigError:
    return ConfigError("invalid shard", [Problem(
        field="--shard", expected="i/N: two whole numbers with 1 <= i <= N, e.g. 2/4", found=repr(str(text)),
        fix="run the N shards as --shard 1/N, --shard 2/N, ... --shard N/N")])


# ---------------------------------------------------------------- the planning pass


@dataclass(frozen=True)
class Request:
    engine: EngineKey
    texts: tuple[str, ...]  # what the engine encodes, in the order it would (candidates, then references)
    pairs: tuple[tuple[str, str], ...] = ()  # BERTScore: (candidate, reference)
    idf: tuple[str, ...] | None = None  # BERTScore: the idf corpus, None without idf


class RecordingRuntime:
    """A `ModelRuntime` that records every request and answers deterministic placeholders of the right shape.

    Only `classifier_labels` is real (`labels`): scorers pick the label to ask for by its name.
    """

    def __init__(self, labels: Callable[[str], ClassifierLabels], layer: Callable[[BertScoreSpec], int]):
        self._labels, self._layer = labels, layer
        self.requests: list[Request] = []

    def embed(self, model: str, texts: Sequence[str]) -> Embeddings:
        texts = tuple(texts)
        self.requests.append(Request(EngineKey(EMBEDDING, model), texts))
        return Embeddings(_unit_vectors(texts), _placeholder(model))

    def classifier_labels(self, model: str) -> ClassifierLabels:
        self.requests.append(Request(EngineKey(CLASSIFIER, model), ()))
        return self._labels(model)

    def classify(self, model: str, texts: Sequence[str], label: int) -> ClassProbabilities:
        texts = tuple(texts)
        self.requests.append(Request(EngineKey(CLASSIFIER, model), texts))
        return ClassProbabilities((0.5,) * len(texts), (False,) * len(texts), 512, _placeholder(model))

    def entail(self, model: str, premises: Sequence[str], hypotheses: Sequence[str]) -> Entailment:
        from gate.runtime.engines.entailment import pair_text

        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        texts = tuple(pair_text(p, h) for p, h in zip(premises, hypotheses, strict=True))
        self.requests.append(Request(EngineKey(NLI, model), texts))
        n = len(texts)
        return Entailment((0.5,) * n, (0.25,) * n, (0.25,) * n, (False,) * n, 512, _placeholder(model))

    def bertscore(self, spec: BertScoreSpec, candidates: Sequence[str], references: Sequence[str],
                  idf_corpus: Sequence[str] = ()) -> BertScores:
        candidates, references = tuple(candidates), tuple(references)
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        layer = self._layer(spec)
        self.requests.append(Request(EngineKey(BERTSCORE, spec.model, layer), (*candidates, *references),
                                     tuple(zip(candidates, references, strict=True)),
                                     tuple(idf_corpus) if spec.idf else None))
        n = len(candidates)
        return BertScores((0.5,) * n, (0.5,) * n, (0.5,) * n, (False,) * n, 512, layer, _placeholder(spec.model))


def _unit_vectors(texts: Sequence[str]) -> np.ndarray:
    """A deterministic unit vector per text, from its digest's bytes (+ 0.5: never zero), normalised all at once.
    A random generator seeded per text cost ~40 µs each: 0.2 s of a cached run's planning pass at 4,000 responses."""
    digests = b"".join(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest()[:PLACEHOLDER_DIM] for t in texts)
    vectors = np.frombuffer(digests, dtype=np.int8).reshape(len(texts), PLACEHOLDER_DIM).astype(np.float32) + 0.5
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _placeholder(model: str) -> Fingerprint:
    return Fingerprint(model=model, weights="planning placeholder")


# ---------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Block:
    number: int  # global: engines in first-request order, then blocks in order
    texts: tuple[str, ...]  # in the engine's first-appearance order


@dataclass(frozen=True)
class PairCall:
    """The pairs of one BERTScore request that no earlier request of the engine scored with the same idf."""

    idf: tuple[str, ...] | None
    idf_digest: str
    pairs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class EnginePlan:
    key: EngineKey
    texts: tuple[str, ...]
    blocks: tuple[Block, ...]
    calls: tuple[PairCall, ...] = ()


@dataclass(frozen=True)
class WorkPlan:
    engines: tuple[EnginePlan, ...]
    block_texts: int
    batch_size: int  # runtime.batch_size: how a block is cut into batches, so part of the digest
    total_blocks: int
    digest: str  # sha256 over everything that decides what is computed with which batch mates
    batch_tokens: int | None = None  # runtime.batch_tokens (None: by device and model width), part of the digest


def build_plan(requests: Iterable[Request], block_texts: int, batch_size: int,
               batch_tokens: int | None = None) -> WorkPlan:
    if block_texts < 1 or batch_size < 1:
        raise ValueError(f"block_texts and batch_size must be at least 1, got {block_texts} and {batch_size}")
    by_engine: dict[EngineKey, list[Request]] = {}
    for request in requests:
        by_engine.setdefault(request.engine, []).append(request)
    engines, number = [], 0
    for key, mine in by_engine.items():
        texts = tuple(dict.fromkeys(t for r in mine for t in r.texts))
        calls = _calls(key, mine)
        blocks = _pack(texts, [p for c in calls for p in c.pairs], block_texts, number)
        number += len(blocks)
        engines.append(EnginePlan(key, texts, blocks, calls))
    return WorkPlan(tuple(engines), block_texts, batch_size, number, _digest(engines, batch_size, batch_tokens),
                    batch_tokens)


def _calls(key: EngineKey, requests: Sequence[Request]) -> tuple[PairCall, ...]:
    if key.kind != BERTSCORE:
        return ()
    seen: set[tuple[str, str, str]] = set()
    calls = []
    for request in requests:
        digest = idf_digest(request.idf)
        pairs = tuple(dict.fromkeys(p for p in request.pairs if (digest, *p) not in seen))
        seen.update((digest, *p) for p in pairs)
        if pairs:
            calls.append(PairCall(request.idf, digest, pairs))
    return tuple(calls)


def _pack(texts: Sequence[str], pairs: Sequence[tuple[str, str]], block_texts: int, first: int) -> tuple[Block, ...]:
    """Components (union-find over the pairs) packed whole, in first-appearance order, into blocks."""
    parent = {t: t for t in texts}
    order = {t: i for i, t in enumerate(texts)}

    def root(t: str) -> str:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    for candidate, reference in pairs:
        a, b = sorted((root(candidate), root(reference)), key=order.__getitem__)
        parent[b] = a  # the earlier text stays the root: components come in first-appearance order
    sizes: dict[str, int] = {}
    longest: dict[str, int] = {}
    for t in texts:
        sizes[root(t)] = sizes.get(root(t), 0) + 1
        longest[root(t)] = max(longest.get(root(t), 0), len(t))
    block_of: dict[str, int] = {}
    current, filled = 0, 0
    # sorted() is stable: components of equal length keep their first-appearance order
    for component in sorted(sizes, key=lambda c: -longest[c]):
        size = sizes[component]
        if filled and filled + size > block_texts:
            current, filled = current + 1, 0
        block_of[component] = current
        filled += size
    members: dict[int, list[str]] = {}
    for t in texts:
        members.setdefault(block_of[root(t)], []).append(t)
    return tuple(Block(first + b, tuple(ts)) for b, ts in sorted(members.items()))


def _digest(engines: Sequence[EnginePlan], batch_size: int, batch_tokens: int | None) -> str:
    def text_hash(t: str) -> str:
        return hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest()

    described = []
    for engine in engines:
        index = {t: i for i, t in enumerate(engine.texts)}
        described.append({
            "engine": [engine.key.kind, engine.key.name, engine.key.layer],
            "texts": [text_hash(t) for t in engine.texts],
            "blocks": [[b.number, [index[t] for t in b.texts]] for b in engine.blocks],
            "calls": [[c.idf_digest, [[index[a], index[b]] for a, b in c.pairs]] for c in engine.calls],
        })
    payload = json.dumps({"plan": PLAN_VERSION, "batch_size": batch_size, "batch_tokens": batch_tokens,
                          "engines": described},
                         sort_keys=True).encode("ascii")
    return hashlib.sha256(payload).hexdigest()
