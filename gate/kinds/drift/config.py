"""The drift suite's entry in gate.yml."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import Field

from gate.config import BERTSCORE, GateConfig, ModelUse
from gate.config.base import Globs, SuiteBase
from gate.config.runtime import BertScoreModelConfig


class CreditDriftMode(str, Enum):
    TOTAL = "total"  # |sum candidate credits - sum baseline credits| per submission (DESIGN.md §4)
    ITEM = "item"  # the seed's positional item-wise differences, trimmed to the shorter list


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


def drift_models(gate: GateConfig, suite: DriftSuiteConfig) -> tuple[ModelUse, ...]:
    """The BERTScore backbone a drift suite loads (`Kind.models_of`): its own `bertscore:`, else `models.bertscore`."""
    return (ModelUse(BERTSCORE, gate.bertscore_for(suite).model),)
