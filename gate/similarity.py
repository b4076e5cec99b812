"""Similarity as pure functions over embeddings (numpy only), in the manner of sentence-transformers."""

from __future__ import annotations

import numpy as np


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two same-shaped (n, dim) arrays -> (n,). Never clipped.

    A zero vector has no direction; its similarity is NaN (the caller decides what that means).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"cosine_similarity needs same-shaped arrays, got {a.shape} and {b.shape}")
    if a.ndim == 1:
        a, b = a[None, :], b[None, :]
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.einsum("ij,ij->i", a, b) / norms
