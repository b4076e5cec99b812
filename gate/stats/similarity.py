"""Similarity as pure functions over embeddings (numpy only), in the manner of sentence-transformers."""

from __future__ import annotations

import numpy as np

NOISE = 1e-6  # how far past a documented bound float rounding may carry a value (float32 models: ~1e-7)


def snap(value, low: float | None, high: float | None, tolerance: float = NOISE):
    """A value (float, None or array) with rounding noise at a documented bound put back on it: within
    `tolerance` above `high` -> high, within it below `low` -> low. A real excursion, further out, is kept as
    it is (it means a bug or a wrong input, and clipping would hide it); NaN stays NaN. None: no such bound."""
    if value is None:
        return None
    x = np.asarray(value, dtype=np.float64)
    if high is not None:
        x = np.where((x > high) & (x <= high + tolerance), high, x)
    if low is not None:
        x = np.where((x < low) & (x >= low - tolerance), low, x)
    return float(x) if x.ndim == 0 else x


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two same-shaped (n, dim) arrays -> (n,). Never clipped: only float
    noise within NOISE past ±1 is put back on the bound (`snap`).

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
        return snap(np.einsum("ij,ij->i", a, b) / norms, -1.0, 1.0)


def cosine_matrix(vectors: np.ndarray) -> np.ndarray:
    """All pairwise cosine similarities of the rows of an (n, dim) array -> (n, n). Never clipped (float noise
    within NOISE past ±1 is put back on the bound)."""
    v = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    if norms.all() and np.isfinite(norms).all():  # no warning to silence (np.errstate costs ~0.1 ms per entry)
        unit = v / norms
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = v / norms
    return snap(unit @ unit.T, -1.0, 1.0)


def off_diagonal_mean(similarity: np.ndarray) -> float:
    """Mean of the n(n−1) entries with i ≠ j (DESIGN.md §4: the seed's "Σ_{i≠j} sim − n" subtracts n twice)."""
    n = similarity.shape[0]
    if n < 2:
        raise ValueError("needs at least two rows")
    return float((similarity.sum() - np.trace(similarity)) / (n * (n - 1)))
