"""Agent runs: does each task's agent call the tools it should, in order, with valid arguments, within its step,
token, latency and cost limits, reaching the expected answer — and how far do its tool sequences move from the
baseline's?

`config` is its gate.yml entry; `records` reads the runs (tool-call records, or OpenTelemetry GenAI spans through
`spans` and `otel`) into `runs`' shape; `expectations` reads and checks what each task's runs must do (argument
constraints in `schema`'s JSON Schema subset); `sequences` compares tool sequences (edit distance, side by side);
`statistics` holds the catalogue and formulas (pass^k, pass@k, Wilson intervals); `scorer` measures (`TRAJECTORY`);
`view` and `templates/` are its report; `recipe` puts the tasks to the user's agent (gate.yml's `generate:`) and
`starter` is its part of `llm-gate init`. `KIND` is registered in pyproject.toml as
`trajectory = "gate.kinds.trajectory:KIND"`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gate.kinds.trajectory import view
from gate.kinds.trajectory.recipe import GENERATION
from gate.kinds.trajectory.scorer import TRAJECTORY
from gate.kinds.trajectory.starter import STARTER

KIND = replace(TRAJECTORY, templates=Path(__file__).parent / "templates", view=view.build, generation=GENERATION,
               starter=STARTER,
               charts=("pass_rate", "expectations_met_rate", "success_rate", "cost_mean"),
               distribution=("steps", None), calibration_metrics=("pass_rate", "cost_mean"))

__all__ = ["KIND", "TRAJECTORY"]
