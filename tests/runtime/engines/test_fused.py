"""The fused GELU against transformers' own `NewGELUActivation`, and the swap on a loaded model."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402
import torch  # noqa: E402
from transformers import AlbertConfig, AlbertModel, BertConfig, BertModel  # noqa: E402
from transformers.activations import NewGELUActivation  # noqa: E402

from gate.runtime.engines.classifier import SequenceClassifier  # noqa: E402
from gate.runtime.engines.fused import TanhGelu, fuse_activations  # noqa: E402
from tests.support.tiny_models import build_tiny_albert_classifier  # noqa: E402


@pytest.mark.parametrize("dtype, tolerance", [(torch.float64, 1e-12), (torch.float32, 1e-6)])
def test_the_fused_gelu_computes_transformers_gelu_new(dtype, tolerance):
    x = torch.linspace(-12, 12, 200_001, dtype=dtype)
    assert torch.allclose(TanhGelu()(x), NewGELUActivation()(x), rtol=0, atol=tolerance)


def small(config_class, act: str):
    return config_class(vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, hidden_act=act)


def test_every_gelu_new_is_replaced_and_nothing_else():
    bert = BertModel(small(BertConfig, "gelu_new"))
    assert fuse_activations(bert) == 2  # one per layer
    assert not any(isinstance(m, NewGELUActivation) for m in bert.modules())
    assert fuse_activations(BertModel(small(BertConfig, "gelu"))) == 0
    albert = AlbertModel(small(AlbertConfig, "gelu_new"))
    ids = torch.randint(0, 50, (3, 9), generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        before = albert(input_ids=ids).last_hidden_state
        assert fuse_activations(albert) == 1  # ALBERT shares one layer's modules across its layers
        after = albert(input_ids=ids).last_hidden_state
    assert torch.allclose(before, after, rtol=0, atol=1e-6)

    class Scaled(NewGELUActivation):  # a subclass may compute something else: left alone
        def forward(self, input):
            return 2 * super().forward(input)

    bert.encoder.layer[0].intermediate.intermediate_act_fn = Scaled()
    assert fuse_activations(bert) == 0


def test_the_classifier_runs_fused(tmp_path):
    classifier = SequenceClassifier.load(build_tiny_albert_classifier(tmp_path / "albert"))
    modules = list(classifier.model.modules())
    assert any(isinstance(m, TanhGelu) for m in modules)
    assert not any(isinstance(m, NewGELUActivation) for m in modules)
