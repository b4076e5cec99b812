"""A sentence-transformers model of the plain shape — Transformer, mean Pooling, optional Normalize — run without
sentence-transformers (and, for a BERT checkpoint with BERT's tokenizer, without transformers:
`gate.runtime.engines.bert`, `gate.runtime.engines.wordpiece`).

all-MiniLM-L6-v2 and most sentence-embedding models are exactly that. `SentenceTransformer` adds ~1.6 s of imports
to every run that embeds (scikit-learn and pandas come with it) for what is one forward pass, a masked
mean and a division by the norm. `PooledEncoder.encode` does those with the same torch operations in the same
order, so its tensors are SentenceTransformer.encode's bit for bit (the tests compare them on texts that are
empty, blank, non-ASCII and longer than `max_seq_length`). Any other layout — more modules, another pooling,
lower-casing, prompts, extra tokenizer or model arguments — is left to `SentenceTransformer` (`plain_layout`
returns None).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_TRANSFORMER, _POOLING, _NORMALIZE = (f"sentence_transformers.models.{name}"
                                      for name in ("Transformer", "Pooling", "Normalize"))
_BERT_CONFIG_KEYS = {"max_seq_length", "do_lower_case"}  # anything more (model_args, …) goes to SentenceTransformer


@dataclass(frozen=True)
class PlainLayout:
    max_seq_length: int
    normalize: bool


def plain_layout(model_dir: Path) -> PlainLayout | None:
    """The settings of a model `PooledEncoder` reproduces exactly, or None for any other."""
    try:
        modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
        bert = json.loads((model_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))
        types = [m["type"] for m in modules]
        if types not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]) or modules[0]["path"]:
            return None
        pooling = json.loads((model_dir / modules[1]["path"] / "config.json").read_text(encoding="utf-8"))
        st_config = model_dir / "config_sentence_transformers.json"
        extra = json.loads(st_config.read_text(encoding="utf-8")) if st_config.exists() else {}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
    length = bert.get("max_seq_length")
    if (modes != {"pooling_mode_mean_tokens"} or set(bert) - _BERT_CONFIG_KEYS or bert.get("do_lower_case")
            or not isinstance(length, int) or isinstance(length, bool) or length <= 0
            or extra.get("prompts") or extra.get("default_prompt_name")):
        return None
    return PlainLayout(length, len(types) == 3)


class PooledEncoder:
    """The part of `SentenceTransformer` that `SentenceEmbedder` uses: `encode`, `tokenizer`, `max_seq_length`,
    the embedding dimension, `modules()`, `eval()` and `to(dtype=…)`."""

    def __init__(self, model_dir: Path, layout: PlainLayout, device: str = "cpu") -> None:
        from gate.runtime.engines import wordpiece
        from gate.runtime.engines.bert import native_or_auto

        self.tokenizer = wordpiece.load(model_dir) or _auto_tokenizer(model_dir)
        self.model = native_or_auto(model_dir).to(device)
        self.model.eval()
        self.max_seq_length = layout.max_seq_length
        self.normalize = layout.normalize
        self.device = device

    def get_sentence_embedding_dimension(self) -> int:
        return int(self.model.config.hidden_size)

    def modules(self) -> Iterator[Any]:
        return self.model.modules()

    def eval(self) -> PooledEncoder:
        self.model.eval()
        return self

    def to(self, dtype: Any = None) -> PooledEncoder:
        self.model.to(dtype=dtype)
        return self

    def encode(self, texts: Sequence[str], batch_size: int | None = None, show_progress_bar: bool = False,
               convert_to_tensor: bool = True) -> Any:
        """(n, dim) embeddings of `texts` as one padded batch — SentenceTransformer.encode's operations: the
        Transformer module's tokenisation and forward pass, Pooling's masked mean, Normalize's L2 division."""
        import torch

        with torch.inference_mode():
            features = {name: tensor.to(self.device) for name, tensor in self.tokenizer(
                list(texts), padding=True, truncation="longest_first", max_length=self.max_seq_length,
                return_tensors="pt").items()}
            tokens = self.model(**features)[0]
            mask = features["attention_mask"].unsqueeze(-1).expand(tokens.size()).to(tokens.dtype)
            pooled = torch.sum(tokens * mask, 1) / torch.clamp(mask.sum(1), min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1) if self.normalize else pooled


def _auto_tokenizer(model_dir: Path) -> Any:
    from transformers import AutoTokenizer

    from gate.runtime.engines.hf import quiet_transformers

    quiet_transformers()
    return AutoTokenizer.from_pretrained(str(model_dir))
