"""The suite kinds installed packages register, loaded once: the `llm_quality_gate.kinds` entry point group.

Each entry point names a kind and points at its `Kind` object (`gate.kinds.Kind`); the built-in kinds register in
llm-quality-gate's own pyproject.toml exactly as a third-party package would (`drift = "gate.kinds.drift:KIND"`).
This module only finds and loads them — `gate.kinds` types them, and gate.yml's suite union is built from their
`config_model`s (`gate.config.gate`), its `models:` from the engines' keys and their `model_keys`. Loading imports
each kind's package, so it happens on first use, never when the CLI starts.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from functools import cache
from importlib.metadata import EntryPoint
from typing import Any, cast

from pydantic import Field, create_model

from gate.config.base import SuiteBase
from gate.config.runtime import ModelKey, ModelsConfig
from gate.errors import ConfigError, Problem

GROUP = "llm_quality_gate.kinds"


@cache
def registered() -> tuple[tuple[str, object], ...]:
    """(kind, its loaded object) of every registered kind, in registration order (a name registered twice: the
    first found on sys.path wins, as Python's own imports do)."""
    found: dict[str, object] = {}
    for point in _entry_points():
        if point.name in found:
            continue
        kind = point.load()
        model = getattr(kind, "config_model", None)
        if getattr(kind, "kind", None) != point.name or not (isinstance(model, type) and issubclass(model, SuiteBase)):
            raise ConfigError(f"suite kind {point.name!r} is registered wrongly", [Problem(
                field=f"entry point {point.name} = {point.value}",
                expected=f"a gate.kinds.Kind whose `kind` is {point.name!r} and whose `config_model` is a SuiteBase",
                found=repr(kind)[:200])])
        found[point.name] = kind
    return tuple(found.items())


def _entry_points() -> Iterator[EntryPoint]:
    """The group's entry points, in sys.path order: what `importlib.metadata.entry_points(group=GROUP)` finds, read
    from the installed distributions' `entry_points.txt` alone (building every distribution's metadata object for
    one group costs the CLI's start what `gate.__main__` spares pydantic; tests/test_startup.py)."""
    header = f"[{GROUP}]"
    for folder in sys.path:
        try:
            names = sorted(e.name for e in os.scandir(folder or ".") if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:  # a zip, a missing directory
            continue
        for name in names:
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as file:
                    text = file.read()
            except OSError:
                continue
            if header in text:
                yield from _group(text, header)


def _group(text: str, header: str) -> Iterator[EntryPoint]:
    inside = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == header
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            yield EntryPoint(name.strip(), value.strip(), GROUP)


def suite_models() -> tuple[type[SuiteBase], ...]:
    """The config model of each registered kind: the members of gate.yml's suite union."""
    return tuple(cast(Any, kind).config_model for _, kind in registered())


def model_keys() -> tuple[ModelKey, ...]:
    """The keys the registered kinds add under gate.yml's `models:`, in registration order (two kinds may share one
    that they declare alike)."""
    found: dict[str, tuple[str, ModelKey]] = {}
    for name, kind in registered():
        for key in getattr(kind, "model_keys", ()):
            owner, known = found.get(key.role.key, (None, key)) if isinstance(key, ModelKey) else (None, None)
            if isinstance(key, ModelKey) and key.role.key not in ModelsConfig.model_fields and known == key:
                found.setdefault(key.role.key, (name, key))
                continue
            raise ConfigError(f"suite kind {name!r} is registered wrongly", [Problem(
                field=f"entry point {name}: model_keys", found=repr(key)[:200],
                expected="a gate.config.ModelKey whose key is not one of models:'s own "
                         f"({', '.join(ModelsConfig.model_fields)})" + (f" nor kind {owner}'s" if owner else ""))])
    return tuple(key for _, key in found.values())


@cache
def models_model() -> type[ModelsConfig]:
    """gate.yml's `models:`: the engines' keys and the registered kinds' own (`model_keys`), named as before."""
    fields: dict[str, Any] = {key.role.key: (str, Field(key.default, description=key.description))
                              for key in model_keys()}
    return create_model("ModelsConfig", __base__=ModelsConfig, __module__=ModelsConfig.__module__, **fields)


def default_models() -> ModelsConfig:
    """`models:` as a gate.yml without one has it."""
    return models_model()()


def forget() -> None:
    """Look the entry points up again on next use (a test that registers a kind; `gate.kinds.reload` rebuilds)."""
    registered.cache_clear()
    models_model.cache_clear()
