"""The models a gate's suites load, each with its role, as each suite's kind says (`Kind.models_of`).

`validate` and `models list|pull` print them; a run hands their roles to the model runtime, which knows only
engines, so that a model that is missing or damaged is named in the suite's words with the gate.yml field that
sets it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.config import GateConfig, ModelRole, ModelUse
from gate.kinds import get_kind


@dataclass(frozen=True)
class ModelNeed:
    """One model a run would load: its name as configured, its role and the suites that use it."""

    name: str
    role: ModelRole
    suites: tuple[str, ...]

    @property
    def use(self) -> ModelUse:
        return ModelUse(self.role, self.name)


def needed_models(config: GateConfig) -> list[ModelNeed]:
    """The models the suites load, as each suite's kind says (`Kind.models_of`: the suite's own settings applied
    as its scorer applies them; a suite that loads none, none)."""
    found: dict[tuple[str, ModelRole], list[str]] = {}
    for suite_name, suite in config.suites.items():
        models_of = get_kind(suite.kind).models_of
        for use in models_of(config, suite) if models_of else ():
            found.setdefault((use.name, use.role), []).append(suite_name)
    return [ModelNeed(name, role, tuple(suites)) for (name, role), suites in found.items()]
