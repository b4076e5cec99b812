"""The lower bound on model time: unique tokens x forward FLOPs per token / the machine's matmul FLOP/s.

Per engine (as the gate plans them): BERTScore (MiniLM, layers 1-6), the sentence embedder (MiniLM, all
layers; sentence-transformers truncates at max_seq_length), the stereotype classifier (ALBERT-base). Each
unique text is tokenised as the gate would (special tokens included; over the model's limit the gate
encodes overlapping windows of limit - specials tokens every half window, so those tokens are counted).
Forward FLOPs of a sequence of L tokens, per layer: L * 2 * (4 d^2 + 2 d d_ff)  (QKV + output projections
and the two feed-forward matmuls) + 4 L^2 d  (QK^T and attention x V). Embeddings, norms, softmax, pooling
and the classifier head are left out, and so is padding: a true lower bound.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Engine:
    name: str
    model_dir: str
    layers: int  # layers run
    d: int
    d_ff: int
    limit: int  # tokens per forward pass, special tokens included
    truncate: bool  # True: cut at the limit (sentence-transformers); False: windows (the gate's engines)


@dataclass(frozen=True)
class Bound:
    engine: str
    texts: int
    tokens: int
    gflop: float
    flops_per_s: float
    seconds: float


def engine(name: str, model_dir: str, layers: int | None = None, limit: int | None = None,
           truncate: bool = False) -> Engine:
    config = json.loads((Path(model_dir) / "config.json").read_text())
    st = Path(model_dir) / "sentence_bert_config.json"
    if limit is None and truncate and st.exists():
        limit = json.loads(st.read_text())["max_seq_length"]
    return Engine(name, model_dir, layers or config["num_hidden_layers"], config["hidden_size"],
                  config["intermediate_size"], limit or config.get("max_position_embeddings", 512), truncate)


def sequence_lengths(e: Engine, texts: Iterable[str]) -> list[int]:
    """Lengths of the token sequences the gate forwards for `texts` (whole texts or their windows)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(e.model_dir)
    special = len(tokenizer("")["input_ids"])
    lengths = []
    for ids in tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]:
        n = len(ids)
        if n <= e.limit:
            lengths.append(n)
        elif e.truncate:
            lengths.append(e.limit)
        else:
            width = e.limit - special
            content = n - special
            starts = set(range(0, content - width, max(1, width // 2))) | {content - width}
            lengths += [e.limit] * len(starts)
    return lengths


def forward_flops(e: Engine, length: int) -> float:
    return e.layers * (length * 2 * (4 * e.d * e.d + 2 * e.d * e.d_ff) + 4 * length * length * e.d)


def matmul_flops_per_s(d: int, d_ff: int, threads: int, rows: tuple[int, ...] = (1024, 2730, 8192),
                       repeats: int = 20, device: str = "cpu") -> float:
    """Best fp32 (rows, d) @ (d, d_ff) throughput over a few row counts and repetitions, with `threads` torch
    threads: the machine's peak for the model's widest matmul (smaller row counts often run faster, as they
    stay in cache, so one big shape would understate the peak and the bound would not be a bound). On CUDA: fp16,
    the gate's precision there, over larger row counts (a GPU needs many rows to fill)."""
    import torch

    if device == "cuda":
        return _cuda_matmul_flops_per_s(d, d_ff, repeats)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        best_rate = 0.0
        for n in rows:
            a, b = torch.randn(n, d), torch.randn(d, d_ff)
            torch.matmul(a, b)  # warm-up
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                torch.matmul(a, b)
                best = min(best, time.perf_counter() - start)
            best_rate = max(best_rate, 2 * n * d * d_ff / best)
        return best_rate
    finally:
        torch.set_num_threads(before)


def _cuda_matmul_flops_per_s(d: int, d_ff: int, repeats: int) -> float:
    import torch

    best_rate = 0.0
    for n in (8192, 65536, 262144):
        a = torch.randn(n, d, device="cuda", dtype=torch.float16)
        b = torch.randn(d, d_ff, device="cuda", dtype=torch.float16)
        torch.matmul(a, b)  # warm-up
        torch.cuda.synchronize()
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            torch.matmul(a, b)
            torch.cuda.synchronize()
            best = min(best, time.perf_counter() - start)
        best_rate = max(best_rate, 2 * n * d * d_ff / best)
    return best_rate


def lower_bound(e: Engine, texts: Iterable[str], flops_per_s: float) -> Bound:
    unique = list(dict.fromkeys(texts))
    lengths = sequence_lengths(e, unique) if unique else []
    total = sum(forward_flops(e, n) for n in lengths)
    return Bound(e.name, len(unique), sum(lengths), total / 1e9, flops_per_s, total / flops_per_s)


def as_dict(bounds: Iterable[Bound]) -> list[dict]:
    return [asdict(b) for b in bounds]
