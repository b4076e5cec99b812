"""`RawBertScores`, the BERTScore engine's per-pair output, without torch: rescaling and the replay of stored
scores (`rescale.py`, `session.bertscore_result`) use it in runs whose model outputs all come from the cache."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class RawBertScores:
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    windowed: np.ndarray  # bool per pair: the candidate or the reference was encoded in windows
