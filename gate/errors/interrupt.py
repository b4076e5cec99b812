"""SIGINT / SIGTERM: an aborted run ends with a clear line and a non-zero exit code, never a verdict.

A CI runner cancels a job with SIGINT and then SIGTERM; a developer presses Ctrl-C. Python's default for
SIGTERM is to die on the spot, and KeyboardInterrupt can be swallowed by any `except BaseException`. Here
both signals raise `Interrupted` (a KeyboardInterrupt, so broad `except Exception` handlers let it through)
in the main thread, and `gate.cli` turns it into exit 128 + the signal number (130, 143), as shells do.
`gate.__main__` installs the handlers before anything slow is imported, so even a signal in the first second
gets the line and the exit code instead of Python's defaults (SIGTERM: killed without a word).

The handler only records the signal; it raises only at a safe point. An exception raised at an arbitrary
bytecode can land between a library's `lock.acquire()` and its `try:` (logging's module lock in
`getLogger`, which imports call at module level) or inside the import machinery while it holds module
locks, and the lock is never released: the next thread that needs it, or the interpreter's exit, hangs
forever. So when the interrupted frame or any frame below it is in the import machinery, in `logging`, or
in `threading` outside its blocking waits (whose waits sit inside try/finally: raising there is the
ordinary Ctrl-C path), the signal is held and a one-shot SIGALRM re-checks every `RECHECK_S`; the
pipeline's `checkpoint()` calls act on it too. A signal held longer than `HOLD_LIMIT_S` (a slow import),
or a second signal while one is held, ends the process at once with the same line and exit code
(`os._exit`: no lock is touched; nothing is being written, since writes are not done under an import).

Writing the report set is a critical section (`deferred`): a signal that arrives meanwhile is held until
the last file is in place, so a report directory is never a mix of this run and an earlier one. Each file
is written atomically anyway (`gate.io.write`); this keeps the set consistent, too.

This module is imported before the CLI: it must import nothing but the standard library's light modules.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)
RECHECK_S = 0.05
HOLD_LIMIT_S = 2.0  # then the process ends: BOUND_S in the tests leaves room for a stalled C call
# Module names whose frames hold locks a raise could leak: the import machinery (as loaded, and by file).
_IMPORT_MODULES = frozenset({"_frozen_importlib", "_frozen_importlib_external", "importlib._bootstrap",
                             "importlib._bootstrap_external"})
_BLOCKING_WAITS = frozenset({"wait", "wait_for", "join", "_wait_for_tstate_lock"})
# Frames where Python swallows an exception ("Exception ignored in: …"): a finaliser the garbage collector runs at
# an arbitrary moment. Raising there would lose the signal and let the run go on; it is held instead.
_SWALLOWING = frozenset({"__del__"})
_CAN_RECHECK = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")


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

    installed = 0  # nesting of `handling` blocks; only the outermost installs and restores
    depth = 0  # nesting of `deferred` blocks
    pending: int | None = None  # a signal held by `deferred` or until a safe point
    since = 0.0  # monotonic time the pending signal arrived
    raised: int | None = None  # typer turns any KeyboardInterrupt into a bare exit 130: the CLI asks here
    done: str | None = None  # what the run had completed when it was interrupted
    alarm_previous: object = None  # SIGALRM's handler before the first re-check was armed

    @classmethod
    def reset(cls) -> None:
        cls.depth, cls.pending, cls.since, cls.raised, cls.done = 0, None, 0.0, None, None


def _handler(signum: int, frame: FrameType | None) -> None:
    again = _State.pending is not None
    if not again:
        _State.since = time.monotonic()
    _State.pending = signum
    if again and not _State.depth and unsafe(frame):
        _exit_now(signum)  # a second signal while the first waits for a safe point: the user means it
    _act(frame)


def _recheck(_signum: int, frame: FrameType | None) -> None:
    _act(frame)


def _act(frame: FrameType | None) -> None:
    """Raise the pending signal if `frame` is at a safe point; else hold it and look again shortly."""
    if _State.pending is None or _State.depth:  # nothing held, or `deferred` raises it when the block ends
        return
    if unsafe(frame):
        if time.monotonic() - _State.since > HOLD_LIMIT_S:
            _exit_now(_State.pending)
        _arm()
        return
    signum, _State.pending = _State.pending, None
    _raise(signum)


def unsafe(frame: FrameType | None) -> bool:
    """Whether raising in `frame` could leak a lock or be swallowed: it or a caller is importing, logging, in
    threading's bookkeeping (not one of its blocking waits) or in a finaliser (`__del__`)."""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if (module in _IMPORT_MODULES or frame.f_code.co_filename.startswith("<frozen importlib._bootstrap")
                or module == "logging" or module.startswith("logging.")
                or (module == "threading" and frame.f_code.co_name not in _BLOCKING_WAITS)
                or frame.f_code.co_name in _SWALLOWING):
            return True
        frame = frame.f_back
    return False


def _arm() -> None:
    if not _CAN_RECHECK:
        return  # the next `checkpoint()` acts on it
    if signal.getsignal(signal.SIGALRM) is not _recheck:
        _State.alarm_previous = signal.signal(signal.SIGALRM, _recheck)
    signal.setitimer(signal.ITIMER_REAL, RECHECK_S)


def _exit_now(signum: int) -> None:
    """End the process without raising: raising here is what could hang it. Only the one line is written,
    straight to the file descriptor (the buffered stream may be mid-write)."""
    os.write(2, (message(Interrupted(signum)) + "\n").encode())
    os._exit(128 + signum)


def _raise(signum: int) -> None:
    _State.raised = signum
    raise Interrupted(signum)


def checkpoint() -> None:
    """A safe point: raise a signal that arrived while it could not be raised (outside `deferred` blocks)."""
    if _State.pending is not None and not _State.depth:
        signum, _State.pending = _State.pending, None
        _raise(signum)


def raised() -> Interrupted | None:
    """The interruption this process has raised, if any."""
    return Interrupted(_State.raised) if _State.raised is not None else None


@contextmanager
def handling() -> Iterator[bool]:
    """Route SIGINT and SIGTERM to `Interrupted` for the block, then restore the previous handlers.

    Nested blocks (gate.__main__'s around gate.cli's) share the outermost's handlers and state, so a signal
    held during the CLI's import is still there when the command runs. Only the main thread may set
    handlers: elsewhere (a test's worker thread) the block runs unchanged and yields False."""
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    if _State.installed:
        yield True
        return
    _State.reset()
    previous = {signum: signal.signal(signum, _handler) for signum in SIGNALS}
    _State.installed += 1
    try:
        yield True
    finally:
        _State.installed -= 1
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if _CAN_RECHECK and signal.getsignal(signal.SIGALRM) is _recheck:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, _State.alarm_previous)  # type: ignore[arg-type]
        _State.pending = None


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
    checkpoint()


def message(exc: Interrupted) -> str:
    """The one line an interrupted run prints."""
    if _State.done:
        return f"llm-gate: interrupted by {exc.name} after {_State.done}; the rest was skipped (exit {exc.exit_code})"
    return (f"llm-gate: interrupted by {exc.name} before the run finished: no verdict, this run wrote no report "
            f"and published nothing (exit {exc.exit_code})")
