"""How a kind produces its own records (gate.yml's `generate:`): its recipe, one part of the `Kind` contract.

The generation step (`gate.steps.generation`) asks a kind's `Generation` for the calls a suite needs (`calls`: the
suite's dataset, prompt template, models and samples turned into provider `Request`s, each with the record fields
known before the call), runs them through the suite's cassette and provider, and hands back each call with its
response (None: it failed after its retries, or the budget refused it). `records` turns those into records in the
kind's own input shape — exactly what its `load` reads, so its scorer does not change — and the step writes them as
JSON Lines to the suite's generated file (`GenerateConfig.output`, which its `records:`/`candidates:` glob matches).

A call without a response leaves its item unmeasured, never passed: the recipe writes no answer for it (the kind
counts a missing answer as missing), and a later `--cassettes record-missing` run resumes from the cassette.
Everything in a response is model output: stored as data, never trusted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from gate.config import SuiteBase
from gate.config.generation import GenerateConfig
from gate.generate.providers.types import Request, Response

ConfigT = TypeVar("ConfigT", bound=SuiteBase)


def _nothing() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Call:
    """One provider call a suite needs, and what its record will say about it before any answer (ids, the model
    asked, the dataset row it came from); `part` tells a kind's calls for one record apart (e.g. a control prompt
    and a bias-injected one of the same probe)."""

    request: Request
    fields: Mapping[str, Any] = field(default_factory=_nothing)
    part: str = ""


Answered = tuple[Call, Response | None]  # None: failed after its retries, or not sent (the budget)


@dataclass(frozen=True)
class Generation(Generic[ConfigT]):
    # (suite name, suite config, its `generate:`, the directory of gate.yml) -> the calls, in a stable order;
    # raises InputError (located: the dataset's file and line) for a dataset it cannot use
    calls: Callable[[str, ConfigT, GenerateConfig, Path], Sequence[Call]]
    # (suite config, its `generate:`, every call with its response) -> the records, JSON objects in the kind's
    # input shape, in a stable order
    records: Callable[[ConfigT, GenerateConfig, Sequence[Answered]], list[dict[str, Any]]]
    # The gate.yml field of the kind's config whose glob the generated file must match ("records", "candidates")
    reads: str = "records"
    # Whether its calls ask for token log-probabilities (e.g. for an answer probability computed from them)
    logprobs: bool = False

