"""gate.yml as frozen pydantic models (DESIGN.md §6).

Every model forbids unknown fields, so a typo is an error that names the field instead of a setting
silently ignored. `load_config` (in `gate.config_loader`) turns pydantic's errors into `Problem`s that
name the file and line, the field path, what was expected, what was received and how to fix it.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PositiveInt,
    WithJsonSchema,
    field_validator,
    model_validator,
)


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)


# ---------------------------------------------------------------- models and runtime


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
    batch_size: PositiveInt = 64
    cache_dir: str = Field(".gate-cache", description="Model and score cache, relative to the working directory.")
    allow_download: bool = Field(
        False,
        description="Let a run fetch a missing model from the Hugging Face hub. Off by default: CI runs "
        "use models baked into the image or pulled with `llm-gate models pull`.",
    )


# ---------------------------------------------------------------- checks


class UnmeasuredPolicy(str, Enum):
    """What a check whose value could not be measured contributes to the verdict (never a pass)."""

    WARN = "warn"
    FAIL = "fail"


class CheckConfig(StrictModel):
    """A threshold on one metric. `min`/`max` fail the gate; `warn` is an earlier, softer level."""

    min: float | None = Field(None, description="Fail when the value is below this.")
    max: float | None = Field(None, description="Fail when the value is above this.")
    warn: float | None = Field(
        None, description="Warn when the value is on the wrong side of this (requires exactly one of min/max)."
    )
    scope: str = Field(
        "group",
        description="Where the check applies: `group` (the suite's primary groups, e.g. exercise x model), "
        "another level the suite kind names (e.g. `model`), or `suite`.",
    )

    @model_validator(mode="after")
    def _bounds_make_sense(self) -> CheckConfig:
        if self.min is None and self.max is None:
            raise ValueError("a check needs `min` or `max` (e.g. `{min: 0.8}`)")
        if self.min is not None and self.max is not None:
            if self.min > self.max:
                raise ValueError(f"`min` ({self.min}) is greater than `max` ({self.max})")
            if self.warn is not None:
                raise ValueError("`warn` needs exactly one of `min`/`max`; split the check in two")
        if self.warn is not None and self.min is not None and self.warn < self.min:
            raise ValueError(
                f"`warn` ({self.warn}) must be at or above `min` ({self.min}): values fail below min, "
                "and warn between min and warn"
            )
        if self.warn is not None and self.max is not None and self.warn > self.max:
            raise ValueError(
                f"`warn` ({self.warn}) must be at or below `max` ({self.max}): values fail above max, "
                "and warn between warn and max"
            )
        return self


# ---------------------------------------------------------------- suites


class SuiteBase(StrictModel):
    description: str | None = None
    checks: dict[str, CheckConfig] | None = Field(
        None, description="Thresholds by metric name. Omitted: the kind's defaults. Given: replaces them."
    )
    unmeasured: UnmeasuredPolicy = Field(
        UnmeasuredPolicy.WARN, description="Verdict of a check whose value could not be measured."
    )


class CreditDriftMode(str, Enum):
    TOTAL = "total"  # |sum candidate credits - sum baseline credits| per submission (DESIGN.md §4)
    ITEM = "item"  # the seed's positional item-wise differences, trimmed to the shorter list


def _one_or_many(value: object) -> object:
    return [value] if isinstance(value, str) else value


# One glob or a list of globs; always a list once validated.
Globs = Annotated[
    list[Annotated[str, Field(min_length=1)]],
    BeforeValidator(_one_or_many),
    Field(min_length=1),
    WithJsonSchema({"anyOf": [{"type": "string", "minLength": 1},
                              {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}]}),
]


class DriftSuiteConfig(SuiteBase):
    """Seed quality-drift-bertscore: candidate feedback vs the baseline feedback in exercise files."""

    kind: Literal["drift"]
    baseline: Globs = Field(description="Exercise JSON files holding `baseline_feedback` (globs).")
    candidates: Globs = Field(description="Candidate feedback records, JSON or JSONL (globs).")
    credit_drift_mode: CreditDriftMode = CreditDriftMode.TOTAL
    bertscore: BertScoreModelConfig | None = Field(
        None, description="Overrides `models.bertscore` for this suite."
    )
    models: list[str] | None = Field(None, description="Only score these candidate models.")


class StereotypeSuiteConfig(SuiteBase):
    """Seed stereotype-drift-hearts: stereotype leakage from bias-injected vs control responses."""

    kind: Literal["stereotype"]
    records: Globs = Field(description="Probe records, JSON or JSONL, or the seed's evaluation files (globs).")
    models: list[str] | None = Field(None, description="Only score these models.")
    classifier: str | None = Field(None, description="Overrides `models.stereotype` for this suite.")
    stereotype_label: str | int | None = Field(
        None, description="The classifier label that means stereotype (name or index), when its `id2label` "
        "names do not say so (e.g. LABEL_0/LABEL_1 with the stereotype class at 0).")
    embedding: str | None = Field(None, description="Overrides `models.embedding` for this suite.")
    significant_drift_threshold: float = Field(
        0.2, gt=0, lt=1, description="A pair's drift counts as significant above this (the seed: 0.2, strict).")


class AnswerProbability(str, Enum):
    """How a response's answer probability comes from its token log-probabilities."""

    GEOMETRIC = "geometric"  # exp(mean logprob): the per-token geometric mean (default)
    JOINT = "joint"  # exp(sum logprob): the probability of the whole sequence
    MEAN = "mean"  # mean of exp(logprob): the arithmetic mean of token probabilities


class StabilitySuiteConfig(SuiteBase):
    """Seed stability-coefficient: how much answers move when the prompt is varied."""

    kind: Literal["stability"]
    records: Globs = Field(description="One record per (model, task, question, variant): JSON, JSONL, CSV, XLSX.")
    models: list[str] | None = Field(None, description="Only score these models.")
    embedding: str | None = Field(
        None, description="Overrides `models.embedding` (the seed used sentence-transformers/paraphrase-MiniLM-L6-v2).")
    answer_probability: AnswerProbability = Field(
        AnswerProbability.GEOMETRIC, description="P from token_logprobs when a record gives no answer_probability.")


# One member per suite kind; `gate.scorers` registers a scorer for each (a test checks it).
SUITE_CONFIGS: tuple[type[SuiteBase], ...] = (DriftSuiteConfig, StereotypeSuiteConfig, StabilitySuiteConfig)
SuiteConfig = Annotated[Union[SUITE_CONFIGS], Field(discriminator="kind")]  # noqa: UP007


# ---------------------------------------------------------------- report and publish


class ReportFormat(str, Enum):
    MARKDOWN = "markdown"
    JSON = "json"


class ReportConfig(StrictModel):
    output_dir: str = Field("gate-report", description="Where reports go, relative to the working directory.")
    formats: list[ReportFormat] = Field(default_factory=lambda: [ReportFormat.MARKDOWN, ReportFormat.JSON])
    worst_items: int = Field(5, ge=0, le=100, description="Worst items shown side by side per suite.")
    templates_dir: str | None = Field(
        None, description="A directory whose templates override the bundled ones (same file names)."
    )


class CommentMode(str, Enum):
    STICKY = "sticky"
    NEW = "new"
    OFF = "off"


class PublishConfig(StrictModel):
    comment: CommentMode = CommentMode.STICKY
    check_run: bool = True
    summary: bool = True


# ---------------------------------------------------------------- the gate


class GateConfig(StrictModel):
    version: Literal[1] = Field(description="Schema version of gate.yml; always 1 for now.")
    name: str = Field(
        "llm-quality-gate",
        min_length=1,
        max_length=100,
        description="Names the check run and the sticky comment; two gates in one repo need two names.",
    )
    models: ModelsConfig = ModelsConfig()
    runtime: RuntimeConfig = RuntimeConfig()
    suites: dict[str, SuiteConfig] = Field(min_length=1)
    report: ReportConfig = ReportConfig()
    publish: PublishConfig = PublishConfig()

    @field_validator("suites")
    @classmethod
    def _suite_names_are_path_safe(cls, suites: dict[str, object]) -> dict[str, object]:
        for name in suites:
            if not name or not all(c.isalnum() or c in "-_." for c in name) or name.startswith("."):
                raise ValueError(
                    f"suite name {name!r} must use letters, digits, '-', '_' or '.' (it names a folder)"
                )
        return suites

    def bertscore_for(self, suite: DriftSuiteConfig) -> BertScoreModelConfig:
        return suite.bertscore or self.models.bertscore


def known_kinds() -> tuple[str, ...]:
    return tuple(cls.model_fields["kind"].annotation.__args__[0] for cls in SUITE_CONFIGS)


def json_schema() -> dict:
    schema = GateConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "llm-quality-gate gate.yml"
    return schema
