"""The contract every suite kind implements (a test runs it over every registered scorer)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.config import CheckConfig, GateConfig, SuiteBase
from gate.results import MetricSpec, SuiteResult
from gate.runtime.api import ModelRuntime


@dataclass(frozen=True)
class ScoringContext:
    gate: GateConfig
    runtime: ModelRuntime
    base_dir: Path  # the directory of gate.yml: relative paths in the config start here
    # The LLM judge (network I/O, so handed in like the model runtime): (JudgeConfig, items) -> JudgeRun.
    judge: Callable[[Any, Any], Any] | None = None


@dataclass(frozen=True)
class Scorer:
    kind: str
    config_model: type[SuiteBase]
    metrics: Mapping[str, MetricSpec]
    group_fields: tuple[str, ...]  # the key fields of the primary level, "group"
    levels: tuple[str, ...]  # further levels checks may scope to (e.g. "model"); "suite" is always there
    default_checks: Mapping[str, CheckConfig]
    # (suite name, suite config, directory of gate.yml) -> typed data; raises InputError
    load: Callable[[str, Any, Path], Any]
    # (suite name, suite config, data, context) -> measured values; no verdicts
    score: Callable[[str, Any, Any, ScoringContext], SuiteResult]
    model_roles: tuple[str, ...] = ()  # which of `models:` the kind loads ("bertscore", "embedding", ...)
    # Metrics a suite's own definitions can add (a custom rubric's `<metric>_mean`), beyond `metrics`.
    metric_pattern: re.Pattern[str] | None = None

    def knows(self, metric: str) -> bool:
        return metric in self.metrics or bool(self.metric_pattern and self.metric_pattern.match(metric))

    def checks_for(self, suite: SuiteBase) -> Mapping[str, CheckConfig]:
        return suite.checks if suite.checks is not None else self.default_checks
