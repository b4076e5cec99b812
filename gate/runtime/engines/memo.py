"""What the classifier engines share: softmax vectors memoised per window sequence and per text, and the engine
interface `gate.runtime.work.execute` drives (`classify_block`, `adopt`, `fits`, `softmax_windows`). A subclass
says how a text becomes window sequences (`windows`) and forwards the ones not yet seen (`_classify`)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

import numpy as np

S = TypeVar("S", bound=Hashable)  # one forwarded sequence: token ids, or (ids, segment ids)


class WindowMemo(Generic[S]):
    id2label: dict[int, str]

    def __init__(self) -> None:
        self._sequences: dict[S, np.ndarray] = {}  # forwarded sequence -> softmax (labels,) float32
        self._texts: dict[str, tuple[np.ndarray, bool]] = {}  # text -> (softmax per window, windowed)

    def windows(self, text: str) -> list[S]:
        raise NotImplementedError

    def _classify(self, texts: Sequence[str]) -> None:
        raise NotImplementedError

    def encode_count(self) -> int:
        return len(self._sequences)

    def classify_block(self, texts: Sequence[str]) -> None:
        """Classify exactly `texts` in one call, even those seen before (sharded runs, `gate.runtime.work.execute`):
        softmax values depend on their batch mates in the last bits, so they must be a function of this block."""
        for text in dict.fromkeys(texts):
            self._texts.pop(text, None)
            for seq in self.windows(text):
                self._sequences.pop(seq, None)
        self._classify(texts)

    def adopt(self, text: str, probs: np.ndarray, windowed: bool) -> None:
        """Take `text`'s softmax windows from the persistent cache instead of classifying it."""
        self._texts[text] = (np.asarray(probs, dtype=np.float32), bool(windowed))

    def fits(self, text: str, probs: np.ndarray) -> bool:
        return probs.shape == (len(self.windows(text)), len(self.id2label))

    def softmax_windows(self, text: str) -> tuple[np.ndarray, bool]:
        """(softmax per window as (windows, labels) float32, windowed) of a classified text; any label can be
        answered from it exactly as the engine's own probabilities are (max over windows)."""
        self._classify([text])
        probs, windowed = self._texts[text]
        return probs.copy(), windowed
