"""The README stays true: its commands, its configuration reference, its report excerpt."""

from __future__ import annotations

import re

from pydantic import BaseModel

from gate.config import SUITE_CONFIGS, GateConfig
from gate.scorers import SCORERS
from tests.conftest import REPO

README = (REPO / "README.md").read_text()


def field_paths(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Dotted paths of every leaf setting, descending into nested models (`models.bertscore.layer`)."""
    paths = []
    for name, field in model.model_fields.items():
        nested = [a for a in getattr(field.annotation, "__args__", (field.annotation,))
                  if isinstance(a, type) and issubclass(a, BaseModel)]
        paths += field_paths(nested[0], f"{prefix}{name}.") if nested else [prefix + name]
    return paths


def test_every_config_field_is_in_the_reference():
    documented = set(re.findall(r"^\| `([^`]+)` \|", README, flags=re.MULTILINE))
    expected = [p for p in field_paths(GateConfig) if p != "suites"]
    for suite_model in SUITE_CONFIGS:
        expected += [f"suites.<name>.{name}" for name in suite_model.model_fields]
    missing = [p for p in expected if p not in documented]
    assert not missing, f"document these in the README's configuration reference: {missing}"


def test_every_metric_and_kind_is_named():
    for kind, scorer in SCORERS.items():
        assert f"`{kind}`" in README
        for metric in scorer.metrics:
            family = metric.rsplit("_", 1)[0]  # `<metric>_<stat>` families are documented once
            pattern = scorer.metric_pattern
            assert f"`{metric}`" in README or (pattern and pattern.match(metric) and f"`{family}`" in README), metric


def test_setup_commands_are_the_ones_ci_runs():
    assert 'pip install -c constraints.txt -e ".[test]" && llm-gate run --config examples/gate.yml' in README
    assert "HF_HUB_OFFLINE=1 python -m pytest -q" in README
    ci = (REPO / ".ci" / "run").read_text()
    assert 'pip install -q -c constraints.txt -e ".[test]"' in ci
    assert "HF_HUB_OFFLINE=1 python -m pytest -q" in ci
    assert "llm-gate run --config examples/gate.yml" in ci
    assert "torch==" in (REPO / "constraints.txt").read_text()


def test_every_command_in_the_table_exists():
    from typer.main import get_command

    from gate.cli import app

    root = get_command(app)
    for line in re.findall(r"^\| `llm-gate ([a-z]+(?: [a-z]+)?)", README, flags=re.MULTILINE):
        words = line.split()
        command = root.commands.get(words[0]) if hasattr(root, "commands") else None
        assert command is not None, line
        if len(words) > 1 and words[1] in getattr(command, "commands", {}):
            continue
        assert len(words) == 1 or not hasattr(command, "commands"), line
