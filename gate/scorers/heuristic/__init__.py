"""Seed heuristic-rubric: rule-based scores of coding and paraphrasing responses, and what is missing.

Per response: every metric of its category (base score + indicators, clamped to [0, 10]) and the
weighted final score. Per (model, category) and per model: mean, median, std (sample, like pandas),
min and max of each, and the missing-data analysis against the expected models × categories × prompts.

`scorer` is the suite's scorer (`HEURISTIC`, registered in `gate.scorers`) and types what the report
reads; `rules` applies a rubric to one response (features, indicators, clamping, weights); `groups`
folds scored responses into statistics and compares them with what was expected; `catalogue` names the
metrics and checks a config may use, before any input is read. A new indicator kind goes in `rules` and
`gate.rubric`; a new per-group number in `groups.stats` and `catalogue._catalogue`.
"""

from gate.scorers.heuristic.catalogue import DEFAULT_CHECKS, METRICS, STAT_PATTERN
from gate.scorers.heuristic.groups import Expected, Shortfall, Slot, expected_matrix
from gate.scorers.heuristic.scorer import (
    HEURISTIC,
    HeuristicDetails,
    HeuristicItemDetails,
    HeuristicSettings,
    score_heuristic,
)

__all__ = ["DEFAULT_CHECKS", "HEURISTIC", "METRICS", "STAT_PATTERN", "Expected", "HeuristicDetails",
           "HeuristicItemDetails", "HeuristicSettings", "Shortfall", "Slot", "expected_matrix", "score_heuristic"]
