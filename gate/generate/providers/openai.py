"""An OpenAI-compatible chat-completions client: hosted APIs and local servers (vLLM, TGI, Ollama, llama.cpp's
server, LiteLLM) alike.

- Where it sends: only the endpoint `gate.generate.providers.access.authorise` allowed (the workflow's allow-list),
  to `<endpoint>/chat/completions`, with the key in the Authorization header only; a redirect is never followed
  (a 3xx fails the call) and the key is scrubbed from every reason, whatever a server echoes back.
- Failures: 429, 5xx, 408, timeouts, connection errors and truncated bodies are retried with bounded exponential
  backoff and jitter, honouring Retry-After (`retry.RetryPolicy`); other 4xx fail at once. A body that is not JSON,
  is larger than `max_response_bytes` or lacks `choices[0].message.content` is a located `Failure` of that call.
  `call` never raises for what the server does: a call that fails after its retries leaves its item unmeasured.
- Concurrency: the runner keeps at most `concurrency` calls in flight; one pooled session holds that many
  connections (keep-alive), so 2,000 calls do not open 2,000 connections.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from gate.generate.providers.access import Credentials
from gate.generate.providers.retry import RETRYABLE_STATUS, RetryPolicy, retry_after_seconds
from gate.generate.providers.types import Failure, Request, Response, Result, Usage

QUOTE = 200  # characters of a body quoted in a reason
MiB = 1 << 20


@dataclass(frozen=True)
class OpenAISettings:
    name: str = "openai"  # the provider's name in cassette keys
    timeout: float = 60.0  # seconds: connecting, and between bytes of the reply
    concurrency: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_response_bytes: int = 8 * MiB


class OpenAIProvider:
    def __init__(self, credentials: Credentials, settings: OpenAISettings = OpenAISettings(), *,
                 sleep: Callable[[float], None] = time.sleep, rng: Callable[[], float] = random.random,
                 clock: Callable[[], float] = time.perf_counter):
        self._url = credentials.endpoint.url + "/chat/completions"
        self._key = credentials.api_key
        self._settings, self._sleep, self._rng, self._clock = settings, sleep, rng, clock
        self._session = requests.Session()
        adapter = HTTPAdapter(pool_connections=1, pool_maxsize=max(1, settings.concurrency), max_retries=0)
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)

    @property
    def name(self) -> str:
        return self._settings.name

    @property
    def concurrency(self) -> int:
        return self._settings.concurrency

    def close(self) -> None:
        self._session.close()

    def call(self, request: Request) -> Result:
        body = _body(request)
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        policy = self._settings.retry
        attempt = 0
        while True:
            attempt += 1
            started = self._clock()
            outcome, retry_after = self._attempt(body, headers)
            if isinstance(outcome, Response):
                latency = self._clock() - started
                return Response(outcome.text, outcome.token_logprobs, outcome.usage, latency, outcome.model_version,
                                outcome.finish_reason, None, outcome.extra)
            reason, retryable = outcome
            if not retryable or attempt > policy.max_retries:
                tries = f" (after {attempt} attempts)" if attempt > 1 else ""
                return Failure(self._scrub(reason + tries), attempt)
            self._sleep(policy.delay(attempt, retry_after, self._rng))

    def _attempt(self, body: dict[str, Any], headers: dict[str, str]
                 ) -> tuple[Response | tuple[str, bool], float | None]:
        """(response, None) or ((reason, retryable), Retry-After seconds)."""
        limit = self._settings.max_response_bytes
        try:
            with self._session.post(self._url, json=body, headers=headers, timeout=self._settings.timeout,
                                    allow_redirects=False, stream=True) as reply:
                status = reply.status_code
                if 300 <= status < 400:
                    where = reply.headers.get("Location", "nowhere")[:QUOTE]
                    return (f"{status} redirect to {where!r} not followed", False), None
                raw = bytearray()
                for chunk in reply.iter_content(64 * 1024):
                    raw += chunk
                    if len(raw) > limit:
                        return (f"{status} with a body over {limit} bytes (not read further)", False), None
                retry_after = retry_after_seconds(reply.headers.get("Retry-After"))
        except requests.Timeout:
            return (f"timed out after {self._settings.timeout:g} s", True), None
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
            return (f"connection error or truncated reply: {_quote(str(exc))}", True), None
        except requests.RequestException as exc:
            return (f"request failed: {type(exc).__name__}: {_quote(str(exc))}", False), None
        text = bytes(raw).decode("utf-8", "replace")
        if status != 200:
            return (f"{status} {_quote(text.strip())}".strip(), status in RETRYABLE_STATUS), retry_after
        return parse_reply(text), None

    def _scrub(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text


def _body(request: Request) -> dict[str, Any]:
    messages = ([{"role": "user", "content": request.prompt}] if request.prompt is not None
                else [{"role": m.role, "content": m.content} for m in request.messages])
    body: dict[str, Any] = {"model": request.model, "messages": messages}
    p = request.parameters
    body.update(temperature=p.temperature, max_tokens=p.max_tokens)
    if p.top_p is not None:
        body["top_p"] = p.top_p
    if p.seed is not None:
        body["seed"] = p.seed
    if p.stop:
        body["stop"] = list(p.stop)
    if p.logprobs:
        body["logprobs"] = True
        if p.top_logprobs is not None:
            body["top_logprobs"] = p.top_logprobs
    if p.response_format is not None:
        body["response_format"] = {"type": p.response_format}
    return body


def parse_reply(text: str) -> Response | tuple[str, bool]:
    """A 200's body as a Response, or (a located reason, False): what is missing or malformed, and where."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        return f"200 with a body that is not JSON ({exc}): {_quote(text)!r}", False
    if not isinstance(data, dict):
        return f"200 with a JSON {type(data).__name__}, not an object: {_quote(text)!r}", False
    choices = data.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    message = choice.get("message") if choice else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return f"200 without a text at choices[0].message.content: {_quote(text)!r}", False
    assert choice is not None
    logprobs = _logprobs(choice.get("logprobs"))
    if isinstance(logprobs, str):
        return logprobs, False
    usage: dict[str, Any] = data["usage"] if isinstance(data.get("usage"), dict) else {}
    finish = choice.get("finish_reason")
    model = data.get("model")
    fingerprint = data.get("system_fingerprint")
    extra = {"system_fingerprint": fingerprint} if isinstance(fingerprint, str) else {}
    tokens = Usage(_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))
    version = model if isinstance(model, str) else None
    return Response(content, logprobs, tokens, 0.0, version, finish if isinstance(finish, str) else None, None, extra)


def _logprobs(value: Any) -> tuple[tuple[str, float], ...] | None | str:
    """choices[0].logprobs.content as (token, logprob) pairs; None when absent; a reason when malformed."""
    if value is None:
        return None
    content = value.get("content") if isinstance(value, dict) else None
    if content is None:
        return None
    if not isinstance(content, list):
        return "200 with choices[0].logprobs.content that is not a list"
    pairs = []
    for i, entry in enumerate(content):
        token = entry.get("token") if isinstance(entry, dict) else None
        logprob = entry.get("logprob") if isinstance(entry, dict) else None
        if (not isinstance(token, str) or isinstance(logprob, bool) or not isinstance(logprob, (int, float))
                or not math.isfinite(logprob) or logprob > 1e-6):
            return (f"200 with choices[0].logprobs.content[{i}] not a token and a finite logprob ≤ 0: "
                    f"{_quote(str(entry))}")
        pairs.append((token, min(0.0, float(logprob))))
    return tuple(pairs)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _quote(text: str, limit: int = QUOTE) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
