"""A local model as a provider: `gate.runtime.engines.causal.CausalLM` (a Hugging Face causal LM, CPU or CUDA)
behind a small structural interface, so gate/generate never imports torch (only gate/runtime does).

Samples differ by seed: sample k of a request is decoded with seed `parameters.seed · 1,000,003 + k` (seed 0 when
unset), so k samples at a temperature above 0 are k different draws, and the same ones on every machine.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

from gate.generate.providers.types import Failure, Request, Response, Result, Usage


class LocalGeneration(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def tokens(self) -> tuple[tuple[str, float], ...]: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def finish_reason(self) -> str: ...
    @property
    def model_version(self) -> str: ...


class LocalEngine(Protocol):
    def generate(self, prompt: str | None, messages: Sequence[tuple[str, str]], *, max_new_tokens: int,
                 temperature: float = 0.0, top_p: float | None = None, seed: int | None = None,
                 stop: Sequence[str] = ()) -> LocalGeneration: ...


class LocalProvider:
    def __init__(self, engine: LocalEngine, name: str = "local"):
        self._engine, self._name = engine, name

    @property
    def name(self) -> str:
        return self._name

    @property
    def concurrency(self) -> int:
        return 1  # one model, one decode at a time

    def close(self) -> None:
        pass

    def call(self, request: Request) -> Result:
        p = request.parameters
        started = time.perf_counter()
        try:
            out = self._engine.generate(request.prompt, [(m.role, m.content) for m in request.messages],
                                        max_new_tokens=p.max_tokens, temperature=p.temperature, top_p=p.top_p,
                                        seed=(p.seed or 0) * 1_000_003 + request.sample, stop=p.stop)
        except (RuntimeError, ValueError) as exc:  # out of memory, a prompt the tokenizer refuses
            return Failure(f"the local model failed: {type(exc).__name__}: {str(exc)[:200]}")
        return Response(out.text, tuple(out.tokens) if p.logprobs else None,
                        Usage(out.prompt_tokens, out.completion_tokens), time.perf_counter() - started,
                        out.model_version, out.finish_reason, 0.0)
