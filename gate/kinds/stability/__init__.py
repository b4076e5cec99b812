"""Seed stability-coefficient: how much answers move when the prompt is varied.

`config` is its gate.yml entry, `records` reads its inputs (one record per model, task, question and variant),
`scorer` measures the coefficient per question (`STABILITY`), `view` is its report, `starter` what `llm-gate init`
writes for it (templates in `templates/`). `KIND` — the scorer with its
view and dashboard and calibration choices — is registered in pyproject.toml as
`stability = "gate.kinds.stability:KIND"`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gate.kinds.stability import view
from gate.kinds.stability.recipe import GENERATION
from gate.kinds.stability.scorer import STABILITY
from gate.kinds.stability.starter import STARTER

KIND = replace(STABILITY, generation=GENERATION, templates=Path(__file__).parent / "templates", starter=STARTER,
               view=view.build, charts=("stability_coefficient",),
               distribution=("stability_coefficient", None), calibration_metrics=("stability_coefficient",))

__all__ = ["KIND", "STABILITY"]
