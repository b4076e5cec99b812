"""Sentence embeddings: each unique text encoded once per run, length-sorted batches.

torch and sentence-transformers are imported lazily by `SentenceEmbedder.load`, never at module
import. The similarity itself is the pure `gate.similarity.cosine_similarity`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from gate.runtime.progress import model_progress

_DTYPES = ("float32", "fp32", "float16", "fp16", "half", "bfloat16", "bf16")


class SentenceEmbedder:
    """Wraps `SentenceTransformer`; `encode` returns exactly what it returns, memoized per text."""

    def __init__(self, model, *, batch_size: int = 64) -> None:
        self.model = model
        self.batch_size = max(1, int(batch_size))
        dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(dim())
        self._cache: dict[str, np.ndarray] = {}
        self.seconds = 0.0  # in `SentenceTransformer.encode`
        self.tokens = 0  # real tokens forwarded (as the model's tokenizer truncates them)

    @classmethod
    def load(
        cls, model_dir: str, *, device: str = "cpu", dtype: str = "float32", batch_size: int = 64
    ) -> SentenceEmbedder:
        import torch
        from sentence_transformers import SentenceTransformer

        from gate.errors import ConfigError, ModelUnavailable, Problem

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
            model = SentenceTransformer(str(model_dir), device=device)
        except OSError as exc:
            raise ModelUnavailable(
                f"cannot load the embedding model from {model_dir}: {exc}",
                fix="run `llm-gate models pull` or point models.embedding at a local model directory",
            ) from exc
        model.eval()
        if name in ("float16", "fp16", "half"):
            model.to(dtype=torch.float16)
        elif name in ("bfloat16", "bf16"):
            model.to(dtype=torch.bfloat16)
        return cls(model, batch_size=batch_size)

    def encode_count(self) -> int:
        return len(self._cache)

    def adopt(self, text: str, vector: np.ndarray) -> None:
        """Take `text`'s embedding from the persistent cache instead of encoding it."""
        self._cache[text] = np.asarray(vector, dtype=np.float32)

    def fits(self, vector: np.ndarray) -> bool:
        return vector.shape == (self.dim,)

    def encode_block(self, texts: Sequence[str]) -> np.ndarray:
        """`encode` of exactly `texts`, even those seen before (sharded runs, `gate.runtime.work`): an embedding
        depends on its batch mates in the last bits, so it must be a function of this block alone."""
        for text in texts:
            self._cache.pop(text, None)
        return self.encode(texts)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32 embeddings in the order given (duplicates repeated), not re-normalised."""
        # dict, not set: equal-length texts keep their input order, so batches do not depend on the hash seed
        todo = sorted(dict.fromkeys(t for t in texts if t not in self._cache), key=len, reverse=True)
        batches = [todo[i : i + self.batch_size] for i in range(0, len(todo), self.batch_size)]
        with model_progress("Embedding", total=len(batches)) as bar:
            for batch in batches:
                start = time.perf_counter()
                out = self.model.encode(
                    batch, batch_size=len(batch), show_progress_bar=False, convert_to_tensor=True
                )
                out = out.float().cpu().numpy()
                self.seconds += time.perf_counter() - start
                self.tokens += self._token_count(batch)
                for text, row in zip(batch, out, strict=True):
                    self._cache[text] = row
                bar.advance()
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts]).astype(np.float32, copy=False)

    def _token_count(self, batch: Sequence[str]) -> int:
        tokenizer = getattr(self.model, "tokenizer", None)
        if tokenizer is None:
            return 0
        limit = getattr(self.model, "max_seq_length", None)
        lengths = tokenizer(list(batch), truncation=limit is not None, max_length=limit)["input_ids"]
        return sum(map(len, lengths))
