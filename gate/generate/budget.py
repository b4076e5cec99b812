"""Prices, the hard budget, and the totals a generation run reports (spend, tokens, latency).

- `Price`: dollars per million prompt and completion tokens of one model, given in the configuration (data, not
  code: prices change). A call's cost is its reported usage times the price, unless the provider priced it.
- `Budget`: a hard cap on live calls and on dollars. `Spend.reserve` admits a call only if what was spent, plus
  the worst case of every call in flight, plus this call's worst case (its prompt estimate and all of
  `max_tokens`), stays within the cap; so the cap holds even with many calls in flight. A call refused is not
  sent (its item unmeasured, with a note); the run stops cleanly, never mid-write.
- `GenerationSummary`: frozen totals for report.json and the comment.
"""

from __future__ import annotations

import statistics
import threading
from dataclasses import dataclass

from gate.generate.providers.types import Usage


@dataclass(frozen=True)
class Price:
    prompt_per_million: float  # USD per 1e6 prompt tokens
    completion_per_million: float  # USD per 1e6 completion tokens

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt_per_million + completion_tokens * self.completion_per_million) / 1e6

    def of(self, usage: Usage) -> float | None:
        if usage.prompt_tokens is None or usage.completion_tokens is None:
            return None
        return self.cost(usage.prompt_tokens, usage.completion_tokens)


@dataclass(frozen=True)
class Budget:
    max_calls: int | None = None  # live calls (a call's retries are part of it)
    max_usd: float | None = None

    def describe(self) -> str:
        parts = ([f"{self.max_calls} calls"] if self.max_calls is not None else []) + (
            [f"${self.max_usd:g}"] if self.max_usd is not None else [])
        return " and ".join(parts) or "no limit"


NO_BUDGET = Budget()


class Spend:
    """The running spend against a budget; thread-safe."""

    def __init__(self, budget: Budget):
        self.budget = budget
        self._lock = threading.Lock()
        self.calls = 0
        self.usd = 0.0
        self._reserved = 0.0
        self.refused = 0

    def reserve(self, worst_usd: float) -> bool:
        """May one more call go out whose cost is at most `worst_usd`? If so it is counted as in flight."""
        with self._lock:
            over_calls = self.budget.max_calls is not None and self.calls >= self.budget.max_calls
            over_usd = (self.budget.max_usd is not None
                        and self.usd + self._reserved + worst_usd > self.budget.max_usd + 1e-12)
            if over_calls or over_usd:
                self.refused += 1
                return False
            self.calls += 1
            self._reserved += worst_usd
            return True

    def settle(self, worst_usd: float, actual_usd: float | None) -> None:
        """The call ended: its reservation becomes what it cost (the worst case when its cost is unknown)."""
        with self._lock:
            self._reserved -= worst_usd
            self.usd += worst_usd if actual_usd is None else actual_usd


@dataclass(frozen=True)
class GenerationSummary:
    calls: int  # requests the suite needed (distinct keys)
    replayed: int
    recorded: int
    failed: int  # sent, and failed after their retries
    not_sent: int  # refused by the budget
    prompt_tokens: int  # of the calls made now (replayed calls cost nothing)
    completion_tokens: int
    cost_usd: float | None  # None: some live call was unpriced
    latency_p50_s: float | None  # of the calls made now
    latency_p95_s: float | None
    wall_s: float
    model_versions: tuple[str, ...]
    stopped_by_budget: bool
    notes: tuple[str, ...] = ()


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[max(0, min(98, round(q) - 1))]
