"""The corpus's building blocks: a case, the kinds' records files, helpers for expected locations."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from tests.badinputs.projects import (
    SUITES,
    drift_candidate,
    gate_yml,
    heuristic_record,
    rag_record,
    stability_record,
    stereotype_record,
    trajectory_record,
)

MB = "x" * 1_000_000
BAD_UTF8 = b'{"model": "m", "caf\xe9": 1}\n'


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # drift, stereotype, stability, rag, heuristic, trajectory, or config
    files: MappingProxyType  # path -> text/bytes over the base project; None deletes a base file
    expect: tuple[str, ...]  # substrings of the message
    config: str = "gate.yml"  # the --config argument


def case(id: str, kind: str, files: dict, *expect: str, config: str = "gate.yml") -> Case:
    return Case(id, kind, MappingProxyType(files), expect, config)


def with_suite(kind: str, **lines: str) -> dict:
    """gate.yml with the kind's suite, `key: value` lines replaced or added."""
    body = SUITES[kind]
    for key, value in lines.items():
        kept = [ln for ln in body.splitlines() if not ln.startswith(f"    {key}:")]
        body = "\n".join([*kept, f"    {key}: {value}"]) + "\n"
    return {"gate.yml": gate_yml(kind, body)}


# Shared by every record-based kind: (kind, records file, a valid record)
RECORD_FILES = {
    "stereotype": ("stereotype/m.jsonl", stereotype_record()),
    "stability": ("stability/m.jsonl", stability_record()),
    "rag": ("rag/candidate.jsonl", rag_record()),
    "heuristic": ("heuristic/m.jsonl", heuristic_record()),
    "drift": ("outputs/m.jsonl", drift_candidate()),
    "trajectory": ("trajectory/m.jsonl", trajectory_record()),
}



def line_of(text: str, needle: str) -> int:
    """1-based line of the first occurrence of `needle` in `text` (for expected locations)."""
    return text[: text.index(needle)].count("\n") + 1
