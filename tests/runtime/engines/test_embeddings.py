"""Sentence embeddings against SentenceTransformer itself, the pure cosine helper, and the tiny ALBERT
classifier builder used by the stereotype tests."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import subprocess  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gate.runtime.engines.embeddings import SentenceEmbedder
from gate.stats.similarity import cosine_similarity  # noqa: E402
from tests.support.tiny_models import (  # noqa: E402
    NEUTRAL_SENTENCES,
    STEREOTYPE_SENTENCES,
    build_tiny_albert_classifier,
)

TEXTS = [
    "The function handles the empty list correctly.",
    "Good use of the singleton pattern.",
    "",
    "The loop runs in quadratic time, which is too slow for large inputs; use a dictionary instead.",
    "Good use of the singleton pattern.",
    "Missing error handling.",
    "The function handles the empty list correctly.",
]


@pytest.fixture(scope="module")
def minilm_path(minilm_dir) -> str:
    return str(minilm_dir)


@pytest.fixture(scope="module")
def reference(minilm_path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(minilm_path, device="cpu")


@pytest.fixture(scope="module")
def embedder(minilm_path) -> SentenceEmbedder:
    return SentenceEmbedder.load(minilm_path, batch_size=2)


def test_equals_sentence_transformer_in_order_with_duplicates(embedder, reference):
    ours = embedder.encode(TEXTS)
    theirs = reference.encode(TEXTS)
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    diff = float(np.abs(ours - theirs).max())
    print(f"max |ours - SentenceTransformer.encode| = {diff:.2e}")
    assert diff <= 1e-5
    np.testing.assert_array_equal(ours[0], ours[6])
    np.testing.assert_array_equal(ours[1], ours[4])


def test_each_unique_text_is_encoded_once(minilm_path):
    embedder = SentenceEmbedder.load(minilm_path, batch_size=2)
    calls: list[list[str]] = []
    original = embedder.model.encode

    def counting_encode(texts, **kwargs):
        calls.append(list(texts))
        return original(texts, **kwargs)

    embedder.model.encode = counting_encode
    first = embedder.encode(TEXTS)
    assert embedder.encode_count() == len(set(TEXTS)) == 5
    again = embedder.encode(list(reversed(TEXTS)) + ["A new sentence."])
    assert embedder.encode_count() == 6
    encoded = [t for batch in calls for t in batch]
    assert sorted(encoded) == sorted(set(TEXTS) | {"A new sentence."})  # nothing encoded twice
    assert all(len(b) <= 2 for b in calls)
    lengths = [len(embedder.model.tokenizer(t)["input_ids"]) for t in calls[0] + calls[1] + calls[2]]
    assert lengths == sorted(lengths, reverse=True)  # batches sorted by token length
    np.testing.assert_array_equal(again[: len(TEXTS)], first[::-1])


LONG = " ".join(["The reviewer explains why the recursive solution overflows the stack on deep inputs."] * 20)


def test_a_text_over_the_limit_is_truncated_as_sentence_transformers_does_and_flagged(minilm_path, reference):
    embedder = SentenceEmbedder.load(minilm_path)
    assert embedder.max_tokens == reference.max_seq_length == 256
    texts = [LONG, TEXTS[0], LONG[:400]]
    np.testing.assert_allclose(embedder.encode(texts), reference.encode(texts), atol=1e-5)
    assert [embedder.truncated(t) for t in texts] == [True, False, False]
    assert embedder.meter.tokens == 256 + sum(len(reference.tokenizer(t)["input_ids"]) for t in texts[1:])


def test_batches_keep_within_the_position_budget(minilm_path):
    embedder = SentenceEmbedder.load(minilm_path, batch_size=64, batch_tokens=40)
    calls: list[list[str]] = []
    original = embedder.model.encode
    embedder.model.encode = lambda texts, **kw: calls.append(list(texts)) or original(texts, **kw)
    embedder.encode([*TEXTS, LONG])
    length = {t: min(256, len(embedder.model.tokenizer(t)["input_ids"])) for batch in calls for t in batch}
    assert calls[0] == [LONG]  # longer than the budget: a batch alone
    assert all(len(b) * max(length[t] for t in b) <= 40 for b in calls[1:])
    assert embedder.meter.positions == sum(len(b) * max(length[t] for t in b) for b in calls)
    assert embedder.meter.sequences == len(set(TEXTS)) + 1 and embedder.meter.seconds > 0


def test_the_cpu_budget_follows_the_model_width(minilm_path):
    assert SentenceEmbedder.load(minilm_path).max_positions == 2**20 // 384  # 384-wide MiniLM


def test_empty_input_has_the_embedding_width(embedder):
    out = embedder.encode([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_bfloat16_is_close_to_float32(minilm_path, embedder):
    half = SentenceEmbedder.load(minilm_path, dtype="bfloat16")
    ours = half.encode(TEXTS[:3])
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, embedder.encode(TEXTS[:3]), atol=0.03)


def test_cosine_similarity_is_row_wise_and_never_clipped():
    a = np.array([[1.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    b = np.array([[-1.0, 0.0], [1.0, 1.0], [0.0, 3.0]])
    np.testing.assert_allclose(cosine_similarity(a, b), [-1.0, 1.0, 0.0], atol=1e-12)
    assert np.isnan(cosine_similarity(np.zeros((1, 2)), np.ones((1, 2))))[0]
    with pytest.raises(ValueError):
        cosine_similarity(np.ones((2, 3)), np.ones((3, 3)))


def test_cosine_similarity_matches_sentence_transformers(embedder):
    from sentence_transformers.util import pairwise_cos_sim

    x = embedder.encode(TEXTS[:3])
    y = embedder.encode(TEXTS[3:6])
    np.testing.assert_allclose(cosine_similarity(x, y), pairwise_cos_sim(x, y).numpy(), atol=1e-6)


def test_importing_embeddings_does_not_import_torch():
    code = "import sys, gate.runtime.engines.embeddings; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- the tiny ALBERT stereotype classifier (tests/support/tiny_models.py) ------------------------
def test_tiny_albert_classifier_separates_its_groups(tmp_path):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = build_tiny_albert_classifier(tmp_path / "albert")
    size = sum(f.stat().st_size for f in (tmp_path / "albert").iterdir())
    assert size < 200_000
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    assert model.config.model_type == "albert"
    assert model.config.id2label == {0: "Non-Stereotype", 1: "Stereotype"}
    stereotype = model.config.label2id["Stereotype"]

    def mean_prob(texts):
        batch = tokenizer(list(texts), padding=True, return_tensors="pt")
        with torch.inference_mode():
            return float(model(**batch).logits.softmax(dim=-1)[:, stereotype].mean())

    gap = mean_prob(STEREOTYPE_SENTENCES) - mean_prob(NEUTRAL_SENTENCES)
    print(f"tiny ALBERT: mean Stereotype probability gap {gap:.3f}, {size} bytes")
    assert gap > 0.5
