"""Running a kind's generation recipe without a provider: scripted responses for its calls, and the records
written where the suite reads them (so the kind's own `load` proves their shape)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gate.config.generation import GenerateConfig
from gate.generate.providers.types import Response
from gate.kinds.generation import Answered, Call


def generate(**fields: Any) -> GenerateConfig:
    return GenerateConfig.model_validate({"provider": "p", "models": ["m"], **fields})


def answer(calls: Sequence[Call], reply: Callable[[Call], Response | None]) -> list[Answered]:
    """Each call with its scripted response (None: the call failed)."""
    return [(call, reply(call)) for call in calls]


def write_rows(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def user_text(call: Call) -> str:
    """The last user turn of a call: what was asked."""
    return [m.content for m in call.request.messages if m.role == "user"][-1]
