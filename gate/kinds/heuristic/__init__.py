"""Seed heuristic-rubric: rule-based scores of coding and paraphrasing responses, and what is missing.

Per response: every metric of its category (base score + indicators, clamped to [0, 10]) and the
weighted final score. Per (model, category) and per model: mean, median, std (sample, like pandas),
min and max of each, and the missing-data analysis against the expected models × categories × prompts.

`scorer` is the suite's scorer (`HEURISTIC`; `KIND` adds the report `view` and the seed's `exports`, and is
registered in pyproject.toml as `heuristic = "gate.kinds.heuristic:KIND"`) and types what the report reads;
`config` is its gate.yml entry, `records` reads its inputs, `rubric` (with `rubrics/`) reads rubrics; `rules`
applies a rubric to one response (features, indicators, clamping, weights); `groups` folds scored responses into
statistics and compares them with what was expected; `catalogue` names the metrics and checks a config may use,
before any input is read; `statistics` gives the spreads to significance tests; `view` and `exports` are its report
and its seed's files; `starter` is what `llm-gate init` writes for it (templates in `templates/`). A new
indicator kind goes in `rules` and
`rubric`; a new per-group number in `groups.stats` and `catalogue._catalogue`.
"""

from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from gate.kinds.heuristic import exports, view
from gate.kinds.heuristic.catalogue import DEFAULT_CHECKS, METRICS, STAT_PATTERN
from gate.kinds.heuristic.groups import Expected, Shortfall, Slot, expected_matrix
from gate.kinds.heuristic.recipe import GENERATION
from gate.kinds.heuristic.scorer import (
    HEURISTIC,
    HeuristicDetails,
    HeuristicItemDetails,
    HeuristicSettings,
    score_heuristic,
)
from gate.kinds.heuristic.starter import STARTER


def _category_means(available: Collection[str]) -> tuple[str, ...]:
    """The rubric's per-category scores in the reports (`correctness_mean`, ...: every `_mean` but the final)."""
    return tuple(sorted(m for m in available if m.endswith("_mean") and m != "final_score_mean"))


KIND = replace(HEURISTIC, generation=GENERATION, templates=Path(__file__).parent / "templates", starter=STARTER,
               view=view.build, exports=exports.write, charts=("final_score_mean",),
               distribution=("final_score", (0.0, 10.0)), calibration_metrics=("final_score_mean",),
               calibrated=_category_means)

__all__ = ["DEFAULT_CHECKS", "HEURISTIC", "KIND", "METRICS", "STAT_PATTERN", "Expected", "HeuristicDetails",
           "HeuristicItemDetails", "HeuristicSettings", "Shortfall", "Slot", "expected_matrix", "score_heuristic"]
