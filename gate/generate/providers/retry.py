"""When to try a call again and how long to wait: bounded exponential backoff with full jitter, honouring a
server's `Retry-After` (capped). Pure: the clock, the sleep and the random source are handed in, so tests run
the whole policy without waiting.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4  # attempts = 1 + max_retries
    base_delay: float = 1.0  # seconds before the first retry (at most: jitter draws in [0, delay])
    max_delay: float = 30.0  # the cap on one wait, a server's Retry-After included

    def delay(self, attempt: int, retry_after: float | None, rng: Callable[[], float] = random.random) -> float:
        """The wait before attempt `attempt + 1` (attempt counts from 1). A server's Retry-After is obeyed (capped);
        otherwise full jitter: uniform in [0, min(max_delay, base · 2^(attempt−1))], so a burst of 429s from many
        threads does not come back in lockstep."""
        if retry_after is not None:
            return min(self.max_delay, max(0.0, retry_after))
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return ceiling * rng()


def retry_after_seconds(value: str | None, now: Callable[[], float] = time.time) -> float | None:
    """Retry-After in seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value or not value.strip():
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - now())
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    return max(0.0, seconds) if seconds == seconds and seconds != float("inf") else None
