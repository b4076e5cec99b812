"""Test helpers for the kind registry (`gate.kinds`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gate.kinds import KINDS, Kind
from gate.report import views


def with_view(monkeypatch, kind: str, view) -> None:
    """Render `kind`'s suites with `view` (None: the generic view) for this test, as if the kind registered it."""
    patched = replace(KINDS[kind], view=view)

    def get_kind(name: str) -> Kind[Any, Any]:
        return patched if name == kind else KINDS[name]

    monkeypatch.setattr(views, "get_kind", get_kind)
