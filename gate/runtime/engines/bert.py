"""transformers' `BertModel` forward pass in plain torch, for the checkpoints `native.native_bert` accepts.

Reproduces `BertModel(...)(input_ids, attention_mask, token_type_ids)[0]` (eval mode, the SDPA attention transformers
uses by default): embeddings (word + token type, then + absolute position, LayerNorm); per layer, self-attention
(query/key/value projections, `scaled_dot_product_attention` with the padding mask, output projection, residual,
LayerNorm) and the feed-forward block (dense, exact GELU, dense, residual, LayerNorm). The same modules, weights and
operations in the same order, so the states agree with transformers' to float rounding (≤ 1e-5,
`tests/runtime/engines/test_bert.py` against an independent `AutoModel` forward pass). The pooler is left out:
nothing the gate computes reads it. The layers sit where transformers puts them (`encoder.layer[i]`), so BERTScore keeps
the first k layers the way it does for any model; the modules hold the file's tensors as they are (no random
initialisation first, which would also import torch._dynamo: 0.7 s).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from gate.runtime.engines.hf import quiet_transformers
from gate.runtime.engines.native import NativeBert, native_bert, required_keys

Weights = dict[str, torch.Tensor]


class _Linear(nn.Module):
    """`nn.Linear` holding given weights (no random initialisation to throw away)."""

    def __init__(self, w: Weights, name: str) -> None:
        super().__init__()
        self.weight, self.bias = nn.Parameter(w[f"{name}.weight"], False), nn.Parameter(w[f"{name}.bias"], False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias)


class _LayerNorm(_Linear):
    def __init__(self, w: Weights, name: str, eps: float) -> None:
        super().__init__(w, name)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, self.eps)


class _Embeddings(nn.Module):
    def __init__(self, w: Weights, c: SimpleNamespace) -> None:
        super().__init__()
        self.word, self.position, self.token_type = (
            nn.Parameter(w[f"embeddings.{n}_embeddings.weight"], False) for n in ("word", "position", "token_type"))
        self.LayerNorm = _LayerNorm(w, "embeddings.LayerNorm", c.layer_norm_eps)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None) -> torch.Tensor:
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = F.embedding(input_ids, self.word) + F.embedding(token_type_ids, self.token_type)
        return self.LayerNorm(x + F.embedding(positions, self.position))


class _Layer(nn.Module):
    """transformers' BertLayer: self-attention, then the feed-forward block, each with its residual LayerNorm."""

    def __init__(self, w: Weights, name: str, c: SimpleNamespace) -> None:
        super().__init__()
        self.heads = c.num_attention_heads
        self.query, self.key, self.value = (_Linear(w, f"{name}.attention.self.{p}") for p in ("query", "key", "value"))
        self.attention_output = _Linear(w, f"{name}.attention.output.dense")
        self.attention_norm = _LayerNorm(w, f"{name}.attention.output.LayerNorm", c.layer_norm_eps)
        self.intermediate = _Linear(w, f"{name}.intermediate.dense")
        self.output = _Linear(w, f"{name}.output.dense")
        self.output_norm = _LayerNorm(w, f"{name}.output.LayerNorm", c.layer_norm_eps)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = (p(x).view(batch, length, self.heads, -1).transpose(1, 2) for p in (self.query, self.key, self.value))
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=mask).transpose(1, 2).reshape(batch, length, width)
        x = self.attention_norm(self.attention_output(attended) + x)
        return self.output_norm(self.output(F.gelu(self.intermediate(x))) + x)


class _Encoder(nn.Module):
    def __init__(self, w: Weights, c: SimpleNamespace) -> None:
        super().__init__()
        self.layer = nn.ModuleList(_Layer(w, f"encoder.layer.{i}", c) for i in range(c.num_hidden_layers))


class BertEncoder(nn.Module):
    """`BertModel` without its pooler; `model(input_ids, attention_mask=…)[0]` is the last layer's states."""

    def __init__(self, weights: Weights, config: SimpleNamespace) -> None:
        super().__init__()
        self.config = config
        self.embeddings = _Embeddings(weights, config)
        self.encoder = _Encoder(weights, config)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                token_type_ids: torch.Tensor | None = None) -> tuple[torch.Tensor]:
        x = self.embeddings(input_ids, token_type_ids)
        mask = None
        if attention_mask is not None and not bool(attention_mask.all()):  # transformers drops an all-ones mask too
            mask = attention_mask.bool()[:, None, None, :]
        for layer in self.encoder.layer:
            x = layer(x, mask)
        return (x,)


def load(checkpoint: NativeBert) -> BertEncoder:
    """The encoder with the checkpoint's weights (fp32, CPU, eval); a damaged file raises (the engines word it)."""
    from safetensors import safe_open

    config = SimpleNamespace(**{"layer_norm_eps": 1e-12, "pad_token_id": 0, **checkpoint.config})
    with safe_open(str(checkpoint.weights), framework="pt") as weights:
        state = {name: weights.get_tensor(checkpoint.prefix + name) for name in required_keys(checkpoint.config)}
    return BertEncoder(state, config).eval()


def native_or_auto(model_dir: Path) -> Any:
    """The model at `model_dir` in eval mode: this encoder where `native.native_bert` accepts the checkpoint, else
    transformers' `AutoModel` (its modeling stack imported only then)."""
    checkpoint = native_bert(model_dir)
    if checkpoint is not None:
        return load(checkpoint)
    from transformers import AutoModel

    quiet_transformers()
    return AutoModel.from_pretrained(str(model_dir)).eval()
