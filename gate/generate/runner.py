"""One suite's calls through a provider and its cassette: replay what is recorded, call (bounded, budgeted) what
the mode allows, record what came back, and say what happened to each call.

- `replay`: every call must be in the cassette. A miss stops the run before any call (InputError, exit 2) listing
  the first missing prompts, their count and the exact command that records them; the provider is never called
  (it may be None: a fork's run has no key and needs none).
- `record-missing`: hits are replayed; misses are called and recorded. `refresh`: every call is made again and
  entries no longer asked for are dropped (a failed call keeps its old entry, so the cassette still replays).
- A failed call (after the provider's retries) or one the budget refused is not recorded: its item is unmeasured,
  and the next `record-missing` run resumes from the cassette. The cassette is written once at the end, also when
  the run is interrupted, so what was recorded is kept.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from gate.errors import InputError, Problem, describe
from gate.generate.budget import NO_BUDGET, Budget, GenerationSummary, Price, Spend, percentile
from gate.generate.cassettes import ENTRY_BYTES, Cassette, CassetteFingerprint, Mode, call_key
from gate.generate.plan import worst_cost
from gate.generate.providers.types import Failure, Provider, Request, Response

SHOWN_MISSES = 5
REPLAYED, RECORDED, FAILED, NOT_SENT = "replayed", "recorded", "failed", "not sent"


@dataclass(frozen=True)
class Outcome:
    request: Request
    key: str
    source: str  # replayed | recorded | failed | not sent
    response: Response | None = None  # None: the item is unmeasured, `reason` says why
    reason: str | None = None


@dataclass(frozen=True)
class GenerationRun:
    outcomes: tuple[Outcome, ...]  # one per request given, in its order
    summary: GenerationSummary
    fingerprint: CassetteFingerprint


def generate(requests: Sequence[Request], cassette: Cassette, mode: Mode, *, provider: Provider | None,
             record_command: str, budget: Budget = NO_BUDGET, price: Price | None = None,
             clock: Callable[[], float] = time.perf_counter) -> GenerationRun:
    started = clock()
    keys = [call_key(cassette.provider, r) for r in requests]
    unique = dict(zip(keys, requests, strict=True))
    recorded = cassette.keys() if mode is not Mode.REFRESH else frozenset()
    missing = [k for k in unique if k not in recorded]
    if mode is Mode.REPLAY and missing:
        raise _misses(cassette, [unique[k] for k in missing], record_command)
    if missing and provider is None:
        raise ValueError(f"mode {mode.value} needs a provider")
    if provider is not None and provider.name != cassette.provider:
        raise ValueError(f"provider {provider.name!r} does not match the cassette's {cassette.provider!r}")
    if budget.max_usd is not None and price is None and missing:
        raise InputError("a dollar budget needs a price", [Problem(
            field="generate.budget.max_usd", expected=f"a price for model {cassette.model}",
            found="none", fix="add the model's prices (USD per million prompt and completion tokens), or set a "
            "call budget (max_calls) instead")])
    done: dict[str, Outcome] = {k: Outcome(unique[k], k, REPLAYED, cassette.get(unique[k]))
                                for k in unique if k in recorded}
    spend = Spend(budget)
    lock = threading.Lock()
    changed = False

    def one(key: str) -> Outcome:
        nonlocal changed
        request = unique[key]
        worst = worst_cost(request, price)
        if not spend.reserve(worst):
            return Outcome(request, key, NOT_SENT, reason=f"not sent: the budget ({budget.describe()}) was reached")
        result = provider.call(request) if provider is not None else Failure("no provider")
        cost = None
        if isinstance(result, Response):
            cost = result.cost_usd if result.cost_usd is not None else (price.of(result.usage) if price else None)
            result = replace(result, cost_usd=cost, latency_s=round(result.latency_s, 4))
            size = len(cassette.entry_line(request, result).encode("utf-8"))
            if size > ENTRY_BYTES:
                result = Failure(f"the response is {size} bytes as a cassette entry, over the {ENTRY_BYTES} limit")
        spend.settle(worst, cost if isinstance(result, Response) else 0.0)
        if isinstance(result, Failure):
            return Outcome(request, key, FAILED, reason=result.reason)
        with lock:
            cassette.put(request, result)
            changed = True
        return Outcome(request, key, RECORDED, result)

    try:
        if missing and provider is not None:
            workers = max(1, min(provider.concurrency, len(missing)))
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm-generate")
            try:
                for outcome in pool.map(one, missing):
                    done[outcome.key] = outcome
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)  # an interrupt: in-flight calls end, queued ones go
                raise
            pool.shutdown()
    finally:
        if mode is Mode.REFRESH:
            cassette.keep_only(unique)
            changed = changed or len(cassette) != len(recorded)
        if changed or mode is Mode.REFRESH:
            cassette.save()
    outcomes = tuple(done[k] for k in keys)
    return GenerationRun(outcomes, _summary(done, spend, clock() - started, cassette), cassette.fingerprint())


def _summary(done: dict[str, Outcome], spend: Spend, wall: float, cassette: Cassette) -> GenerationSummary:
    counts = {s: sum(1 for o in done.values() if o.source == s) for s in (REPLAYED, RECORDED, FAILED, NOT_SENT)}
    live = [o.response for o in done.values() if o.source == RECORDED and o.response is not None]
    latencies = sorted(r.latency_s for r in live)
    costs = [r.cost_usd for r in live]
    notes = []
    if counts[NOT_SENT]:
        notes.append(f"the budget ({spend.budget.describe()}) was reached: {counts[NOT_SENT]} calls were not sent; "
                     "their items are unmeasured")
    if counts[FAILED]:
        notes.append(f"{counts[FAILED]} calls failed after their retries; their items are unmeasured")
    return GenerationSummary(
        calls=len(done), replayed=counts[REPLAYED], recorded=counts[RECORDED], failed=counts[FAILED],
        not_sent=counts[NOT_SENT], prompt_tokens=sum(r.usage.prompt_tokens or 0 for r in live),
        completion_tokens=sum(r.usage.completion_tokens or 0 for r in live),
        cost_usd=None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6),
        latency_p50_s=percentile(latencies, 50), latency_p95_s=percentile(latencies, 95), wall_s=wall,
        model_versions=cassette.model_versions(), stopped_by_budget=counts[NOT_SENT] > 0, notes=tuple(notes))


def _misses(cassette: Cassette, missing: list[Request], command: str) -> InputError:
    problems = [Problem(file=str(cassette.path), record=f"sample {r.sample}", expected="a recorded response",
                        found=f"none for {describe(r.text, 80)}", fix=f"record it: {command}")
                for r in missing[:SHOWN_MISSES]]
    if len(missing) > SHOWN_MISSES:
        problems.append(Problem(file=str(cassette.path), expected="a recorded response",
                                found=f"{len(missing) - SHOWN_MISSES} more calls without one",
                                fix=f"record them: {command}"))
    return InputError(f"replay: {len(missing)} calls are not in the cassette {cassette.path} and replay makes no "
                      f"live call; record them with: {command}", problems)
