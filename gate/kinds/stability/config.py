"""The stability suite's entry in gate.yml."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import Field

from gate.config import EMBEDDING, GateConfig, ModelUse
from gate.config.base import Globs, SuiteBase


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


def stability_models(gate: GateConfig, suite: StabilitySuiteConfig) -> tuple[ModelUse, ...]:
    """The embedding model a stability suite loads (`Kind.models_of`): its own `embedding:`, else `models:`'s."""
    return (ModelUse(EMBEDDING, gate.embedding_for(suite)),)
