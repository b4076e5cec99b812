"""The `rag` suite's configuration: retrieval cut-offs, generation and performance settings (claim-level
faithfulness with the NLI model of `models.nli`, the kind's own key under `models:`), the overall score's weights,
the LLM judge (`judge:`, the core's `GraderConfig`: where a key may go is the workflow's business,
`gate.config.grader_access`), and the baseline comparison's significance test (seed rag-evaluation)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import ClassVar, Literal

from pydantic import Field, PositiveFloat, PositiveInt, field_validator, model_validator

from gate.config import EMBEDDING, GateConfig, ModelKey, ModelRole, ModelUse
from gate.config.base import Globs, StrictModel, SuiteBase
from gate.config.grader import GraderConfig
from gate.config.strict import invalid

NLI = ModelRole("nli", "NLI model", engine="nli")
MODEL_KEYS = (ModelKey(NLI, "cross-encoder/nli-deberta-v3-xsmall",
                       "Natural-language-inference model of the RAG suites' claim_faithfulness (a sequence-pair "
                       "classifier whose config.json names an entailment label)."),)

# The overall score's default weights: retrieval and generation count half each (DESIGN.md §4).
DEFAULT_OVERALL_WEIGHTS = {
    "mrr": 0.15, "ndcg": 0.15, "context_precision": 0.10, "recall_at_k": 0.10,
    "context_similarity": 0.20, "answer_relevancy": 0.15, "rouge_l": 0.10, "bleu": 0.05,
}


class Targets(StrictModel):
    """Performance targets of the seed's table; a miss becomes an entry in the report's issues."""

    latency_p50: PositiveFloat = 1.0
    latency_p95: PositiveFloat = 3.0
    latency_p99: PositiveFloat = 5.0
    throughput_qps: PositiveFloat = 10.0
    cost_per_query: PositiveFloat = 0.01


class SignificanceMethod(str, Enum):
    BOOTSTRAP = "bootstrap"  # paired bootstrap CI of the mean difference
    WILCOXON = "wilcoxon"  # Wilcoxon signed-rank p-value


class Significance(StrictModel):
    method: SignificanceMethod = SignificanceMethod.BOOTSTRAP
    alpha: float = Field(0.05, gt=0, lt=0.5)
    resamples: int = Field(10_000, ge=100, le=1_000_000)
    seed: int = 0


class RagSuiteConfig(SuiteBase):
    """Seed rag-evaluation: retrieval, generation and performance metrics, grade, baseline vs candidate."""

    kind: Literal["rag"]
    # Names gate.yml may still use, with a deprecation warning (`gate.config.renamed`): the embedding measure was
    # `faithfulness` until issue 36 — it measures similarity; support is claim_faithfulness.
    renamed: ClassVar[Mapping[str, str]] = {"faithfulness": "context_similarity",
                                            "faithfulness_threshold": "context_similarity_threshold"}
    renamed_in: ClassVar[tuple[str, ...]] = ("overall_weights",)
    records: Globs = Field(description="The candidate system's test samples, JSON or JSONL (globs).")
    baseline: Globs | None = Field(None, description="The baseline system's samples, for the comparison.")
    dataset_name: str | None = Field(None, description="Names the dataset in the seed's evaluation report.")
    k: list[PositiveInt] = Field(default_factory=lambda: [1, 3, 5], min_length=1, description="Cut-offs for @k.")
    embedding: str | None = Field(None, description="Overrides `models.embedding` (answer_relevancy, "
                                  "context_similarity).")
    embedding_metrics: bool = Field(
        True, description="answer_relevancy and context_similarity need a sentence-embedding model; false leaves "
        "them unmeasured and the suite loads no model at all (no torch import).")
    context_similarity_threshold: float = Field(
        0.6, ge=-1, le=1, description="Cosine similarity at which a context sentence counts as close to an answer "
        "sentence (context_similarity). Formerly `faithfulness_threshold`.")
    claim_faithfulness: bool = Field(
        False, description="Split each answer into claims (sentences) and decide each against the retrieved "
        "contexts with a local NLI model (`models.nli`, or `nli_model:`): claim_faithfulness = supported claims / "
        "claims, the unsupported ones listed per answer. Opt-in: the model must be pulled first "
        "(`llm-gate models pull`).")
    nli_model: str | None = Field(None, description="Overrides `models.nli` for this suite (claim_faithfulness).")
    claim_threshold: float = Field(
        0.5, gt=0, le=1, description="P(entailment) at which the NLI model's verdict counts a claim as supported.")
    claim_judge: bool = Field(
        False, description="Also ask the suite's LLM judge (`judge:`: its endpoint, key rules, budget and cache) "
        "whether the contexts support each claim: llm_claim_faithfulness, ADVISORY (never in the overall "
        "score), shown with claim_agreement, the share of claims where it agrees with the NLI model. Needs "
        "`claim_faithfulness: true` and `judge: {enabled: true}`.")
    claim_decomposition: Literal["sentences", "llm"] = Field(
        "sentences", description="The claims `claim_judge` verifies: `sentences`, the NLI model's own (compared "
        "claim by claim); `llm`, the judge first splits each answer into standalone claims (Ragas: decompose, then "
        "verify: 1 + claims requests per answer), llm_claim_faithfulness = supported / claims, compared with the NLI "
        "model per answer (fully supported or not). Needs `claim_judge: true`.")
    cost_per_1k_tokens: float = Field(0.002, ge=0, description="Price when samples give tokens but no cost.")
    overall_weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_OVERALL_WEIGHTS))
    targets: Targets = Field(default_factory=Targets)
    judge: GraderConfig = Field(default_factory=GraderConfig)
    significance: Significance = Field(default_factory=Significance)

    @field_validator("k")
    @classmethod
    def _sorted(cls, k: list[int]) -> list[int]:
        return sorted(set(k))

    @model_validator(mode="after")
    def _weights(self) -> RagSuiteConfig:
        allowed = {*DEFAULT_OVERALL_WEIGHTS, "claim_faithfulness", *(f"judge_{c}" for c in self.judge.criteria)}
        unknown = sorted(set(self.overall_weights) - allowed)
        if unknown:
            raise invalid(f"overall_weights of these metrics: {', '.join(sorted(allowed))}",
                          found=f"unknown metric(s) {', '.join(unknown)}", fix="weigh only the metrics listed")
        if self.claim_judge and not (self.claim_faithfulness and self.judge.enabled):
            raise invalid("`claim_faithfulness: true` and `judge: {enabled: true}` beside `claim_judge` (the LLM's "
                          "claim verdicts are measured against the NLI model's)", found="`claim_judge: true` alone",
                          fix="set both, or drop `claim_judge`")
        if self.claim_decomposition == "llm" and not self.claim_judge:
            raise invalid("`claim_judge: true` beside `claim_decomposition: llm` (it asks the suite's LLM judge "
                          "to split the answers)", found="`claim_decomposition: llm` without `claim_judge`",
                          fix="set `claim_judge: true` (and what it needs), or drop `claim_decomposition`")
        if any(w < 0 for w in self.overall_weights.values()) or not any(self.overall_weights.values()):
            raise invalid("overall_weights ≥ 0, not all zero", found=str(dict(self.overall_weights)),
                          fix="give each metric its share, e.g. `{mrr: 0.5, context_similarity: 0.5}`")
        return self


def nli_for(gate: GateConfig, suite: RagSuiteConfig) -> str:
    """The NLI model a suite's claim_faithfulness loads: its own `nli_model:`, else `models.nli`."""
    return suite.nli_model or gate.models.model(NLI.key)


def rag_models(gate: GateConfig, suite: RagSuiteConfig) -> tuple[ModelUse, ...]:
    """The models a RAG suite loads (`Kind.models_of`): the embedding model unless `embedding_metrics: false`, the
    NLI model with `claim_faithfulness: true`."""
    embedding = (ModelUse(EMBEDDING, gate.embedding_for(suite)),) if suite.embedding_metrics else ()
    return embedding + ((ModelUse(NLI, nli_for(gate, suite)),) if suite.claim_faithfulness else ())
