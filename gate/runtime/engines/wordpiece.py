"""transformers 5's `BertTokenizer`, built from tokenizer.json with the `tokenizers` library alone.

Importing transformers costs ~0.55 s of every process that loads a model (its package builds a lazy-import table by
reading ~3,300 files). In transformers 5 `BertTokenizer` (and `BertTokenizerFast`, the same class) *is* a
`tokenizers.Tokenizer` (`transformers.models.bert.tokenization_bert`): WordPiece over the checkpoint's vocabulary with
`[UNK]`-style unknown token, `##` continuation and words of at most 100 characters; a BertNormalizer with the
config's `do_lower_case`, `strip_accents` and `tokenize_chinese_chars`; a BertPreTokenizer; the tokenizer.json's added
tokens with their flags; the post-processor `[CLS] $A [SEP]`; special tokens matched in the raw text. `load` reads
tokenizer.json with `tokenizers` directly when it already is exactly that tokenizer and the config holds nothing
else transformers would act on, and gives the few methods the engines call (`encode`, `__call__` for a batch,
the special tokens' ids, `model_max_length`); everything else — another class, an unknown config key, added tokens
beyond the special ones, transformers 4 (whose `use_fast=False` BERT tokenizer is Python code of its own) — returns
None and loads through transformers as before. Token ids equal `AutoTokenizer.from_pretrained(dir)`'s on every
text (`tests/runtime/engines/test_wordpiece.py`, thousands of generated texts).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gate import io

TOKENIZER = "tokenizer.json"
_CLASSES = {"BertTokenizer", "BertTokenizerFast"}
_NAMED = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
          "mask_token": "[MASK]"}  # BertTokenizer's defaults
# tokenizer_config.json keys with the only values under which transformers tokenizes as described above (None: any).
_INERT: dict[str, tuple[Any, ...] | None] = {
    "do_basic_tokenize": (True,), "never_split": (None,), "padding_side": ("right",), "truncation_side": ("right",),
    "split_special_tokens": (False,), "additional_special_tokens": ([],), "extra_special_tokens": ([], {}),
    "name_or_path": None, "tokenizer_class": None, "clean_up_tokenization_spaces": None,
    "special_tokens_map_file": None, "model_max_length": None, "model_input_names": None, "do_lower_case": None,
    "tokenize_chinese_chars": None, "strip_accents": None, "added_tokens_decoder": None, "backend": ("tokenizers",),
    "is_local": None, "local_files_only": None, **dict.fromkeys(_NAMED)}  # the last three: transformers 5's saves
_LARGE = int(1e30)  # transformers' VERY_LARGE_INTEGER: no model_max_length in the config


class WordPieceTokenizer:
    """A `tokenizers.Tokenizer` with the special tokens and limits transformers' BertTokenizer gives it."""

    def __init__(self, backend: Any, special: dict[str, str], model_max_length: int) -> None:
        from tokenizers import processors

        self._backend = backend
        self.model_max_length = model_max_length
        self.unk_token, self.sep_token, self.pad_token, self.cls_token, self.mask_token = (
            special[k] for k in _NAMED)
        self.unk_token_id, self.sep_token_id, self.pad_token_id, self.cls_token_id, self.mask_token_id = (
            backend.token_to_id(special[k]) for k in _NAMED)
        self.all_special_tokens = list(dict.fromkeys(special[k] for k in _NAMED))
        backend.post_processor = processors.TemplateProcessing(
            single=f"{self.cls_token}:0 $A:0 {self.sep_token}:0",
            pair=f"{self.cls_token}:0 $A:0 {self.sep_token}:0 $B:1 {self.sep_token}:1",
            special_tokens=[(self.cls_token, self.cls_token_id), (self.sep_token, self.sep_token_id)])
        backend.encode_special_tokens = False
        backend.no_truncation()
        backend.no_padding()

    def __len__(self) -> int:
        return int(self._backend.get_vocab_size(with_added_tokens=True))

    def encode(self, text: str, add_special_tokens: bool = True, verbose: bool = False) -> list[int]:
        """`tokenizer.encode(text, add_special_tokens=…)`: never truncated."""
        return list(self._backend.encode(text, add_special_tokens=add_special_tokens).ids)

    def __call__(self, texts: str | Sequence[str], *, padding: bool = False, truncation: bool | str = False,
                 max_length: int | None = None, return_tensors: str | None = None,
                 verbose: bool = False) -> dict[str, Any]:
        """`tokenizer(texts, padding=…, truncation=…, max_length=…, return_tensors=None | "pt")` for one text or a
        batch of single texts: input_ids, token_type_ids and attention_mask, padded on the right to the longest
        (`padding=True`), cut on the right to `max_length` (`truncation=True` or "longest_first")."""
        if isinstance(texts, str):  # one text: its lists, not a batch of one
            if return_tensors is not None:
                raise ValueError("return_tensors needs a batch")
            one = self([texts], padding=padding, truncation=truncation, max_length=max_length)
            return {name: rows[0] for name, rows in one.items()}
        if truncation not in (False, True, "longest_first", "do_not_truncate") or padding not in (False, True):
            raise ValueError(f"unsupported truncation={truncation!r} or padding={padding!r}")
        backend = self._backend
        if truncation in (True, "longest_first"):
            if max_length is None:
                raise ValueError("truncation needs max_length")  # transformers' default is not reproduced
            backend.enable_truncation(max_length, stride=0, strategy="longest_first", direction="right")
        if padding:
            backend.enable_padding(direction="right", pad_id=self.pad_token_id, pad_type_id=0,
                                   pad_token=self.pad_token)
        try:
            encodings = backend.encode_batch(list(texts), add_special_tokens=True)
        finally:
            backend.no_truncation()
            backend.no_padding()
        features = {"input_ids": [e.ids for e in encodings], "token_type_ids": [e.type_ids for e in encodings],
                    "attention_mask": [e.attention_mask for e in encodings]}
        if return_tensors is None:
            return features
        if return_tensors != "pt":
            raise ValueError(f"unsupported return_tensors={return_tensors!r}")
        import torch

        return {name: torch.tensor(rows, dtype=torch.long) for name, rows in features.items()}


def load(model_dir: Path) -> WordPieceTokenizer | None:
    """The tokenizer at `model_dir` if it is transformers 5's BertTokenizer as the module docstring describes, else
    None (transformers loads it)."""
    try:
        if int(importlib.metadata.version("transformers").split(".")[0]) < 5:
            return None
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None
    config = io.read_json_quiet(model_dir / "tokenizer_config.json")
    special = _special_tokens(model_dir, config)
    if special is None or not isinstance(config, dict) or (model_dir / "added_tokens.json").exists():
        return None
    try:
        backend = io.read_binary(model_dir / TOKENIZER, _parse)
    except (OSError, ValueError):
        return None
    if backend is None or not _is_bert_tokenizer(backend, config, special):
        return None
    limit = config.get("model_max_length", _LARGE)
    limit = limit if isinstance(limit, int) and not isinstance(limit, bool) else _LARGE
    return WordPieceTokenizer(backend, special, limit)


def _parse(stream: Any) -> Any:
    from tokenizers import Tokenizer

    try:
        return Tokenizer.from_str(stream.read().decode("utf-8"))
    except Exception:  # noqa: BLE001 -- tokenizers raises its own Exception subclass for any bad file
        return None


def _special_tokens(model_dir: Path, config: Any) -> dict[str, str] | None:
    """The five named special tokens, from tokenizer_config.json and (without `added_tokens_decoder`, as transformers
    reads it) special_tokens_map.json; None for a config outside `_INERT` or tokens that are not plain strings."""
    if not isinstance(config, dict) or config.get("tokenizer_class") not in _CLASSES:
        return None
    for key, value in config.items():
        allowed = _INERT.get(key, ())
        if key not in _INERT or (allowed is not None and value not in allowed):  # another key, or another value
            return None
    special = {k: config.get(k, default) for k, default in _NAMED.items()}
    if "added_tokens_decoder" not in config and (model_dir / "special_tokens_map.json").exists():
        overrides = io.read_json_quiet(model_dir / "special_tokens_map.json")
        if not isinstance(overrides, dict) or set(overrides) - set(_NAMED):
            return None
        for key, value in overrides.items():
            special[key] = value.get("content") if isinstance(value, dict) else value
    return special if all(isinstance(v, str) and v for v in special.values()) else None


def _is_bert_tokenizer(backend: Any, config: dict[str, Any], special: dict[str, str]) -> bool:
    """Whether tokenizer.json is what BertTokenizer builds from it and `config` (see the module docstring)."""
    from tokenizers import normalizers, pre_tokenizers
    from tokenizers.models import WordPiece

    model, normalizer = backend.model, backend.normalizer
    if not (isinstance(model, WordPiece) and model.unk_token == special["unk_token"]
            and model.continuing_subword_prefix == "##" and model.max_input_chars_per_word == 100):
        return False
    if not (isinstance(normalizer, normalizers.BertNormalizer) and normalizer.clean_text
            and normalizer.handle_chinese_chars == config.get("tokenize_chinese_chars", True)
            and normalizer.strip_accents == config.get("strip_accents")
            and normalizer.lowercase == config.get("do_lower_case", True)
            and isinstance(backend.pre_tokenizer, pre_tokenizers.BertPreTokenizer)):
        return False
    added = backend.get_added_tokens_decoder()
    vocab = backend.get_vocab(with_added_tokens=False)
    if {token.content for token in added.values()} != set(special.values()):
        return False  # tokens beyond the special ones, or a special token transformers would add itself
    if any(not token.special or vocab.get(token.content) != index for index, token in added.items()):
        return False
    declared = config.get("added_tokens_decoder")
    return declared is None or _same_added(declared, added)


def _same_added(declared: Any, added: dict[int, Any]) -> bool:
    """Whether tokenizer_config.json's `added_tokens_decoder` (which transformers then uses) lists tokenizer.json's."""
    flags = ("content", "lstrip", "rstrip", "single_word", "normalized", "special")
    if not isinstance(declared, dict) or set(declared) != {str(i) for i in added}:
        return False
    return all(isinstance(declared[str(i)], dict)
               and all(declared[str(i)].get(f) == getattr(token, f) for f in flags) for i, token in added.items())
