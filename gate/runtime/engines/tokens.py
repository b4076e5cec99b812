"""What the BERTScore engine and the classifier share: dtypes, token limits, special-token templates,
windows over long texts, and length-sorted padded batches; and the tokenizer bert-score loads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import torch

from gate.errors import ConfigError, ModelUnavailable, Problem
from gate.runtime.engines import wordpiece
from gate.runtime.engines.batching import NO_LIMIT, budget_batches
from gate.runtime.engines.hf import quiet_transformers

DTYPES = {
    **dict.fromkeys(("float32", "fp32"), torch.float32),
    **dict.fromkeys(("float16", "fp16", "half"), torch.float16),
    **dict.fromkeys(("bfloat16", "bf16"), torch.bfloat16),
}
# Model types whose position ids start at padding_idx + 1 (RoBERTa-style learned positions).
POSITION_OFFSET_TYPES = frozenset(
    "roberta xlm-roberta xlm-roberta-xl camembert longformer roberta-prelayernorm data2vec-text mpnet "
    "ibert xmod luke".split()
)
Ids = tuple[int, ...]


def torch_dtype(name: str, role: str) -> torch.dtype:
    dtype = DTYPES.get(str(name).lower())
    if dtype is None:
        raise ConfigError(role, [Problem(field="runtime.precision", expected="one of float32, float16, bfloat16",
                                         found=repr(name), fix="set runtime.precision to fp32, fp16 or bf16")])
    return dtype


def max_tokens(tokenizer, config) -> int:
    """min(tokenizer.model_max_length, max_position_embeddings - RoBERTa-style offset)."""
    limits = [getattr(tokenizer, "model_max_length", None)]
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int):
        offset = (config.pad_token_id or 0) + 1 if config.model_type in POSITION_OFFSET_TYPES else 0
        limits.append(positions - offset)
    return min([x for x in limits if isinstance(x, int) and 0 < x < NO_LIMIT], default=NO_LIMIT)


def special_template(encode: Callable[[str, bool], Ids], what: str) -> tuple[Ids, Ids]:
    """The special tokens a tokenizer puts before and after the content, found by encoding a probe."""
    content, full = encode("hello world", False), encode("hello world", True)
    for start in range(len(full) - len(content) + 1):
        if full[start : start + len(content)] == content:
            return full[:start], full[start + len(content) :]
    raise ModelUnavailable(f"cannot find where the {what} tokenizer puts its special tokens")


def windows(ids: Ids, prefix: Ids, suffix: Ids, width: int) -> list[tuple[int, Ids]]:
    """(start, ids) of each window of a long text: `width` content tokens wrapped in the special tokens,
    one every width // 2 tokens, the last aligned to the end of the text."""
    content = ids[len(prefix) : len(ids) - len(suffix)]
    last = len(content) - width
    starts = sorted(set(range(0, last, max(1, width // 2))) | {last})
    return [(start, prefix + content[start : start + width] + suffix) for start in starts]


def padded_batches(sequences: Iterable[Ids], batch_size: int, pad_id: int,
                   max_positions: int = NO_LIMIT) -> list[tuple[Sequence[Ids], torch.Tensor, torch.Tensor]]:
    """(sequences, input_ids, attention_mask) batches, longest first, so padding stays small; each holds at
    most `batch_size` sequences and `max_positions` padded positions (`batching.position_budget`)."""
    order = sorted(dict.fromkeys(sequences), key=len, reverse=True)
    batches: list[tuple[Sequence[Ids], torch.Tensor, torch.Tensor]] = []
    for rows in budget_batches([len(s) for s in order], batch_size, max_positions):
        batch = order[rows.start : rows.stop]
        input_ids = torch.full((len(batch), len(batch[0])), pad_id, dtype=torch.long)
        mask = torch.zeros_like(input_ids)
        for row, seq in enumerate(batch):
            input_ids[row, : len(seq)], mask[row, : len(seq)] = torch.tensor(seq, dtype=torch.long), 1
        batches.append((batch, input_ids, mask))
    return batches


def prefix_space(tokenizer: Any) -> bool:
    """bert-score encodes GPT-2 and RoBERTa tokenizers with add_prefix_space=True."""
    if isinstance(tokenizer, wordpiece.WordPieceTokenizer):
        return False
    from transformers import GPT2Tokenizer, RobertaTokenizer

    return isinstance(tokenizer, (GPT2Tokenizer, RobertaTokenizer))


def bert_score_tokenizer(model_dir: str) -> Any:
    """bert-score's `AutoTokenizer.from_pretrained(dir, use_fast=False)`, by `gate.runtime.engines.wordpiece` where it
    reproduces it (transformers unimported), else by transformers (RoBERTa and GPT-2 with add_prefix_space=True)."""
    native = wordpiece.load(Path(model_dir))
    if native is not None:
        return native
    from transformers import AutoTokenizer

    quiet_transformers()
    tokenizer = AutoTokenizer.from_pretrained(model_dir, use_fast=False)
    if prefix_space(tokenizer) and not getattr(tokenizer, "add_prefix_space", False):
        # bert-score passes add_prefix_space=True to encode(); transformers 5 ignores it there
        tokenizer = AutoTokenizer.from_pretrained(model_dir, use_fast=False, add_prefix_space=True)
    return tokenizer
