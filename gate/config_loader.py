"""Load gate.yml: YAML -> `GateConfig`, with every problem named by line, field, expectation and fix."""

from __future__ import annotations

from pathlib import Path

import yaml

from gate import io
from gate.config import GateConfig, known_kinds
from gate.errors import ConfigError, Problem, describe
from gate.yaml_models import duplicate_keys, line_of, parse_yaml, suggest, validate


def load_config(path: str | Path) -> GateConfig:
    """Read, parse and validate gate.yml; raise `ConfigError` listing every problem found."""
    path = Path(path)
    text = io.read_text(path, what="gate config")
    return parse_config(text, str(path))


def parse_config(text: str, filename: str = "gate.yml") -> GateConfig:
    data, root = parse_yaml(text, filename, "gate config")
    if not isinstance(data, dict):
        raise ConfigError(
            "gate config must be a mapping",
            [Problem(file=filename, line=1, expected="a YAML mapping with `version:` and `suites:`",
                     found="an empty file" if data is None else describe(data),
                     fix="start from `llm-gate init` or examples/gate.yml")],
        )
    problems = duplicate_keys(root, filename)
    problems += _kind_problems(data, root, filename)
    if problems:
        raise ConfigError(f"{filename} is invalid", problems)
    config = validate(GateConfig, data, root, filename)
    problems = _check_problems(config, root, filename)
    if problems:
        raise ConfigError(f"{filename} is invalid", problems)
    return config


# ---------------------------------------------------------------- semantic checks


def _kind_problems(data: dict, root: yaml.Node, filename: str) -> list[Problem]:
    """Unknown suite kinds get a message listing the known ones (pydantic's says 'tag')."""
    suites = data.get("suites")
    if not isinstance(suites, dict):
        return []
    kinds = known_kinds()
    problems = []
    for name, suite in suites.items():
        if not isinstance(suite, dict):
            continue
        kind = suite.get("kind")
        if kind in kinds:
            continue
        loc = ("suites", name, "kind") if "kind" in suite else ("suites", name)
        problems.append(
            Problem(
                file=filename,
                line=line_of(root, loc),
                field=".".join(map(str, loc)) if "kind" in suite else f"suites.{name}.kind",
                expected=f"a known suite kind: {', '.join(kinds)}",
                found=f"unknown kind {kind!r}" if "kind" in suite else "no `kind:`",
                fix=suggest(kind, kinds) if isinstance(kind, str) else f"add `kind: {kinds[0]}`",
            )
        )
    return problems


def _check_problems(config: GateConfig, root: yaml.Node, filename: str) -> list[Problem]:
    """Checks must name metrics and scopes the suite's kind produces."""
    from gate.scorers import get_scorer

    problems = []
    for name, suite in config.suites.items():
        scorer = get_scorer(suite.kind)
        metrics = tuple(scorer.metrics)
        levels = ("group", *scorer.levels, "suite")
        for metric, check in (suite.checks or {}).items():
            loc = ("suites", name, "checks", metric)
            if not scorer.knows(metric):
                problems.append(
                    Problem(
                        file=filename, line=line_of(root, loc), field=".".join(loc),
                        expected=f"a metric of kind '{suite.kind}': {', '.join(metrics)}",
                        found=f"unknown metric {metric!r}", fix=suggest(metric, metrics),
                    )
                )
            if check.scope not in levels:
                problems.append(
                    Problem(
                        file=filename, line=line_of(root, (*loc, "scope")), field=".".join((*loc, "scope")),
                        expected=f"one of {', '.join(dict.fromkeys(levels))}", found=repr(check.scope),
                        fix=suggest(check.scope, levels),
                    )
                )
    return problems
