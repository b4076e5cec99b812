"""`TorchRuntime`: the one model runtime of a run, shared by every suite.

Each model is resolved and loaded once; each engine memoises the token states / embeddings of every
text it has seen, so a text shared by two suites (or two models' candidates) is encoded once per run.
torch and friends are imported on first use, never at import time.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gate.config import RuntimeConfig
from gate.errors import ConfigError, ModelUnavailable, Problem
from gate.runtime import models
from gate.runtime.api import (
    BertScores,
    BertScoreSpec,
    ClassifierLabels,
    ClassProbabilities,
    Embeddings,
    Fingerprint,
)
from gate.runtime.device import DeviceChoice

# Bumped when our BERTScore implementation changes numerically (part of every fingerprint).
BERTSCORE_IMPLEMENTATION = "gate-bertscore/1"


class TorchRuntime:
    def __init__(self, config: RuntimeConfig, base_dir: Path):
        self.config = config
        self.base_dir = base_dir
        self.cache_dir = Path(config.cache_dir)
        self._device: DeviceChoice | None = None
        self._resolved: dict[str, models.ResolvedModel] = {}
        self._bertscore: dict[tuple[Path, int], Any] = {}
        self._embedders: dict[Path, Any] = {}
        self._classifiers: dict[Path, Any] = {}

    @property
    def device(self) -> DeviceChoice:
        if self._device is None:
            from gate.runtime import device

            self._device = device.select(self.config.device, self.config.precision)
        return self._device

    def resolve(self, name: str) -> models.ResolvedModel:
        if name not in self._resolved:
            self._resolved[name] = models.resolve(name, base_dir=self.base_dir, cache_dir=self.cache_dir,
                                                  allow_download=self.config.allow_download)
        return self._resolved[name]

    def bertscore(self, spec: BertScoreSpec, candidates: Sequence[str], references: Sequence[str],
                  idf_corpus: Sequence[str] = ()) -> BertScores:
        from gate.runtime import bertscore, rescale

        resolved = self.resolve(spec.model)
        layer = spec.layer if spec.layer is not None else _default_layer(spec.model)
        engine = self._bertscore.get((resolved.path, layer))
        if engine is None:
            _quiet_transformers()
            choice = self.device
            try:
                engine = bertscore.BertScoreEngine.load(str(resolved.path), layer=layer, device=choice.device,
                                                        dtype=choice.dtype, batch_size=self.config.batch_size)
            except ConfigError:
                raise
            except Exception as exc:  # corrupt weights, wrong architecture, missing tokenizer files
                raise ModelUnavailable(
                    f"BERTScore model {spec.model!r} at {resolved.path} could not be loaded: {exc}",
                    fix="re-pull it with `llm-gate models pull`, or point models.bertscore.model at a valid "
                    "transformers model directory",
                ) from None
            self._bertscore[(resolved.path, layer)] = engine
        raw = engine.score(candidates, references, idf_corpus=list(idf_corpus) if spec.idf else None)
        notes: list[str] = []
        baseline_file = None
        if spec.rescale_with_baseline:
            values = rescale.load_rescale_baseline(spec.model, layer, spec.lang, spec.baseline_path)
            raw = rescale.rescale(raw, values)
            baseline_file = spec.baseline_path or f"bert-score:{spec.lang}/{spec.model}"
            notes.append(f"Scores rescaled with the baseline P/R/F = {values[0]:.4f}/{values[1]:.4f}/{values[2]:.4f}.")
        fingerprint = Fingerprint(
            model=spec.model,
            weights=models.weights_digest(resolved, self.cache_dir),
            params=(("layer", layer), ("idf", spec.idf), ("rescale_with_baseline", spec.rescale_with_baseline),
                    ("rescale_baseline", baseline_file), ("dtype", self.device.dtype),
                    ("implementation", BERTSCORE_IMPLEMENTATION)),
            libraries=_library_versions("torch", "transformers"),
            source=f"{resolved.source.value}: {resolved.path}",
        )
        return BertScores(
            precision=tuple(float(x) for x in raw.precision),
            recall=tuple(float(x) for x in raw.recall),
            f1=tuple(float(x) for x in raw.f1),
            windowed=tuple(bool(x) for x in raw.windowed),
            max_tokens=int(engine.max_tokens),
            layer=layer,
            fingerprint=fingerprint,
            notes=tuple(notes),
        )


    # ------------------------------------------------------------ embeddings and classifiers

    def embed(self, model: str, texts: Sequence[str]) -> Embeddings:
        from gate.runtime.embeddings import SentenceEmbedder

        resolved = self.resolve(model)
        embedder = self._load(self._embedders, resolved, "embedding", SentenceEmbedder.load)
        return Embeddings(embedder.encode(list(texts)), self._fingerprint(model, resolved, ("sentence-transformers",)))

    def classifier_labels(self, model: str) -> ClassifierLabels:
        resolved = self.resolve(model)
        classifier = self._classifier(resolved)
        return ClassifierLabels(tuple(sorted(classifier.id2label.items())), self._fingerprint(model, resolved))

    def classify(self, model: str, texts: Sequence[str], label: int) -> ClassProbabilities:
        resolved = self.resolve(model)
        classifier = self._classifier(resolved)
        probability, windowed = classifier.probabilities(list(texts), label)
        return ClassProbabilities(tuple(float(p) for p in probability), tuple(bool(w) for w in windowed),
                                  int(classifier.max_tokens), self._fingerprint(model, resolved))

    def _classifier(self, resolved: models.ResolvedModel) -> Any:
        from gate.runtime.classifier import SequenceClassifier

        return self._load(self._classifiers, resolved, "stereotype classifier", SequenceClassifier.load)

    def _load(self, cache: dict[Path, Any], resolved: models.ResolvedModel, role: str, loader: Any) -> Any:
        if resolved.path not in cache:
            _quiet_transformers()
            choice = self.device
            try:
                cache[resolved.path] = loader(str(resolved.path), device=choice.device, dtype=choice.dtype,
                                              batch_size=self.config.batch_size)
            except (ConfigError, ModelUnavailable):
                raise
            except Exception as exc:  # corrupt weights, wrong architecture, missing tokenizer files
                raise ModelUnavailable(
                    f"{role} model {resolved.name!r} at {resolved.path} could not be loaded: {exc}",
                    fix=f"re-pull it with `llm-gate models pull {resolved.name}`, or point the config at a valid "
                    "transformers model directory") from None
        return cache[resolved.path]

    def _fingerprint(self, model: str, resolved: models.ResolvedModel, extra: Sequence[str] = ()) -> Fingerprint:
        return Fingerprint(model=model, weights=models.weights_digest(resolved, self.cache_dir),
                           params=(("dtype", self.device.dtype),),
                           libraries=_library_versions("torch", "transformers", *extra),
                           source=f"{resolved.source.value}: {resolved.path}")


def _quiet_transformers() -> None:
    """transformers' own "Loading weights" bars and warnings would drown the gate's output in CI logs."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


def _default_layer(model: str) -> int:
    """bert-score's default layer for models it knows; anything else must say which layer."""
    from bert_score.utils import model2layers

    short = model.split("/")[-1] if model.startswith(("FacebookAI/", "google-bert/")) else model
    if short in model2layers:
        return model2layers[short]
    raise ConfigError("BERTScore model", [Problem(
        field="models.bertscore.layer", expected=f"a layer number for {model!r} (bert-score has no default for it)",
        found="null", fix="set `layer:`, e.g. 6 for all-MiniLM-L6-v2 or 17 for roberta-large")])


def _library_versions(*names: str) -> tuple[tuple[str, str], ...]:
    versions = []
    for name in names:
        try:
            # "2.13.0+cpu" and "2.13.0+cu126" compute the same thing: compare the release only.
            versions.append((name, importlib.metadata.version(name).split("+")[0]))
        except importlib.metadata.PackageNotFoundError:
            versions.append((name, "absent"))
    return tuple(versions)
