"""gate.runtime.engines.bert and .native: the gate's BERT forward pass against an independent transformers
`AutoModel` forward pass, which checkpoints it accepts, and that it spares the process transformers' modeling
imports (the reason it exists)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gate.runtime.engines import bert
from gate.runtime.engines.bert import native_or_auto
from gate.runtime.engines.native import IMPLEMENTATION, native_bert
from tests.support.tiny_models import build_tiny_bert, build_tiny_roberta

TEXTS = ["", "hello world", "A longer sentence, with punctuation; numbers 3.14 and 1e-5 — and a dash.",
         "Ünïcödé ✅ naïve café テスト", "word " * 20, "\ttabs\nand\nlines\t"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return Path(build_tiny_bert(tmp_path_factory.mktemp("tiny-bert")))


def _reference(model_dir: Path):
    from transformers import AutoModel

    return AutoModel.from_pretrained(str(model_dir)).eval()


def _batch(model_dir: Path, texts=TEXTS, **kwargs):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    return tokenizer(list(texts), padding=True, truncation=True, return_tensors="pt", **kwargs)


@pytest.mark.parametrize("which", ["minilm_dir", "tiny"])
def test_states_equal_transformers_forward(which, request):
    model_dir = request.getfixturevalue(which)
    checkpoint = native_bert(model_dir)
    assert checkpoint is not None and checkpoint.prefix == ""
    ours, reference = bert.load(checkpoint), _reference(model_dir)
    features = _batch(model_dir)
    with torch.inference_mode():
        expected, found = reference(**features)[0], ours(**features)[0]
    real = features["attention_mask"].bool()
    assert found.shape == expected.shape
    assert float((found - expected).abs()[real].max()) <= 1e-6
    # one text alone (no mask at all) and a second token type
    one = {k: v[2:3, : int(real[2].sum())] for k, v in features.items()}
    one["token_type_ids"] = (torch.arange(one["input_ids"].shape[1]) % 2).unsqueeze(0)
    with torch.inference_mode():
        assert float((ours(**one)[0] - reference(**one)[0]).abs().max()) <= 1e-6


def test_first_layers_equal_transformers_hidden_states(minilm_dir):
    """BERTScore keeps the first k layers (`bertscore._find_layers`): the states are transformers' hidden_states[k]."""
    from gate.runtime.engines.bertscore import _find_layers

    ours, reference = bert.load(native_bert(minilm_dir)), _reference(minilm_dir)
    total, keep_first = _find_layers(ours)
    assert total == 6
    keep_first(3)
    features = _batch(minilm_dir)
    with torch.inference_mode():
        expected = reference(**features, output_hidden_states=True).hidden_states[3]
        found = ours(**features)[0]
    real = features["attention_mask"].bool()
    assert float((found - expected).abs()[real].max()) <= 1e-6


def test_dtype_and_fp16_forward(tiny):
    ours = bert.load(native_bert(tiny)).to(dtype=torch.bfloat16)
    features = _batch(tiny)
    with torch.inference_mode():
        out = ours(**features)[0]
    assert out.dtype == torch.bfloat16 and torch.isfinite(out.float()).all()


def test_a_task_checkpoint_under_bert_prefix(tmp_path, tiny):
    """BertForMaskedLM and friends save the encoder under `bert.`: the same states as AutoModel reads from them."""
    from transformers import BertForMaskedLM

    target = tmp_path / "mlm"
    shutil.copytree(tiny, target)
    torch.manual_seed(7)
    BertForMaskedLM.from_pretrained(str(tiny)).save_pretrained(str(target))
    checkpoint = native_bert(target)
    assert checkpoint is not None and checkpoint.prefix == "bert."
    features = _batch(target)
    with torch.inference_mode():
        expected, found = _reference(target)(**features)[0], bert.load(checkpoint)(**features)[0]
    assert float((found - expected).abs()[features["attention_mask"].bool()].max()) <= 1e-6


def _edit_config(model_dir: Path, target: Path, **changes) -> Path:
    shutil.copytree(model_dir, target)
    config = json.loads((target / "config.json").read_text())
    config.update(changes)
    (target / "config.json").write_text(json.dumps(config))
    return target


@pytest.mark.parametrize("changes", [
    {"hidden_act": "gelu_new"}, {"position_embedding_type": "relative_key"}, {"is_decoder": True},
    {"add_cross_attention": True}, {"model_type": "roberta"}, {"num_attention_heads": 3},
    {"hidden_size": "32"}, {"layer_norm_eps": "1e-12"}, {"num_hidden_layers": 3},  # a layer the file lacks
])
def test_other_configs_load_through_transformers(tmp_path, tiny, changes):
    assert native_bert(_edit_config(tiny, tmp_path / "m", **changes)) is None


def test_other_architectures_and_files_load_through_transformers(tmp_path, tiny):
    assert native_bert(Path(build_tiny_roberta(tmp_path / "roberta"))) is None
    garbled = _edit_config(tiny, tmp_path / "garbled")
    (garbled / "config.json").write_text("{not json")
    assert native_bert(garbled) is None
    no_safetensors = _edit_config(tiny, tmp_path / "bin")
    (no_safetensors / "model.safetensors").unlink()
    assert native_bert(no_safetensors) is None
    for name, content in (("short", b"\x01\x02"), ("huge", struct.pack("<Q", 2**40) + b"{}"),
                          ("notjson", struct.pack("<Q", 4) + b"nope"), ("list", struct.pack("<Q", 2) + b"[]")):
        broken = _edit_config(tiny, tmp_path / name)
        (broken / "model.safetensors").write_bytes(content)
        assert native_bert(broken) is None, name


def test_half_precision_weights_load_through_transformers(tmp_path, tiny):
    from safetensors.torch import load_file, save_file

    target = _edit_config(tiny, tmp_path / "fp16")
    weights = load_file(str(target / "model.safetensors"))
    save_file({k: v.half() for k, v in weights.items()}, str(target / "model.safetensors"))
    assert native_bert(target) is None


def test_native_or_auto_picks_by_checkpoint(tmp_path, tiny):
    assert isinstance(native_or_auto(tiny), bert.BertEncoder)
    roberta = native_or_auto(Path(build_tiny_roberta(tmp_path / "roberta")))
    assert not isinstance(roberta, bert.BertEncoder) and not roberta.training


def test_a_truncated_weight_file_raises(tmp_path, tiny):
    """The header still names every tensor, the data is cut short: loading fails (the runtime words the error)."""
    target = _edit_config(tiny, tmp_path / "cut")
    data = (target / "model.safetensors").read_bytes()
    (target / "model.safetensors").write_bytes(data[: len(data) - 1000])
    checkpoint = native_bert(target)
    assert checkpoint is not None
    with pytest.raises(Exception):  # noqa: B017 - safetensors' own error type
        bert.load(checkpoint)


def test_loading_minilm_spares_transformers_modeling_imports(minilm_dir):
    """The point of the module: a BERTScore engine and an embedder on MiniLM run without importing
    transformers' modeling stack or torch._dynamo (~1.5 s of every process that loads a model)."""
    code = (
        "import sys, json\n"
        "from gate.runtime.engines.bertscore import BertScoreEngine\n"
        "from gate.runtime.engines.embeddings import SentenceEmbedder\n"
        f"engine = BertScoreEngine.load({str(minilm_dir)!r}, layer=6)\n"
        "engine.score(['a cat sat'], ['the cat sat'])\n"
        f"SentenceEmbedder.load({str(minilm_dir)!r}).encode(['a cat sat'])\n"
        "print(json.dumps([m for m in ('transformers.modeling_utils', 'torch._dynamo', 'transformers.activations',"
        " 'scipy', 'sympy') if m in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def test_the_cache_keeps_native_states_apart(minilm_dir, tmp_path):
    """States computed by the gate's encoder live under their own cache namespace (`IMPLEMENTATION`)."""
    from gate.runtime.api import BERTSCORE, CLASSIFIER, EMBEDDING
    from gate.runtime.work.cached import runs_natively

    assert IMPLEMENTATION
    assert runs_natively(BERTSCORE, minilm_dir) and runs_natively(EMBEDDING, minilm_dir)
    assert not runs_natively(CLASSIFIER, minilm_dir)
    other = _edit_config(minilm_dir, tmp_path / "other-layout")
    (other / "modules.json").write_text(json.dumps([{"idx": 0, "name": "0", "path": "",
                                                     "type": "sentence_transformers.models.Transformer"}]))
    assert runs_natively(BERTSCORE, other) and not runs_natively(EMBEDDING, other)  # SentenceTransformer loads it
