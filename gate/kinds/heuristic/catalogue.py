"""What a heuristic suite can measure and check, known from its config before any input is read.

The metric names come from the rubric (`<rubric metric>_<stat>`, `final_score_<stat>`, the coverage
ratios); a packaged rubric's names are read here at import (`METRICS`), a rubric file's only with the
suite's inputs. Kept apart from the scoring so that validating gate.yml needs only this.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gate import io
from gate.config import CheckConfig
from gate.config.base import CheckProblem
from gate.kinds.base import KnownMetrics
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.rubric import DEFAULT_RUBRIC, RUBRICS, STATS
from gate.results import Direction, MetricSpec

STAT_PATTERN = re.compile(rf"^[a-z][a-z0-9_]*_({'|'.join(STATS)})$")


def _catalogue(metric_names: Sequence[str]) -> dict[str, MetricSpec]:
    """Every suite metric described, in `rubric.suite_metric_names`' order (the names gate.yml may check)."""
    specs = {}
    for metric in [*metric_names, "final_score"]:
        for stat in STATS:
            direction = Direction.LOWER_IS_BETTER if stat == "std" else Direction.HIGHER_IS_BETTER
            bounds = (0.0, 10.0) if stat != "std" else (0.0, 5.0)  # a 0–10 score; its std at most half the range
            specs[f"{metric}_{stat}"] = MetricSpec(f"{metric}_{stat}", direction, f"{stat} of {metric} (0–10)", ".2f",
                                                   *bounds)
    specs["responses"] = MetricSpec("responses", Direction.HIGHER_IS_BETTER, "Responses scored", ".0f")
    specs["missing_ratio"] = MetricSpec("missing_ratio", Direction.LOWER_IS_BETTER,
                                        "Expected responses that are missing", ".0%", 0, 1)
    specs["empty_ratio"] = MetricSpec("empty_ratio", Direction.LOWER_IS_BETTER, "Expected responses that are empty",
                                      ".0%", 0, 1)
    return specs


@functools.cache
def _packaged_metric_names(name: str = DEFAULT_RUBRIC) -> tuple[str, ...]:
    """A rubric's metric names, read at import (METRICS): libyaml where installed (pure Python: ~40 ms a start)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(io.read_text(RUBRICS / f"{name}.yml", "rubric"), Loader=loader)  # noqa: S506 (a safe loader)
    return tuple(dict.fromkeys(m for c in data["categories"].values() for m in c["metrics"]))


def packaged_metrics(suite: Mapping[str, Any]) -> KnownMetrics | None:
    """The metrics of a suite on a packaged rubric (`rubric:` left out or a packaged name, as `load_rubric`
    resolves it); None for a rubric file, read only with the suite's inputs."""
    name = suite.get("rubric") or DEFAULT_RUBRIC
    if not _packaged(name):
        return None
    return KnownMetrics(f"rubric {name}", tuple(_catalogue(_packaged_metric_names(name))),
                        "metrics are <rubric metric>_<mean|median|std|min|max>, final_score_…, missing_ratio")


def check_problem(suite: HeuristicSuiteConfig, metric: str, check: CheckConfig) -> CheckProblem | None:
    """A packaged rubric's category metric (`correctness_mean`) exists only per model × category: at scope
    `model` or `suite` it would never be measured."""
    name, base = suite.rubric or DEFAULT_RUBRIC, metric.rsplit("_", 1)[0]
    if check.scope == "group" or not STAT_PATTERN.match(metric) or not _packaged(name) \
            or base not in _packaged_metric_names(name):
        return None
    return CheckProblem(expected=f"scope: group for {metric} (the rubric scores {base} only in its "
                        "category's model × category groups)", found=f"scope: {check.scope}",
                        fix="use scope: group, or check final_score_… at this scope")


def item_columns(rubric: str | None) -> tuple[str, ...]:
    """A suite's numeric item columns where its config tells: a packaged rubric's metrics (for a rubric file,
    which only its inputs tell, `metrics_of` is None and these are the rubric-independent columns only)."""
    name = rubric or DEFAULT_RUBRIC
    return (*(_packaged_metric_names(name) if _packaged(name) else ()), "final_score", "empty", "word_count")


def _packaged(name: object) -> bool:
    return isinstance(name, str) and "/" not in name and not name.endswith((".yml", ".yaml")) \
        and (RUBRICS / f"{name}.yml").is_file()


METRICS = _catalogue(_packaged_metric_names())
DEFAULT_CHECKS = {"final_score_mean": CheckConfig(min=5.0), "missing_ratio": CheckConfig(max=0.1)}
