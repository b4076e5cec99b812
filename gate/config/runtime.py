"""gate.yml's `models:` and `runtime:` sections: which models the suites load and how model work runs."""

from __future__ import annotations

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
    embedding: str = Field(
        "sentence-transformers/all-MiniLM-L6-v2", description="Sentence-embedding model (similarities)."
    )
    bertscore: BertScoreModelConfig = BertScoreModelConfig()
    stereotype: str = Field(
        "holistic-ai/bias_classifier_albertv2", description="Stereotype classifier (HEARTS)."
    )


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
