"""Freed memory back to the system, where the C library keeps it; torch's import kept out of the collector's walks.

Torch frees a tensor to malloc, and glibc keeps the freed chunks in its heap: after a BERTScore block's token
states were released (`BertScoreEngine.release`) the next block, its states of other lengths, did not fit all
of the holes, so a cold run's RSS still grew by most of a block's states per block (~110 MB a block of 256
texts of ~260 tokens at d = 384, measured with MiniLM). `malloc_trim(0)` returns the free pages (a few
milliseconds; the next block faults them in again, ~0.1 s against minutes of model time). Elsewhere (macOS,
musl) there is nothing to call and nothing is done.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import importlib
import sys
from collections.abc import Callable
from types import ModuleType


def return_freed_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc), once a run has released a block's arrays."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the process's own symbols: its C library
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim  # type: ignore[no-any-return]


def import_for_the_run(name: str) -> ModuleType:
    """`import name` with the cyclic collector paused, then what is alive frozen (`gc.freeze`).

    Importing torch makes ~300,000 objects that live as long as the process. Left to the collector, they set off
    full collections during the import and are walked again by every full collection after it: 0.24 s of a warm
    short-text small gate (2-core host, medians of six interleaved runs: 3.75 -> 3.51 s). Reference counting still
    frees whatever is dropped later."""
    if name in sys.modules:
        return sys.modules[name]
    enabled = gc.isenabled()
    gc.disable()
    try:
        module = importlib.import_module(name)
    finally:
        if enabled:
            gc.enable()
    gc.freeze()
    return module
