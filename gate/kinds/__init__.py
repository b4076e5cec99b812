"""Suite kinds: the one contract the core knows them by (`Kind`, in `base`) and the registry of installed kinds.

A kind is a folder, `gate/kinds/<kind>/` for the built-in ones: its gate.yml model, records, scorer, item
statistics, report view and templates, assembled into one `Kind` object its package exports as `KIND`. Kinds are
found through the `llm_quality_gate.kinds` entry point group (`gate.config.registered`) — the built-in ones
register in pyproject.toml exactly as a third-party package would — and loaded on first use: `KINDS` maps each
kind's name to its `Kind`, in registration order. Nothing outside a kind's folder names it. `samples` is the
kinds' shared helper for repeated generations (one item per prompt, its mean and spread).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gate.config import GateConfig
from gate.config.registered import forget, registered
from gate.errors import ConfigError, Problem
from gate.kinds.base import ConfigT, Grader, Kind, KnownMetrics, RecordsT, ScoringContext, Starter


class Registry(Mapping[str, "Kind[Any, Any]"]):
    """kind -> its `Kind`: the registered kinds, loaded when first asked for."""

    _checked: tuple[tuple[tuple[str, object], ...], dict[str, Kind[Any, Any]]] | None = None

    def _kinds(self) -> dict[str, Kind[Any, Any]]:
        found = registered()  # cached; a new tuple only after `reload`
        if self._checked is not None and self._checked[0] is found:
            return self._checked[1]
        kinds = {}
        for name, kind in found:
            if not isinstance(kind, Kind):
                raise ConfigError(f"suite kind {name!r} is registered wrongly", [Problem(
                    field=f"entry point {name}", expected="a gate.kinds.Kind", found=type(kind).__name__)])
            kinds[name] = kind
        self._checked = (found, kinds)
        return kinds

    def __getitem__(self, kind: str) -> Kind[Any, Any]:
        return self._kinds()[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds())

    def __len__(self) -> int:
        return len(registered())


KINDS = Registry()


def get_kind(kind: str) -> Kind[Any, Any]:
    try:
        return KINDS[kind]
    except KeyError:
        raise ConfigError(
            "unknown suite kind",
            [Problem(field="kind", expected=f"one of {', '.join(KINDS)}", found=repr(kind))],
        ) from None


def reload() -> None:
    """Find the registered kinds again and rebuild gate.yml's suite union from them (a test that installs one)."""
    forget()
    GateConfig.model_rebuild(force=True)


__all__ = ["KINDS", "ConfigT", "Grader", "Kind", "KnownMetrics", "RecordsT", "Registry", "ScoringContext", "Starter",
           "get_kind", "reload"]
