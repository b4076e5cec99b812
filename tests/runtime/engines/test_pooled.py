"""gate.runtime.engines.pooled against SentenceTransformer itself: the same tensors, bit for bit, on MiniLM; any
layout it does not reproduce is left to SentenceTransformer."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gate.runtime.engines.embeddings import SentenceEmbedder
from gate.runtime.engines.pooled import PooledEncoder, plain_layout

EDGE = ["", "   padded   text   ", "Ünïcödé ✅ naïve café", "word " * 400, "One.", "\ttabs\nand\nlines\t"]


@pytest.fixture(scope="module")
def pair(minilm_dir):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(minilm_dir), device="cpu").eval(), PooledEncoder(
        minilm_dir, plain_layout(minilm_dir), "cpu")


def test_minilm_is_a_plain_layout(minilm_dir):
    assert plain_layout(minilm_dir) is not None
    assert plain_layout(minilm_dir).max_seq_length == 256 and plain_layout(minilm_dir).normalize


@pytest.mark.parametrize("size", [1, 3, 6, 64])
def test_encode_is_sentence_transformers_bit_for_bit(pair, size):
    reference, ours = pair
    from tests.runtime.engines.test_embeddings import TEXTS

    texts = [*TEXTS, *EDGE] * 5
    for start in range(0, len(texts), size):
        batch = texts[start:start + size]
        theirs = reference.encode(batch, batch_size=len(batch), show_progress_bar=False, convert_to_tensor=True)
        mine = ours.encode(batch, batch_size=len(batch), show_progress_bar=False, convert_to_tensor=True)
        np.testing.assert_array_equal(mine.float().numpy(), theirs.float().numpy())


def test_the_limits_and_width_are_sentence_transformers(pair):
    reference, ours = pair
    assert ours.max_seq_length == reference.max_seq_length
    assert ours.get_sentence_embedding_dimension() == reference.get_embedding_dimension()


def _variant(minilm_dir: Path, tmp_path: Path, change) -> Path:
    """MiniLM's configuration files (no weights) with one change."""
    target = tmp_path / "model"
    shutil.copytree(minilm_dir, target, ignore=shutil.ignore_patterns("*.safetensors", "*.bin", "*.onnx"))
    change(target)
    return target


def _edit(path: Path, **changes) -> None:
    data = json.loads(path.read_text())
    if isinstance(data, dict):
        data.update(changes)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("change", [
    lambda d: (d / "modules.json").write_text(json.dumps(
        [*json.loads((d / "modules.json").read_text()),
         {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}])),
    lambda d: _edit(d / "1_Pooling" / "config.json", pooling_mode_mean_tokens=False, pooling_mode_cls_token=True),
    lambda d: _edit(d / "1_Pooling" / "config.json", pooling_mode_max_tokens=True),
    lambda d: _edit(d / "sentence_bert_config.json", do_lower_case=True),
    lambda d: _edit(d / "sentence_bert_config.json", model_args={"trust_remote_code": True}),
    lambda d: _edit(d / "sentence_bert_config.json", max_seq_length=None),
    lambda d: _edit(d / "config_sentence_transformers.json", prompts={"query": "query: "}),
    lambda d: (d / "modules.json").unlink(),
    lambda d: (d / "1_Pooling" / "config.json").write_text("{not json"),
], ids=["dense", "cls", "mean+max", "lower", "model-args", "no-limit", "prompts", "no-modules", "bad-json"])
def test_any_other_layout_is_left_to_sentence_transformers(minilm_dir, tmp_path, change):
    assert plain_layout(_variant(minilm_dir, tmp_path, change)) is None


def test_without_normalize_the_mean_is_not_divided(minilm_dir, tmp_path, pair):
    variant = _variant(minilm_dir, tmp_path, lambda d: (d / "modules.json").write_text(
        json.dumps(json.loads((d / "modules.json").read_text())[:2])))
    layout = plain_layout(variant)
    assert layout is not None and not layout.normalize
    raw = PooledEncoder(minilm_dir, layout).encode(EDGE).numpy()
    assert not np.allclose(np.linalg.norm(raw, axis=1), 1.0)
    np.testing.assert_allclose(raw / np.linalg.norm(raw, axis=1, keepdims=True), pair[1].encode(EDGE).numpy(),
                               atol=1e-6)


def test_the_embedding_engine_of_a_plain_model_never_imports_sentence_transformers(minilm_dir):
    code = ("import sys; from gate.runtime.engines.embeddings import SentenceEmbedder; "
            f"e = SentenceEmbedder.load({str(minilm_dir)!r}); e.encode(['a text', 'another']); "
            "print(sorted(m for m in ('sentence_transformers', 'sklearn', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_engine_still_loads_other_layouts_through_sentence_transformers(minilm_dir, tmp_path):
    variant = tmp_path / "cls"
    shutil.copytree(minilm_dir, variant)
    _edit(variant / "1_Pooling" / "config.json", pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    embedder = SentenceEmbedder.load(str(variant))
    from sentence_transformers import SentenceTransformer

    assert isinstance(embedder.model, SentenceTransformer)
    reference = SentenceTransformer(str(variant), device="cpu")
    np.testing.assert_allclose(embedder.encode(EDGE), reference.encode(EDGE), atol=1e-5)
