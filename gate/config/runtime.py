"""gate.yml's `models:` and `runtime:` sections: which models the suites load and how model work runs.

`models:` holds the engines' keys (`embedding`, `bertscore`) and those the registered kinds add (`ModelKey`, a
kind's `model_keys`), joined when gate.yml's schema is first needed (`gate.config.registered.models_model`). A kind
says which models a suite loads as `ModelUse`s (its `models_of`): what `validate`, `models list|pull` and a run's
planning pass ask it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pydantic import Field, PositiveInt

from gate.config.base import StrictModel


class BertScoreModelConfig(StrictModel):
    """BERTScore backbone. The seed's default is roberta-large at layer 17 (bert-score's default)."""

    model: str = Field("roberta-large", description="Hub id or local path of the BERTScore backbone.")
    layer: int | None = Field(
        17,
        ge=0,
        description="Hidden layer whose token states are compared. Required for models bert-score does "
        "not know (all-MiniLM-L6-v2: 6).",
    )
    idf: bool = Field(False, description="Weight tokens by inverse document frequency over the baselines.")
    rescale_with_baseline: bool = Field(
        False, description="Rescale scores with bert-score's baseline for this model and layer."
    )
    baseline_path: str | None = Field(
        None, description="LAYER,P,R,F file to rescale with, for models bert-score has no baseline for."
    )


class ModelsConfig(StrictModel):
    # gate.yml's `models:` is this model with the registered kinds' own keys added (`Kind.model_keys`)
    embedding: str = Field(
        "sentence-transformers/all-MiniLM-L6-v2", description="Sentence-embedding model (similarities)."
    )
    bertscore: BertScoreModelConfig = BertScoreModelConfig()

    def model(self, key: str) -> str:
        """The model `models.<key>` names: an engine's (`bertscore`'s `model`) or a kind's own key's."""
        value = getattr(self, key)
        return value.model if isinstance(value, BertScoreModelConfig) else str(value)


@dataclass(frozen=True)
class ModelRole:
    """What a model does for a suite: the `models:` key that sets it for every suite, how advice names it, and the
    runtime engine that loads it. A run hands the runtime every suite's roles (`gate.kinds.needed_models`), so a
    model that is missing or damaged is named in the suite's words with the field that sets it, while the runtime
    itself knows engines only."""

    key: str  # under `models:`, and how `models list` labels it: "embedding", "bertscore", a kind's own key
    words: str  # what model resolution's advice calls it: "BERTScore", "embedding", "stereotype classifier"
    field: str = ""  # the gate.yml field that names the model; "" for `models.<key>`
    engine: str = ""  # the runtime engine that loads it (`gate.runtime.api`: bertscore, embedding, classifier)

    @property
    def config_field(self) -> str:
        return self.field or f"models.{self.key}"


EMBEDDING = ModelRole("embedding", "embedding", engine="embedding")
BERTSCORE = ModelRole("bertscore", "BERTScore", "models.bertscore.model", engine="bertscore")


@dataclass(frozen=True)
class ModelKey:
    """A key a kind adds under gate.yml's `models:` (`Kind.model_keys`): the model its suites load where one sets
    none of its own, as a hub id or a local path."""

    role: ModelRole
    default: str
    description: str


@dataclass(frozen=True)
class ModelUse:
    """One model a suite loads (`Kind.models_of`): its role and its name as configured (the suite's own setting,
    else `models:`'s)."""

    role: ModelRole
    name: str


class Device(str, Enum):
    AUTO = "auto"
    CPU = "cpu"
    CUDA = "cuda"


class Precision(str, Enum):
    AUTO = "auto"  # fp16 on CUDA, fp32 on CPU
    FP32 = "fp32"
    FP16 = "fp16"
    BF16 = "bf16"


class RuntimeConfig(StrictModel):
    device: Device = Device.AUTO
    precision: Precision = Precision.AUTO
    batch_size: PositiveInt = Field(64, description="Most texts (or windows) in one forward batch.")
    batch_tokens: PositiveInt | None = Field(
        None, description="Most token positions, padding included, in one forward batch. Default: on CPU "
        "about a million hidden values per batch (2,730 positions for a 384-wide model, 1,365 for a 768-wide "
        "one), the size that ran fastest; on CUDA only batch_size limits a batch.",
    )
    cache_dir: str = Field(".gate-cache", description="Model and score cache, relative to the working directory.")
    cache: bool = Field(
        True,
        description="Keep embeddings, BERTScore token states and classifier outputs in `cache_dir`, keyed by model "
        "fingerprint and text, so a later run re-encodes only texts it has not seen (restore the directory with "
        "actions/cache in CI).",
    )
    cache_max_mb: PositiveInt = Field(
        2048, description="Size cap of the model-output cache in MiB; least recently used entries go first."
    )
    threads: PositiveInt | None = Field(
        None, description="CPU threads for model work; default: the CPUs this process may use (affinity and "
        "cgroup quota)."
    )
    allow_download: bool = Field(
        False,
        description="Let a run fetch a missing model from the Hugging Face hub. Off by default: CI runs "
        "use models baked into the image or pulled with `llm-gate models pull`.",
    )
