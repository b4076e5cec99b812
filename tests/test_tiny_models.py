"""The tiny models the tests build are the same on every run: a test that fails once fails again."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from pathlib import Path  # noqa: E402

import torch  # noqa: E402

from tests.support.tiny_models import (  # noqa: E402
    FEEDBACK_SENTENCES,
    _wordpiece_vocab,
    build_tiny_albert_classifier,
)


def test_the_wordpiece_vocabulary_is_the_same_on_every_build(tmp_path):
    # tokenizers' WordPieceTrainer gave a different vocabulary on each of 30 builds in one process.
    vocabularies = {_wordpiece_vocab(FEEDBACK_SENTENCES, tmp_path / str(i), vocab_size=400).read_bytes()
                    for i in range(5)}
    assert len(vocabularies) == 1
    tokens = next(iter(vocabularies)).decode().split()
    assert tokens[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] and {"##e", "function"} <= set(tokens)


def test_a_trained_classifier_is_the_same_on_every_build(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        weights = {Path(build_tiny_albert_classifier(tmp_path / str(i)), "model.safetensors").read_bytes()
                   for i in range(2)}
    finally:
        torch.set_num_threads(threads)
    assert len(weights) == 1
