"""The one protocol every provider speaks: a `Request` in, a `Response` or a `Failure` out (never an exception for
what an endpoint or a program does).

A request names the model, what to ask (chat `messages` or a plain `prompt`), the sampling `Parameters` and the
sample index (k samples of one prompt are k requests that differ only there). A response carries the text, the
token log-probabilities of the generated tokens when they were asked for, usage, latency, the model version the
server reports, the finish reason and the cost when it is priced; `extra` holds the JSON fields a command provider
returned beyond those (a RAG application's retrieved ids and contexts). Everything in a response is model output:
untrusted data, stored as data and escaped only where it is rendered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

ROLES = ("system", "user", "assistant")
TokenLogprobs = tuple[tuple[str, float], ...]  # (token, natural-log probability) per generated token


@dataclass(frozen=True)
class Message:
    role: str  # system | user | assistant
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"a message's role must be one of {', '.join(ROLES)}, not {self.role!r}")


@dataclass(frozen=True)
class Parameters:
    temperature: float = 0.0
    max_tokens: int = 256
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    logprobs: bool = False
    top_logprobs: int | None = None
    response_format: str | None = None  # "json_object": one JSON object (OpenAI's JSON mode)

    def __post_init__(self) -> None:
        if self.max_tokens < 1 or self.temperature < 0 or (self.top_p is not None and not 0 < self.top_p <= 1):
            raise ValueError("max_tokens ≥ 1, temperature ≥ 0 and 0 < top_p ≤ 1")
        if self.top_logprobs is not None and not (self.logprobs and 0 <= self.top_logprobs <= 20):
            raise ValueError("top_logprobs (0–20) needs logprobs: true")

    def canonical(self) -> dict[str, object]:
        """The parameters as they enter a cassette key: unset ones left out, so adding a field keeps old keys."""
        values: dict[str, object] = {"max_tokens": self.max_tokens, "temperature": float(self.temperature)}
        if self.top_p is not None:
            values["top_p"] = float(self.top_p)
        if self.seed is not None:
            values["seed"] = self.seed
        if self.stop:
            values["stop"] = list(self.stop)
        if self.logprobs:
            values["logprobs"] = True
        if self.top_logprobs is not None:
            values["top_logprobs"] = self.top_logprobs
        if self.response_format is not None:
            values["response_format"] = self.response_format
        return values


@dataclass(frozen=True)
class Request:
    model: str
    messages: tuple[Message, ...] = ()
    prompt: str | None = None  # a completion-style prompt; exactly one of `messages` and `prompt`
    parameters: Parameters = Parameters()
    sample: int = 0  # which of the k samples of this prompt

    def __post_init__(self) -> None:
        if (self.prompt is None) == (not self.messages):
            raise ValueError("a request has either messages or a prompt, not both and not neither")
        if self.sample < 0:
            raise ValueError("the sample index is ≥ 0")

    @property
    def text(self) -> str:
        """What is asked, as one text: the prompt, or the messages' contents joined (estimates, error messages)."""
        return self.prompt if self.prompt is not None else "\n".join(m.content for m in self.messages)

    def input(self) -> dict[str, object]:
        if self.prompt is not None:
            return {"prompt": self.prompt}
        return {"messages": [{"role": m.role, "content": m.content} for m in self.messages]}


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def _no_extra() -> Mapping[str, object]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Response:
    text: str
    token_logprobs: TokenLogprobs | None = None  # None: not asked for, or the server returned none
    usage: Usage = Usage()
    latency_s: float = 0.0
    model_version: str | None = None  # what the server says answered (OpenAI's `model`), not what was asked
    finish_reason: str | None = None
    cost_usd: float | None = None  # None: unpriced
    extra: Mapping[str, object] = field(default_factory=_no_extra)  # JSON values, read-only


@dataclass(frozen=True)
class Failure:
    """A call that produced no usable response after its retries: its item is unmeasured, never passed."""

    reason: str  # located: what failed and where in the response, no secret
    attempts: int = 1


Result = Response | Failure


class Provider(Protocol):
    """What the generation runner calls. `call` never raises for what the endpoint or program does."""

    @property
    def name(self) -> str:
        """The provider's identity in cassette keys: its name in the configuration (e.g. "openai", "rag-app")."""
        ...

    @property
    def concurrency(self) -> int:
        """How many calls may be in flight at once."""
        ...

    def call(self, request: Request) -> Result: ...

    def close(self) -> None: ...
