"""The plan of a generation run, before any call (`--dry-run`): how many calls, how many the cassette answers,
the tokens and dollars the rest may cost at most, and whether the budget admits them.

Token estimates need no tokenizer: a prompt is ~4 characters a token (plus a few per chat message, as OpenAI
counts them), and a completion at most `max_tokens`; so the dollar figure is an upper bound for completions and an
estimate for prompts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gate.generate.budget import NO_BUDGET, Budget, Price
from gate.generate.cassettes import Cassette, Mode, call_key
from gate.generate.providers.types import Request

CHARS_PER_TOKEN = 4.0
TOKENS_PER_MESSAGE = 4


def prompt_tokens(request: Request) -> int:
    messages = max(1, len(request.messages))
    return math.ceil(len(request.text) / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * messages


def worst_cost(request: Request, price: Price | None) -> float:
    return price.cost(prompt_tokens(request), request.parameters.max_tokens) if price is not None else 0.0


@dataclass(frozen=True)
class Plan:
    calls: int
    replayed: int
    live: int
    missing: int  # replay mode: calls the cassette lacks (the run would stop with the command that records them)
    prompt_tokens: int  # estimated, live calls only
    completion_tokens: int  # at most (max_tokens), live calls only
    cost_usd: float | None  # at most; None when the model has no price
    within_budget: bool
    budget: Budget

    def render(self, suite: str, provider: str, model: str) -> str:
        cost = f"≤ ${self.cost_usd:.4f}" if self.cost_usd is not None else "unknown (no price for this model)"
        lines = [f"{suite}: {self.calls} calls to {provider} / {model}: {self.replayed} from the cassette, "
                 f"{self.live} live" + (f", {self.missing} missing (replay: not called)" if self.missing else ""),
                 f"  tokens: ~{self.prompt_tokens} prompt, ≤ {self.completion_tokens} completion; cost {cost}",
                 f"  budget: {self.budget.describe()}" + ("" if self.within_budget else
                                                          " — not enough: the calls past it are not sent")]
        return "\n".join(lines)


def make_plan(requests: Sequence[Request], provider: str, cassette: Cassette, mode: Mode, *,
              price: Price | None = None, budget: Budget = NO_BUDGET) -> Plan:
    unique = {call_key(provider, r): r for r in requests}
    recorded = cassette.keys() if mode is not Mode.REFRESH else frozenset()
    absent = [r for k, r in unique.items() if k not in recorded]
    live = [] if mode is Mode.REPLAY else absent
    cost = sum(worst_cost(r, price) for r in live) if price is not None else None
    within = ((budget.max_calls is None or len(live) <= budget.max_calls)
              and (budget.max_usd is None or (cost is not None and cost <= budget.max_usd)))
    return Plan(calls=len(unique), replayed=len(unique) - len(absent), live=len(live),
                missing=len(absent) if mode is Mode.REPLAY else 0,
                prompt_tokens=sum(prompt_tokens(r) for r in live),
                completion_tokens=sum(r.parameters.max_tokens for r in live), cost_usd=cost, within_budget=within,
                budget=budget)
