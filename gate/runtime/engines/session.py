"""`TorchRuntime`: the one model runtime of a run, shared by every suite.

Each model is resolved and loaded once; each engine memoises the token states / embeddings of every
text it has seen, so a text shared by two suites (or two models' candidates) is encoded once per run.
torch and friends are imported on first use, never at import time.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gate.config import BERTSCORE as BERTSCORE_ROLE
from gate.config import EMBEDDING as EMBEDDING_ROLE
from gate.config import ModelRole, ModelUse, RuntimeConfig
from gate.errors import ConfigError
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
from gate.runtime.engines import integrity, models
from gate.runtime.engines.device import DeviceChoice
from gate.runtime.engines.layers import resolve_layer

if TYPE_CHECKING:  # numpy is imported on first use
    from numpy.typing import ArrayLike

# Bumped when our BERTScore implementation changes numerically (part of every fingerprint).
BERTSCORE_IMPLEMENTATION = "gate-bertscore/1"
EMBEDDING_LIBRARIES = ("sentence-transformers",)  # versions an embedding's fingerprint names beyond torch
# How an engine's model is named where no suite's role says more (a runtime used without `roles`).
ENGINE_ROLES = {BERTSCORE: BERTSCORE_ROLE, EMBEDDING: EMBEDDING_ROLE,
                CLASSIFIER: ModelRole("classifier", "sequence classifier",
                                      "the gate.yml field that names the classifier", CLASSIFIER),
                NLI: ModelRole("nli", "NLI model", "the gate.yml field that names the NLI model", NLI)}


class TorchRuntime:
    def __init__(self, config: RuntimeConfig, base_dir: Path, *, model_dirs: Sequence[Path] = (),
                 hub_offline: bool = False, pull_into: Path | None = None, roles: Sequence[ModelUse] = ()):
        """`model_dirs` (searched before <cache_dir>/models), `hub_offline` and `pull_into` (the workflow's
        `model_dir`, where a missing model is pulled) come from `gate.config.settings`; `roles`, what each model
        does for the suites (`gate.kinds.needed_models`), words the advice for a model that is missing or
        damaged (the runtime itself knows engines only)."""
        self.config = config
        self.base_dir = base_dir
        self.cache_dir = Path(config.cache_dir)
        self.model_dirs = tuple(model_dirs)
        self.hub_offline = hub_offline
        self.pull_into = pull_into
        self._roles = {(use.name, use.role.engine): use.role for use in roles}
        self._device: DeviceChoice | None = None
        self._peeked: DeviceChoice | None = None  # `choice` decided without torch
        self.threads = 0  # set with the device
        self._resolved: dict[str, models.ResolvedModel] = {}
        self._bertscore: dict[tuple[Path, int], Any] = {}
        self._embedders: dict[Path, Any] = {}
        self._classifiers: dict[Path, Any] = {}
        self._nli: dict[Path, Any] = {}

    @property
    def device(self) -> DeviceChoice:
        if self._device is None:
            from gate.runtime.engines import device, heap

            heap.import_for_the_run("torch")
            self._device = device.select(self.config.device, self.config.precision)
            self.threads = device.set_threads(self.config.threads)
        return self._device

    @property
    def choice(self) -> DeviceChoice:
        """The device and precision, without importing torch where they are certain (`device.peek`): the
        fingerprints and cache keys of a run whose model outputs are all cached need no more."""
        if self._device is None and self._peeked is None:
            from gate.runtime.engines import device

            self._peeked = device.peek(self.config.device, self.config.precision)
        return self._device or self._peeked or self.device

    def loaded_engines(self) -> list[Any]:
        return [*self._bertscore.values(), *self._embedders.values(), *self._classifiers.values(), *self._nli.values()]

    def meter(self, kind: str, model: str, layer: int | None = None) -> Any:
        """The forward meter of the loaded engine of `kind` (`gate.runtime.api`'s BERTSCORE, EMBEDDING or
        CLASSIFIER) for `model`, None when that engine was never loaded."""
        path = self.resolve(model).path
        bertscore = self._bertscore.get((path, layer)) if layer is not None else None  # loaded per layer
        loaded = {BERTSCORE: bertscore, EMBEDDING: self._embedders.get(path),
                  CLASSIFIER: self._classifiers.get(path), NLI: self._nli.get(path)}.get(kind)
        return getattr(loaded, "meter", None)

    def role(self, name: str, engine: str) -> ModelRole:
        """What model `name` does when `engine` loads it: a suite's role where the run named one, else the engine's."""
        return self._roles.get((name, engine), ENGINE_ROLES[engine])

    def resolve(self, name: str, role: ModelRole | None = None) -> models.ResolvedModel:
        """`name`'s model directory, resolved once; `role` words a missing model's error and picks its fix."""
        if name not in self._resolved:
            self._resolved[name] = models.resolve(name, base_dir=self.base_dir, cache_dir=self.cache_dir,
                                                  allow_download=self.config.allow_download, role=role,
                                                  extra_dirs=self.model_dirs, hub_offline=self.hub_offline,
                                                  pull_into=self.pull_into)
        return self._resolved[name]

    def engine_for(self, spec: BertScoreSpec) -> tuple[Any, int]:
        """The BERTScore engine of `spec` (loaded once per model directory and layer) and its layer."""
        from gate.runtime.engines import bertscore

        role = self.role(spec.model, BERTSCORE)
        resolved = self.resolve(spec.model, role)
        layer = resolve_layer(spec)
        engine = self._bertscore.get((resolved.path, layer))
        if engine is None:
            choice = self.device
            try:
                engine = bertscore.BertScoreEngine.load(str(resolved.path), layer=layer, device=choice.device,
                                                        dtype=choice.dtype, batch_size=self.config.batch_size,
                                                        batch_tokens=self.config.batch_tokens)
                integrity.require_vocabulary(engine, role)
            except ConfigError:
                raise
            except Exception as exc:  # corrupt weights, wrong architecture, missing tokenizer files
                raise integrity.unavailable(role, resolved, exc) from None
            self._bertscore[(resolved.path, layer)] = engine
        return engine, layer

    def bertscore(self, spec: BertScoreSpec, candidates: Sequence[str], references: Sequence[str],
                  idf_corpus: Sequence[str] = ()) -> BertScores:
        engine, layer = self.engine_for(spec)
        raw = engine.score(candidates, references, idf_corpus=list(idf_corpus) if spec.idf else None)
        return bertscore_result(spec, layer, raw.precision, raw.recall, raw.f1, raw.windowed, engine.max_tokens,
                                self.fingerprint(spec.model))

    # ------------------------------------------------------------ embeddings and classifiers

    def embed(self, model: str, texts: Sequence[str]) -> Embeddings:
        embedder = self.embedder(model)
        vectors = embedder.encode(list(texts))
        return Embeddings(vectors, self.fingerprint(model, EMBEDDING_LIBRARIES),
                          tuple(embedder.truncated(t) for t in texts), int(embedder.max_tokens))

    def declared_labels(self, model: str) -> ClassifierLabels:
        """The classifier's labels from its config.json, without loading it (the planning pass needs only these)."""
        import json

        from gate import io

        resolved = self.resolve(model, self.role(model, CLASSIFIER))
        config = io.read_json_quiet(resolved.path / "config.json")
        labels: Any = config.get("id2label") if isinstance(config, dict) else None  # checked by using it
        try:
            return ClassifierLabels(tuple(sorted((int(k), str(v)) for k, v in labels.items())),
                                    self.fingerprint(model))
        except (AttributeError, TypeError, ValueError, json.JSONDecodeError):
            return self.classifier_labels(model)  # no usable config.json: loading says what is wrong

    def classifier_labels(self, model: str) -> ClassifierLabels:
        return ClassifierLabels(tuple(sorted(self.classifier(model).id2label.items())), self.fingerprint(model))

    def classify(self, model: str, texts: Sequence[str], label: int) -> ClassProbabilities:
        classifier = self.classifier(model)
        probability, windowed = classifier.probabilities(list(texts), label)
        return ClassProbabilities(tuple(float(p) for p in probability), tuple(bool(w) for w in windowed),
                                  int(classifier.max_tokens), self.fingerprint(model))

    def embedder(self, model: str) -> Any:
        """The `SentenceEmbedder` of `model`, loaded once per model directory."""
        from gate.runtime.engines.embeddings import SentenceEmbedder

        role = self.role(model, EMBEDDING)
        return self._load(self._embedders, self.resolve(model, role), role, SentenceEmbedder.load)

    def classifier(self, model: str) -> Any:
        """The `SequenceClassifier` of `model`, loaded once per model directory."""
        from gate.runtime.engines.classifier import SequenceClassifier

        role = self.role(model, CLASSIFIER)
        return self._load(self._classifiers, self.resolve(model, role), role, SequenceClassifier.load)

    def nli(self, model: str) -> Any:
        """The `PairClassifier` (NLI) of `model`, loaded once per model directory."""
        from gate.runtime.engines.nli import PairClassifier

        role = self.role(model, NLI)
        return self._load(self._nli, self.resolve(model, role), role, PairClassifier.load)

    def entail(self, model: str, premises: Sequence[str], hypotheses: Sequence[str]) -> Entailment:
        from gate.runtime.engines.entailment import entailment_result, pair_text

        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        engine = self.nli(model)
        windows, windowed = engine.probabilities([pair_text(p, h) for p, h in zip(premises, hypotheses, strict=True)])
        return entailment_result(windows, windowed, engine.id2label, "config.json", int(engine.max_tokens),
                                 self.fingerprint(model))

    def fingerprint(self, model: str, extra: Sequence[str] = ()) -> Fingerprint:
        """What `model`'s results are computed with (BERTScore adds its parameters in `bertscore_result`)."""
        return self._fingerprint(model, self.resolve(model), extra)

    def _load(self, cache: dict[Path, Any], resolved: models.ResolvedModel, role: ModelRole, loader: Any) -> Any:
        if resolved.path not in cache:
            choice = self.device
            try:
                engine = loader(str(resolved.path), device=choice.device, dtype=choice.dtype,
                                batch_size=self.config.batch_size, batch_tokens=self.config.batch_tokens)
                integrity.require_vocabulary(engine, role)
            except ConfigError:
                raise
            except Exception as exc:  # corrupt weights, wrong architecture, missing tokenizer files
                raise integrity.unavailable(role, resolved, exc) from None
            cache[resolved.path] = engine
        return cache[resolved.path]

    def _fingerprint(self, model: str, resolved: models.ResolvedModel, extra: Sequence[str] = ()) -> Fingerprint:
        return Fingerprint(model=model, weights=models.weights_digest(resolved, self.cache_dir),
                           params=(("dtype", self.choice.dtype),),
                           libraries=_library_versions("torch", "transformers", *extra),
                           source=f"{resolved.source.value}: {resolved.path}")


def bertscore_result(spec: BertScoreSpec, layer: int, precision: ArrayLike, recall: ArrayLike, f1: ArrayLike,
                     windowed: Sequence[bool], max_tokens: int, base: Fingerprint) -> BertScores:
    """Raw per-pair scores -> `BertScores`: rescaling, fingerprint and notes. Shared by `TorchRuntime` and the
    replay of stored raw scores (`gate.runtime.work.replay`), so both give bitwise the same values."""
    import numpy as np

    p, r, f = (np.asarray(x, dtype=np.float64) for x in (precision, recall, f1))
    notes: list[str] = []
    baseline_file = None
    if spec.rescale_with_baseline:
        from gate.runtime.engines import rescale
        from gate.runtime.engines.scores import RawBertScores

        values = rescale.load_rescale_baseline(spec.model, layer, spec.lang, spec.baseline_path)
        scaled = rescale.rescale(RawBertScores(p, r, f, np.asarray(windowed, dtype=bool)), values)
        p, r, f = scaled.precision, scaled.recall, scaled.f1
        baseline_file = spec.baseline_path or f"bert-score:{spec.lang}/{spec.model}"
        notes.append(f"Scores rescaled with the baseline P/R/F = {values[0]:.4f}/{values[1]:.4f}/{values[2]:.4f}.")
    fingerprint = Fingerprint(
        model=spec.model, weights=base.weights,
        params=(("layer", layer), ("idf", spec.idf), ("rescale_with_baseline", spec.rescale_with_baseline),
                ("rescale_baseline", baseline_file), ("dtype", dict(base.params).get("dtype")),
                ("implementation", BERTSCORE_IMPLEMENTATION)),
        libraries=base.libraries, source=base.source,
    )
    return BertScores(
        precision=tuple(float(x) for x in p), recall=tuple(float(x) for x in r), f1=tuple(float(x) for x in f),
        windowed=tuple(bool(x) for x in windowed), max_tokens=int(max_tokens), layer=layer,
        fingerprint=fingerprint, notes=tuple(notes),
    )


def _library_versions(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, _release(name)) for name in names)


@functools.cache
def _release(name: str) -> str:
    """An installed distribution's release; looked up once per process (each lookup parses its METADATA file, and
    every engine's fingerprint asks)."""
    try:
        # "2.13.0+cpu" and "2.13.0+cu126" compute the same thing: compare the release only.
        return importlib.metadata.version(name).split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return "absent"
