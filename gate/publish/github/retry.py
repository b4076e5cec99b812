"""When a failed GitHub request is tried again, after how long, and when the gate stops trying (no I/O).

GitHub's guidance for its REST API: wait as long as `Retry-After` says; with `x-ratelimit-remaining: 0`
wait until `x-ratelimit-reset`; after a secondary rate limit without either header wait at least a
minute. 5xx, 429, timeouts and dropped connections are transient too. A run must not hang on a GitHub
that is down or asks for an hour, though: no single wait is longer than `max_delay` (a server that asks
for longer is not retried, and the message says how long it asked for), and a publisher spends at most
`max_total` seconds on failed attempts and waits over all its calls; once that is spent its later calls
fail at once. A connection that cannot be made at all (the name does not resolve, the connection is refused, the
network is unreachable: a job without network, a wrong GITHUB_API_URL) is tried `connect_attempts` times, and then
the publisher's later calls fail at once too: waiting does not bring a network back within a job.
`gate.publish.github.client` makes the requests; this module only decides.
"""

from __future__ import annotations

import errno
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

SECONDARY_LIMIT_WAIT = 60.0  # GitHub: "wait for at least one minute" when a secondary limit names no time


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5  # per call, the first included
    base_delay: float = 1.0  # exponential backoff: 1, 2, 4 … seconds
    max_delay: float = 60.0  # the longest single wait
    max_total: float = 120.0  # seconds one publisher spends on failed attempts and waits, all calls together
    connect_attempts: int = 2  # per publisher, when no connection can be made at all (then every later call fails)
    sleep: Callable[[float], None] = time.sleep  # tests record the waits instead of sleeping
    clock: Callable[[], float] = time.monotonic

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(self.max_delay, max(0.0, retry_after))
        return min(self.max_delay, self.base_delay * 2 ** (attempt - 1))


@dataclass(frozen=True)
class Failure:
    """One failed attempt, as the publisher reports it."""

    message: str  # already scrubbed of the token
    status: int | None = None  # the HTTP status; None for a network failure
    transient: bool = False
    retry_after: float | None = None  # seconds the server asked to wait
    unreachable: bool = False  # no connection was made at all (`unreachable_reason`)


def http_failure(status: int, message: str, headers: Mapping[str, str] | None, data: object,
                 now: Callable[[], float] = time.time) -> Failure:
    """Classify an HTTP error reply (`status`, its headers and parsed body `data`)."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    retry_after = _number(headers.get("retry-after"))
    exhausted = headers.get("x-ratelimit-remaining") == "0"
    if retry_after is None and exhausted and headers.get("x-ratelimit-reset"):
        reset = _number(headers["x-ratelimit-reset"])  # epoch seconds
        retry_after = None if reset is None else max(0.0, reset - now())
    if status >= 500 or status == 429:
        return Failure(message, status, True, retry_after)
    if status == 403:
        text = str(data.get("message", "") if isinstance(data, dict) else data).lower()
        limited = "rate limit" in text or exhausted
        if limited and retry_after is None:
            retry_after = SECONDARY_LIMIT_WAIT
        return Failure(message, status, limited, retry_after if limited else None)
    return Failure(message, status)


class RetryBudget:
    """The seconds a publisher has spent on failures; decides each retry. One per publisher (mutable)."""

    def __init__(self, policy: RetryPolicy):
        self.policy = policy
        self.spent = 0.0
        self.exhausted: str | None = None  # why later calls are not tried

    def wait(self, attempt: int, failure: Failure) -> tuple[float | None, str]:
        """(seconds to wait before the next attempt, or None to give up; the message when giving up)."""
        policy = self.policy
        if not failure.transient:
            return None, failure.message
        tries = f"after {attempt} attempt{'s' if attempt != 1 else ''}"
        if failure.retry_after is not None and failure.retry_after > policy.max_delay:
            return None, (f"{failure.message} ({tries}; GitHub asks to wait {failure.retry_after:.0f} s, longer than "
                          f"the {policy.max_delay:.0f} s the gate waits)")
        if failure.unreachable and attempt >= policy.connect_attempts:
            self.exhausted = f"GitHub could not be reached ({failure.message})"
            return None, f"{failure.message} ({tries}; GitHub cannot be reached, later calls are not tried)"
        if attempt >= policy.attempts:
            return None, f"{failure.message} ({tries})"
        delay = policy.delay(attempt, failure.retry_after)
        if self.spent + delay > policy.max_total:
            self.exhausted = (f"GitHub kept failing and the {policy.max_total:.0f} s the gate spends on retries are "
                              f"spent (last: {failure.message})")
            return None, f"{failure.message} ({tries}; the {policy.max_total:.0f} s retry budget is spent)"
        return delay, ""

    def charge(self, seconds: float) -> None:
        self.spent += max(0.0, seconds)


def unreachable_reason(exc: BaseException) -> str | None:
    """Why no connection could be made at all, or None when one was (or may have been) made: requests wraps
    urllib3's NewConnectionError, which wraps the socket's error; the chain is walked through `args`, `reason`,
    `__cause__` and `__context__`. A reset, a dropped connection or a timeout is not this (the server was there)."""
    pending, seen = [exc], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, socket.gaierror) or type(current).__name__ == "NameResolutionError":
            return "the name does not resolve"
        if isinstance(current, ConnectionRefusedError):
            return "connection refused"
        if isinstance(current, OSError) and current.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "network unreachable"
        linked = [*getattr(current, "args", ()), getattr(current, "reason", None), current.__cause__,
                  current.__context__]
        pending += [item for item in linked if isinstance(item, BaseException)]
    return None


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
