"""The heuristic suite's entry in gate.yml."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gate.config.base import Globs, StrictModel, SuiteBase


class ExpectedResponses(StrictModel):
    """The response matrix a heuristic evaluation should have (the seed's 3 x 2 x 30 = 180)."""

    models: list[str] | None = Field(None, description="Models that must answer (default: those found).")
    prompts: dict[str, Annotated[int, Field(gt=0)] | list[str]] | None = Field(
        None, description="Per category: the prompt ids, or how many prompts (default: the ids found).")


class HeuristicSuiteConfig(SuiteBase):
    """Seed heuristic-rubric: rule-based scores of coding and paraphrasing responses."""

    kind: Literal["heuristic"]
    records: Globs = Field(description="Responses: JSON, JSONL, CSV or XLSX (globs).")
    rubric: str | None = Field(None, description="A packaged rubric (seed-v1) or a rubric YAML file.")
    models: list[str] | None = Field(None, description="Only score these models.")
    expected: ExpectedResponses = Field(default_factory=ExpectedResponses)
