"""One fused operation where a model's Python code spells a function out in several.

transformers' `NewGELUActivation` ("gelu_new": ALBERT and so the HEARTS classifier, GPT-2, Google's BERT
checkpoints) computes the tanh approximation of GELU, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), as eight
element-wise tensor operations, each a pass over a (positions × d_ff) tensor. `torch.nn.functional.gelu(x,
approximate="tanh")` is the same function in one vectorised pass: on an ALBERT-base batch of 1,365 positions
(2 cores, fp32) a forward pass took 17-20 % less time, and its softmax probabilities moved by ≤ 1.2e-7 (float
rounding). `tests/runtime/engines/test_fused.py` checks the function against transformers' own module, and
`test_classifier.py` the fused classifier against an independent transformers forward pass (1e-6). Nothing
else about a model changes.
"""

from __future__ import annotations

import sys

import torch


class TanhGelu(torch.nn.Module):
    """GELU's tanh approximation as torch's single fused operation."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x, approximate="tanh")


def fuse_activations(model: torch.nn.Module) -> int:
    """Replace every `NewGELUActivation` in `model` by `TanhGelu`, in place; how many were replaced."""
    # Looked up, not imported: a model holding one has imported the module already, and importing it costs 0.8 s
    # (transformers' modeling stack, `gate.runtime.engines.native`).
    NewGELUActivation = getattr(sys.modules.get("transformers.activations"), "NewGELUActivation", None)
    if NewGELUActivation is None:
        return 0
    replaced = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is NewGELUActivation:  # exactly it: a subclass may compute something else
                setattr(parent, name, TanhGelu())
                replaced += 1
    return replaced
