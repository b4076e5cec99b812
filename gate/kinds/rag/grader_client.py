"""The LLM grader's client: any OpenAI-compatible chat-completions endpoint (seed rag-evaluation's LLM-as-judge).

Each item (`gate.kinds.rag.grader`: prompt template, reply parsing) is one request; anything the
endpoint does leaves the item unmeasured with a reason and never raises: an unparseable reply, a
request that still fails after its retries, the budget spent. The only network I/O under gate/scorers:
the command hands `run_grader` to the scorer through `ScoringContext.judge`; no scorer imports it.

- Requests: at most `max_concurrency` in flight. 429, 5xx, timeouts and connection errors are retried
  `max_retries` times with exponential backoff (1 s, 2 s, 4 s …, capped at 30 s) that honours
  `Retry-After` (capped likewise); other 4xx fail at once. The API key travels only in the
  Authorization header, only to `base_url` (which `gate.config.grader_access` checked against the workflow's
  allow-list): a redirect is never followed (a 3xx fails the item), and the key is scrubbed from every
  reason, whatever a server echoes back.
- A dead endpoint: after GIVE_UP_AFTER items in a row failed their retries, the rest are not sent (unmeasured,
  "not sent"), so a grader that went down mid-run costs minutes, not items × retries × timeout.
- Budget: checked before each request (retries included) against the tokens that replies have
  reported so far (`usage.total_tokens`). Requests already in flight when it is reached still finish,
  so spending can overshoot by at most `max_concurrency - 1` requests beyond the one that reaches it.
- Cache (`cache_dir` given and `config.cache`): `<cache_dir>/<sha256 of base_url, model, prompt>.json`
  holds the raw reply and its tokens, written atomically by `gate.io` (without fsync: an entry lost in a
  crash costs one request); hits cost nothing, even after the budget is spent. A file that cannot be read
  or holds no valid entry is ignored and rewritten. Unparseable replies are cached too: at temperature 0,
  asking again would mostly buy the same answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from email.utils import parsedate_to_datetime
from pathlib import Path

import requests

from gate.config import GraderConfig
from gate.io import read_json_quiet, write_bytes_atomic
from gate.kinds.rag.grader import (
    BUDGET_EXHAUSTED,
    DEFAULT_TEMPLATE,
    GraderItem,
    GraderRun,
    GraderScore,
    parse_score,
    render_prompt,
)

MAX_DELAY = 30.0  # seconds, for the backoff and for a server's Retry-After alike
QUOTE_LIMIT = 80  # characters of a reply quoted in a reason
ERROR_LIMIT = 200  # characters of an API error message kept in a reason
GIVE_UP_AFTER = 3  # items in a row that failed after their retries: the endpoint is down


def run_grader(config: GraderConfig, api_key: str, items: Sequence[GraderItem], *, cache_dir: Path | None,
               sleep: Callable[[float], None] = time.sleep) -> GraderRun:
    """Scores every item; never raises for what the endpoint does (see the module's docstring)."""
    run = _Run(config, api_key, cache_dir if config.cache else None, sleep)
    scores: tuple[GraderScore, ...] = ()
    if items:
        pool = ThreadPoolExecutor(max_workers=min(config.max_concurrency, len(items)), thread_name_prefix="llm-grader")
        try:
            scores = tuple(pool.map(run.grade, items))
        except BaseException:
            # SIGINT/SIGTERM: `with` would wait for every queued request; drop them, let in-flight ones end
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    return GraderRun(scores=scores, requests=run.requests, cache_hits=run.cache_hits, tokens=run.tokens,
                     cost_usd=run.tokens * config.price_per_1k_tokens / 1000, stopped_by_budget=run.stopped)


class _Run:
    """One run's shared state; every counter is read and written under `_lock`."""

    def __init__(self, config: GraderConfig, api_key: str, cache_dir: Path | None, sleep: Callable[[float], None]):
        self._config, self._api_key, self._cache, self._sleep = config, api_key, cache_dir, sleep
        self._base_url = config.base_url.rstrip("/")
        self._template = config.prompt_template or DEFAULT_TEMPLATE
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self.requests = self.cache_hits = self.tokens = 0
        self.stopped = False
        self._failures = 0  # items in a row that failed after their retries
        self._down: str | None = None  # why nothing more is sent

    def grade(self, item: GraderItem) -> GraderScore:
        prompt = render_prompt(self._template, item)
        if self._cache is None:
            return self._ask(item, prompt, None)
        key = hashlib.sha256(json.dumps([self._base_url, self._config.model, prompt]).encode()).hexdigest()
        path = self._cache / f"{key}.json"
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:  # an identical prompt twice in one run: one request, then a cache hit
            entry = _read_entry(path, key)
            if entry is not None:
                with self._lock:
                    self.cache_hits += 1
                return self._score(item, entry[0], cached=True, tokens=0)
            return self._ask(item, prompt, path)

    def _ask(self, item: GraderItem, prompt: str, path: Path | None) -> GraderScore:
        reply, tokens, failure = self._send(prompt)
        with self._lock:
            if reply is not None:
                self._failures = 0
            elif failure != BUDGET_EXHAUSTED and self._down is None:
                self._failures += 1
                if self._failures >= GIVE_UP_AFTER:
                    self._down = f"the endpoint failed {self._failures} items in a row (last: {failure})"
        if reply is None:
            return GraderScore(item.key, item.criterion, None, self._scrub(failure or "no reply"), False, tokens,
                              failed=True)
        if path is not None:
            _write_atomically(path, json.dumps({"key": path.stem, "reply": reply, "tokens": tokens}))
        return self._score(item, reply, cached=False, tokens=tokens)

    def _score(self, item: GraderItem, reply: str, *, cached: bool, tokens: int) -> GraderScore:
        score = parse_score(reply)
        reason = None if score is not None else self._scrub(f"unparseable answer: {_quote(reply, QUOTE_LIMIT)!r}")
        return GraderScore(item.key, item.criterion, score, reason, cached, tokens, reply=self._scrub(reply))

    def _may_spend(self) -> bool:
        config = self._config
        with self._lock:
            spent = ((config.budget_tokens is not None and self.tokens >= config.budget_tokens)
                     or (config.budget_usd is not None
                         and self.tokens * config.price_per_1k_tokens / 1000 >= config.budget_usd))
            self.stopped = self.stopped or spent
            return not spent

    def _send(self, prompt: str) -> tuple[str | None, int, str | None]:
        """(reply, tokens, None) or (None, tokens, why it failed)."""
        body = {"model": self._config.model, "messages": [{"role": "user", "content": prompt}], "temperature": 0}
        headers = {"Authorization": f"Bearer {self._api_key}"}
        attempt = 0
        while True:
            if self._down is not None:
                return None, 0, f"not sent: {self._down}"
            if not self._may_spend():
                return None, 0, BUDGET_EXHAUSTED
            attempt += 1
            retry_after = None
            with self._lock:
                self.requests += 1
            try:
                response = requests.post(f"{self._base_url}/chat/completions", json=body, headers=headers,
                                         timeout=self._config.timeout, allow_redirects=False)
            except requests.Timeout:
                failure = f"timed out after {self._config.timeout:g} s"
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
                failure = f"connection error: {_quote(str(exc), ERROR_LIMIT)}"
            except requests.RequestException as exc:  # a malformed URL and the like: retrying cannot help
                return None, 0, f"request failed: {type(exc).__name__}: {_quote(str(exc), ERROR_LIMIT)}"
            else:
                if response.status_code == 200:
                    return self._reply(response)
                if 300 <= response.status_code < 400:  # the key must not follow it
                    where = _quote(response.headers.get("Location", "nowhere"), ERROR_LIMIT)
                    return None, 0, f"request failed: {response.status_code} redirect to {where!r} not followed"
                failure = f"{response.status_code} {_error_message(response)}".strip()
                if response.status_code != 429 and response.status_code < 500:
                    return None, 0, f"request failed: {failure}"
                retry_after = _retry_after(response.headers.get("Retry-After"))
            if attempt > self._config.max_retries:
                tries = f" (after {attempt} attempts)" if attempt > 1 else ""
                return None, 0, f"request failed: {failure}{tries}"
            self._sleep(min(MAX_DELAY, retry_after if retry_after is not None else 2.0 ** (attempt - 1)))

    def _reply(self, response: requests.Response) -> tuple[str | None, int, str | None]:
        try:
            data = response.json()
        except ValueError:
            return None, 0, f"request failed: 200 with a body that is not JSON: {_quote(response.text, ERROR_LIMIT)!r}"
        usage = data.get("usage") if isinstance(data, dict) else None
        reported = usage.get("total_tokens") if isinstance(usage, dict) else None
        tokens = max(0, int(reported)) if isinstance(reported, (int, float)) and not isinstance(reported, bool) else 0
        with self._lock:
            self.tokens += tokens
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            return None, tokens, (f"request failed: 200 without choices[0].message.content: "
                                  f"{_quote(response.text, ERROR_LIMIT)!r}")
        return content, tokens, None

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text


def _quote(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _error_message(response: requests.Response) -> str:
    """The API's own message: OpenAI's {"error": {"message": ...}}, a bare {"error"|"message"|"detail"}, or text."""
    try:
        data = response.json()
    except ValueError:
        return _quote(response.text.strip(), ERROR_LIMIT)
    message = data.get("error") if isinstance(data, dict) else None
    if isinstance(message, dict):
        message = message.get("message")
    if message is None and isinstance(data, dict):
        message = data.get("message") or data.get("detail")
    return _quote(str(message if message is not None else data), ERROR_LIMIT)


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        pass
    if value is None:  # an empty header was handled above; None never reaches here but the checker cannot tell
        return None
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _read_entry(path: Path, key: str) -> tuple[str, int] | None:
    """A cached (reply, tokens), or None for a missing, unreadable, corrupt or foreign file."""
    entry = read_json_quiet(path)
    if (isinstance(entry, dict) and entry.get("key") == key and isinstance(entry.get("reply"), str)
            and type(entry.get("tokens")) is int and entry["tokens"] >= 0):
        return entry["reply"], entry["tokens"]
    return None


def _write_atomically(path: Path, text: str) -> None:
    """Readers see the old entry or the new one, never half of one. An unwritable cache costs a request next
    time, never the run."""
    with contextlib.suppress(OSError):
        write_bytes_atomic(path, text.encode("utf-8"), fsync=False)
