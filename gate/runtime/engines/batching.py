"""How model inputs are cut into forward batches, and what those batches cost (no torch here).

Sequences are sorted longest first and cut into consecutive batches, so each batch pads to its first
sequence's length and padding stays small. A batch holds at most `runtime.batch_size` sequences and at most a
budget of padded positions (`position_budget`), which on CPU matters more than the count: a fixed count of
64 sequences made batches of long texts so large that they ran slower per token than smaller ones
(benchmarks/README.md has the figures).
"""

from __future__ import annotations

from collections.abc import Sequence

NO_LIMIT = 10**9
CPU_BATCH_ACTIVATIONS = 2**20  # hidden values per CPU forward batch (`position_budget`)
MIN_CPU_BUDGET = 512


def position_budget(batch_tokens: int | None, device: str, width: int | None) -> int:
    """Padded positions one forward batch may hold: `runtime.batch_tokens`, else by device and model width.

    On CPU a batch of about CPU_BATCH_ACTIVATIONS hidden values (2,730 positions of a 384-wide model, 1,365 of a
    768-wide one) keeps each layer's matmuls large enough to run at full speed and its activations small enough
    to stay in cache. On a 2-core AVX-512 machine (`benchmarks/batching.py`) an ALBERT-base ran fastest at
    1,024-1,365 positions per batch and 2.3x slower with 64 texts per batch; MiniLM was within noise from 1 k to
    4 k positions. On CUDA only `batch_size` limits a batch.
    """
    if batch_tokens is not None:
        return max(1, int(batch_tokens))
    if device != "cpu" or not width:
        return NO_LIMIT
    return max(MIN_CPU_BUDGET, CPU_BATCH_ACTIVATIONS // int(width))


def hidden_width(config) -> int | None:
    """A transformers config's hidden size (`hidden_size`, or `d_model` for T5/BART-style configs): the width
    `position_budget` divides by."""
    width = getattr(config, "hidden_size", None) or getattr(config, "d_model", None)
    return width if isinstance(width, int) else None


def budget_batches(lengths: Sequence[int], batch_size: int, max_positions: int) -> list[range]:
    """Cut items sorted longest first into consecutive batches of at most `batch_size` items whose padded size
    (items x the first item's length) stays within `max_positions`; an item longer than that is a batch alone."""
    batches, start = [], 0
    while start < len(lengths):
        width = max(1, lengths[start])
        stop = start + max(1, min(batch_size, max_positions // width))
        batches.append(range(start, min(stop, len(lengths))))
        start = batches[-1].stop
    return batches


class ForwardMeter:
    """Model time and tokens of an engine's forward passes (the benchmark's and the report's model time)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.tokens = 0  # real tokens forwarded
        self.positions = 0  # positions forwarded, padding included
        self.sequences = 0

    def add(self, seconds: float, mask) -> None:
        self.count(seconds, int(mask.sum()), int(mask.numel()), int(mask.shape[0]))

    def count(self, seconds: float, tokens: int, positions: int, sequences: int) -> None:
        self.seconds += seconds
        self.tokens += tokens
        self.positions += positions
        self.sequences += sequences
