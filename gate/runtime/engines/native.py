"""Which models the gate runs without transformers' modeling code (no torch here: cache keys ask it too).

Loading a model through `AutoModel.from_pretrained` imports transformers' modeling stack — `modeling_utils` pulls in
`torch.distributed.tensor`, sympy and, through the loss functions, scipy.optimize — which costs about 1.5 s of every
process that loads one (2-core host: 2.85 s for `AutoModel` + tokenizer against 1.32 s for the tokenizer alone).
For the one architecture most BERTScore and sentence-embedding models have (BERT: all-MiniLM-L6-v2, bert-base,
the BGE/E5 small models), `gate.runtime.engines.bert` runs the same forward pass in plain torch from the
safetensors file. Anything else — another architecture, relative positions, a decoder, an activation other than
exact GELU, weights in several files or under unexpected names — returns None here and loads through
transformers exactly as before.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from gate import io

WEIGHTS = "model.safetensors"
IMPLEMENTATION = "gate-bert-1"  # in the cache's namespace: states computed one way never mix with the other's
_HEADER_LIMIT = 100 * 2**20  # a safetensors header larger than this is not a plain BERT checkpoint
_PREFIXES = ("", "bert.")  # a base model's keys, or a task model's (BertForMaskedLM …) under `bert.`


@dataclass(frozen=True)
class NativeBert:
    """A BERT checkpoint `bert.BertEncoder` reproduces: its config.json and where its weights are."""

    config: dict[str, Any]
    weights: Path
    prefix: str  # before every key of the encoder's weights in the file


def required_keys(config: dict[str, Any]) -> list[str]:
    """The weights the encoder needs, without prefix (the pooler is never used: BERTScore and mean pooling read the
    token states)."""
    keys = [f"embeddings.{n}.weight" for n in ("word_embeddings", "position_embeddings", "token_type_embeddings")]
    keys += ["embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"]
    for i in range(int(config["num_hidden_layers"])):
        layer = f"encoder.layer.{i}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                     "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"):
            keys += [f"{layer}{name}.weight", f"{layer}{name}.bias"]
    return keys


def native_bert(model_dir: Path) -> NativeBert | None:
    """The checkpoint at `model_dir` if the gate's own BERT encoder runs it, else None (transformers does)."""
    config, weights = io.read_json_quiet(model_dir / "config.json"), model_dir / WEIGHTS
    if not isinstance(config, dict) or not _plain_bert(config):
        return None
    try:
        keys = io.read_binary(weights, _safetensors_keys)  # a missing file, a FIFO or a device: OSError
    except (OSError, ValueError):
        return None
    if keys is None:
        return None
    needed = required_keys(config)
    prefix = next((p for p in _PREFIXES if all(p + k in keys for k in needed)), None)
    return None if prefix is None else NativeBert(config, weights, prefix)


def _plain_bert(config: dict[str, Any]) -> bool:
    sizes = [config.get(k) for k in ("hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
                                     "max_position_embeddings", "vocab_size", "type_vocab_size")]
    return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and not config.get("is_decoder") and not config.get("add_cross_attention")
            and all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes)
            and config["hidden_size"] % config["num_attention_heads"] == 0
            and isinstance(config.get("layer_norm_eps", 1e-12), float))


def _safetensors_keys(stream: IO[bytes]) -> set[str] | None:
    """The fp32 tensor names in a safetensors file's header (8-byte little-endian length, then JSON), read without
    loading the weights; None when the header is not one."""
    head = stream.read(8)
    if len(head) != 8:
        return None
    (size,) = struct.unpack("<Q", head)
    if not 0 < size <= _HEADER_LIMIT:
        return None
    header = json.loads(stream.read(size))
    if not isinstance(header, dict):
        return None
    return {k for k, v in header.items() if k != "__metadata__" and isinstance(v, dict) and v.get("dtype") == "F32"}

