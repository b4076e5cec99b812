"""Sentence embeddings: each unique text encoded once per run, length-sorted batches.

torch and transformers are imported lazily by `SentenceEmbedder.load`, never at module import; a model of the
plain Transformer + mean-pooling shape runs through `gate.runtime.engines.pooled` (SentenceTransformer's tensors
without importing sentence-transformers), any other through `SentenceTransformer`. The similarity itself is the
pure `gate.stats.similarity.cosine_similarity`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gate.runtime.engines import batching
from gate.runtime.engines.hf import quiet_transformers
from gate.runtime.engines.progress import model_progress

_DTYPES = ("float32", "fp32", "float16", "fp16", "half", "bfloat16", "bf16")


class SentenceEmbedder:
    """Wraps `SentenceTransformer` (or `PooledEncoder`, its equal for plain models); `encode` returns exactly
    what it returns, memoized per text.

    Texts go to `SentenceTransformer.encode` sorted by token length, in batches of at most `batch_size` texts
    and `batching.position_budget` padded positions. sentence-transformers cuts a text at the model's
    `max_seq_length` (256 for all-MiniLM-L6-v2), as the seeds' scripts do; `truncated(text)` says whether it did.
    """

    def __init__(self, model, *, batch_size: int = 64, batch_tokens: int | None = None, device: str = "cpu") -> None:
        self.model = model
        self.batch_size = max(1, int(batch_size))
        dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(dim())
        limit = getattr(model, "max_seq_length", None)
        self.max_tokens = int(limit) if isinstance(limit, int) and limit > 0 else batching.NO_LIMIT
        self.max_positions = batching.position_budget(batch_tokens, device, _width(model) or self.dim)
        self._cache: dict[str, np.ndarray] = {}
        self._truncated: dict[str, bool] = {}
        self.meter = batching.ForwardMeter()  # time in `SentenceTransformer.encode`, tokens as it truncates them

    @classmethod
    def load(
        cls, model_dir: str, *, device: str = "cpu", dtype: str = "float32", batch_size: int = 64,
        batch_tokens: int | None = None,
    ) -> SentenceEmbedder:
        import torch

        from gate.errors import ConfigError, ModelUnavailable, Problem
        from gate.runtime.engines.fused import fuse_activations
        from gate.runtime.engines.pooled import PooledEncoder, plain_layout

        name = str(dtype).lower()
        if name not in _DTYPES:
            raise ConfigError(
                "Embedding model",
                [
                    Problem(
                        field="runtime.precision",
                        expected="one of float32, float16, bfloat16",
                        found=repr(dtype),
                        fix="set runtime.precision to float32, float16 or bfloat16",
                    )
                ],
            )
        try:
            layout = plain_layout(Path(model_dir))
            model: Any
            if layout is not None:  # Transformer + mean Pooling (+ Normalize): the same tensors, ~1.6 s fewer imports
                model = PooledEncoder(Path(model_dir), layout, device)
            else:
                from sentence_transformers import SentenceTransformer

                quiet_transformers()
                model = SentenceTransformer(str(model_dir), device=device)
        except OSError as exc:
            raise ModelUnavailable(
                f"cannot load the embedding model from {model_dir}: {exc}",
                fix="run `llm-gate models pull` or point models.embedding at a local model directory",
            ) from exc
        fuse_activations(model)  # either way: its modules() are the transformer's
        model.eval()
        if name in ("float16", "fp16", "half"):
            model.to(dtype=torch.float16)
        elif name in ("bfloat16", "bf16"):
            model.to(dtype=torch.bfloat16)
        return cls(model, batch_size=batch_size, batch_tokens=batch_tokens, device=torch.device(device).type)

    def encode_count(self) -> int:
        return len(self._cache)

    def adopt(self, text: str, vector: np.ndarray, truncated: bool = False) -> None:
        """Take `text`'s embedding from the persistent cache instead of encoding it."""
        self._cache[text] = np.asarray(vector, dtype=np.float32)
        self._truncated[text] = bool(truncated)

    def fits(self, vector: np.ndarray) -> bool:
        return vector.shape == (self.dim,)

    def truncated(self, text: str) -> bool:
        """Whether `text` (encoded or adopted) was longer than `max_tokens`, so only its start was embedded."""
        return self._truncated[text]

    def encode_block(self, texts: Sequence[str]) -> np.ndarray:
        """`encode` of exactly `texts`, even those seen before (sharded runs, `gate.runtime.work.execute`): an embedding
        depends on its batch mates in the last bits, so it must be a function of this block alone."""
        for text in texts:
            self._cache.pop(text, None)
        return self.encode(texts)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32 embeddings in the order given (duplicates repeated), not re-normalised."""
        # dict, not set, and a stable sort: equal-length texts keep their input order, so batches do not depend
        # on the hash seed
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        lengths = self._token_lengths(todo)
        order = sorted(range(len(todo)), key=lambda i: lengths[i], reverse=True)
        forwarded = [min(lengths[i], self.max_tokens) for i in order]
        batches = batching.budget_batches(forwarded, self.batch_size, self.max_positions)
        with model_progress("Embedding", total=len(batches)) as bar:
            for rows in batches:
                batch = [todo[order[k]] for k in rows]
                start = time.perf_counter()
                out = self.model.encode(
                    batch, batch_size=len(batch), show_progress_bar=False, convert_to_tensor=True
                )
                out = out.float().cpu().numpy()
                self.meter.count(time.perf_counter() - start, sum(forwarded[k] for k in rows),
                                 len(batch) * forwarded[rows.start], len(batch))
                for k, text, row in zip(rows, batch, out, strict=True):
                    self._cache[text] = row
                    self._truncated[text] = lengths[order[k]] > self.max_tokens
                bar.advance()
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts]).astype(np.float32, copy=False)

    def _token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text, special tokens included, before sentence-transformers' truncation (0 without a
        tokenizer: batches then only follow `batch_size`)."""
        tokenizer = getattr(self.model, "tokenizer", None)
        if tokenizer is None or not texts:
            return [0] * len(texts)
        return [len(ids) for ids in tokenizer(list(texts), truncation=False, verbose=False)["input_ids"]]


def _width(model) -> int | None:
    """The hidden size of the transformer inside a SentenceTransformer (None when it has none)."""
    widths = (batching.hidden_width(getattr(module, "config", None)) for module in model.modules())
    return next((w for w in widths if w), None)
