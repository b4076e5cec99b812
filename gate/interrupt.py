"""SIGINT / SIGTERM: an aborted run ends with a clear line and a non-zero exit code, never a verdict.

A CI runner cancels a job with SIGINT and then SIGTERM; a developer presses Ctrl-C. Python's default for
SIGTERM is to die on the spot, and KeyboardInterrupt can be swallowed by any `except BaseException`. Here
both signals raise `Interrupted` (a KeyboardInterrupt, so broad `except Exception` handlers let it through)
in the main thread, and `gate.cli` turns it into exit 128 + the signal number (130, 143), as shells do.

Writing the report set is a critical section (`deferred`): a signal that arrives meanwhile is held until
the last file is in place, so a report directory is never a mix of this run and an earlier one. Each file
is written atomically anyway (`gate.io.write`); this keeps the set consistent, too.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal; `exit_code` is 128 + the signal number."""

    def __init__(self, signum: int):
        self.signum = signum
        self.name = signal.Signals(signum).name
        super().__init__(self.name)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class _State:
    """This process's signal state (a signal handler has nowhere else to put it)."""

    depth = 0  # nesting of `deferred` blocks
    pending: int | None = None  # a signal held by `deferred`
    raised: int | None = None  # typer turns any KeyboardInterrupt into a bare exit 130: the CLI asks here
    done: str | None = None  # what the run had completed when it was interrupted

    @classmethod
    def reset(cls) -> None:
        cls.depth, cls.pending, cls.raised, cls.done = 0, None, None, None


def _handler(signum: int, _frame: object) -> None:
    if _State.depth:
        _State.pending = signum  # raised when the critical section ends
        return
    _raise(signum)


def _raise(signum: int) -> None:
    _State.raised = signum
    raise Interrupted(signum)


def raised() -> Interrupted | None:
    """The interruption this process has raised, if any."""
    return Interrupted(_State.raised) if _State.raised is not None else None


@contextmanager
def handling() -> Iterator[bool]:
    """Route SIGINT and SIGTERM to `Interrupted` for the block, then restore the previous handlers.

    Only the main thread may set handlers: elsewhere (a test's worker thread) the block runs unchanged and
    yields False."""
    _State.reset()
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    previous = {signum: signal.signal(signum, _handler) for signum in SIGNALS}
    try:
        yield True
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def deferred(done: str | None = None) -> Iterator[None]:
    """Hold SIGINT/SIGTERM until the block ends (nested blocks: until the outermost ends), then raise.

    `done` says what the block completes ("the report was written to out"), for a later interruption's message."""
    _State.depth += 1
    try:
        yield
    finally:
        _State.depth -= 1
    if done:
        _State.done = done
    if not _State.depth and _State.pending is not None:
        signum, _State.pending = _State.pending, None
        _raise(signum)


def message(exc: Interrupted) -> str:
    """The one line an interrupted run prints."""
    if _State.done:
        return f"llm-gate: interrupted by {exc.name} after {_State.done}; the rest was skipped (exit {exc.exit_code})"
    return (f"llm-gate: interrupted by {exc.name} before the run finished: no verdict, this run wrote no report "
            f"and published nothing (exit {exc.exit_code})")
