"""BERTScore by our own engine, validated against the `bert-score` package (0.3.13).

Unlike `bert_score.score`, each unique text is encoded once per engine and its token states are reused
across calls, batches are sorted by token length, the model runs on CPU or CUDA in fp32/fp16/bf16,
and texts over the model's limit are windowed instead of silently truncated.

Same as bert-score (equal within 1e-4 for texts within the limit): tokenization as `sent_encode` (strip; empty ->
special tokens only; RoBERTa/GPT-2 get `add_prefix_space=True`, set when the tokenizer is created because
transformers 5 ignores it as an `encode` argument; `use_fast=False`), minus truncation; the model as `get_model`
(AutoModel, or for a plain BERT `gate.runtime.engines.bert`: the same forward pass; eval, the encoder of an
encoder-decoder, the first `layer` layers); weights 1 with CLS/SEP 0, or `get_idf_dict` idf log((N+1)/(df+1)) over
the idf corpus (unseen tokens log(N+1)); greedy cosine matching `greedy_cos_idf` (CLS/SEP take part in the max, P/R
are weight-normalised means of the best matches, F = 2PR/(P+R)); an empty candidate or reference gives P = R = F =
0; a NaN F becomes 0; rescaling is (x - b) / (1 - b). One deviation: bert-score multiplies padded similarities by 0,
so in a padded batch a token whose best cosine is negative gets 0 (batch-dependent); we mask padding out of the max.

Long texts: a text over `max_tokens` (special tokens included) has its content tokens encoded in
overlapping windows of W = max_tokens - (number of special tokens) tokens, each wrapped in the special
tokens, one starting every W // 2 tokens, the last aligned to the end of the text. Each content token
takes its state from the window in which it is farthest from a window edge (ties: the earlier
window), so it sees at least W // 4 tokens of context on each side unless it is near an end of the
text; the leading special token(s) come from the first window, the trailing one(s) from the last.
Pairs with such a text are flagged in `RawBertScores.windowed`.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gate.errors import ConfigError, ModelUnavailable, Problem
from gate.runtime.engines import batching, heap, tokens
from gate.runtime.engines.bert import native_or_auto
from gate.runtime.engines.fused import fuse_activations
from gate.runtime.engines.progress import model_progress
from gate.runtime.engines.scores import RawBertScores  # defined without torch, for the cached runs' replay


def _config_error(title: str, **problem) -> ConfigError:
    return ConfigError(title, [Problem(**problem)])


def greedy_cos_idf(cand, cand_mask, cand_weight, ref, ref_mask, ref_weight, empty):
    """Greedy cosine matching of padded batches (pure; float32 math whatever the input dtype).

    Tensors: cand (B, Lc, D) token states, cand_mask (B, Lc) bool, cand_weight (B, Lc) idf weights
    (0 on padding); likewise ref; empty (B,) bool: the pair has an empty side. Returns (P, R, F),
    each (B,).
    """
    cand, ref = cand.float(), ref.float()
    cand, ref = cand / cand.norm(dim=-1, keepdim=True), ref / ref.norm(dim=-1, keepdim=True)
    sim = torch.bmm(cand, ref.transpose(1, 2))
    valid = cand_mask.unsqueeze(2) & ref_mask.unsqueeze(1)
    sim = sim.masked_fill(~valid, float("-inf"))  # bert-score: 0 (see the module docstring)
    word_precision = sim.max(dim=2).values.masked_fill(~cand_mask, 0.0)
    word_recall = sim.max(dim=1).values.masked_fill(~ref_mask, 0.0)
    cand_weight = cand_weight.float() / cand_weight.float().sum(dim=1, keepdim=True)
    ref_weight = ref_weight.float() / ref_weight.float().sum(dim=1, keepdim=True)
    precision = (word_precision * cand_weight).sum(dim=1)
    recall = (word_recall * ref_weight).sum(dim=1)
    f1 = 2 * precision * recall / (precision + recall)
    f1 = f1.masked_fill(empty | torch.isnan(f1), 0.0)
    return precision.masked_fill(empty, 0.0), recall.masked_fill(empty, 0.0), f1


def idf_weights(corpus_token_ids: Sequence[Sequence[int]]) -> tuple[dict[int, float], float]:
    """bert-score's `get_idf_dict`: (idf per token id, idf of a token never seen in the corpus)."""
    counts: Counter[int] = Counter()
    for ids in corpus_token_ids:
        counts.update(set(ids))
    n = len(corpus_token_ids)
    return {tok: math.log((n + 1) / (c + 1)) for tok, c in counts.items()}, math.log(n + 1)


def _find_layers(model: Any) -> tuple[int, Callable[[int], None]]:
    """(total layers, function keeping the first k), following bert-score's `get_model` branches."""
    enc = getattr(model, "encoder", None)
    if hasattr(model, "n_layers"):  # xlm
        return model.n_layers, lambda k: setattr(model, "n_layers", k)
    if enc is not None and hasattr(enc, "albert_layer_groups"):
        return enc.config.num_hidden_layers, lambda k: setattr(enc.config, "num_hidden_layers", k)
    # xlnet; t5; bert, roberta, deberta; distilbert; bart encoder; t5 encoder stack
    owners = [
        (model, "layer"),
        (enc, "block"),
        (enc, "layer"),
        (getattr(model, "transformer", None), "layer"),
    ]
    for owner, attr in [*owners, (model, "layers"), (model, "block")]:
        if owner is not None and hasattr(owner, attr):
            layers = list(getattr(owner, attr))
            return len(layers), lambda k, o=owner, a=attr, ls=layers: setattr(
                o, a, torch.nn.ModuleList(ls[:k])
            )
    raise ModelUnavailable(f"BERTScore does not support the architecture {type(model).__name__}")


class BertScoreEngine:
    """Token states memoized per unique text until `release`d; see the module docstring."""

    def __init__(self, tokenizer, model, *, layer: int, num_layers: int, device: str, batch_size: int,
                 batch_tokens: int | None = None):
        self.tokenizer, self.model, self.layer, self.num_layers = tokenizer, model, layer, num_layers
        self.max_tokens = tokens.max_tokens(tokenizer, model.config)
        self.device, self.batch_size = torch.device(device), max(1, int(batch_size))
        self.max_positions = batching.position_budget(batch_tokens, self.device.type,
                                                    batching.hidden_width(model.config))
        self._kwargs = {"verbose": False}
        if tokens.prefix_space(tokenizer):
            self._kwargs["add_prefix_space"] = True
        self._prefix, self._suffix = self._special_template()
        self.window = self.max_tokens - len(self._prefix) - len(self._suffix)
        if self.window < 1:
            raise ModelUnavailable(f"the model's limit of {self.max_tokens} tokens leaves no room for text")
        self._ids: dict[str, tuple[int, ...]] = {}
        self._states: dict[tuple[int, ...], torch.Tensor] = {}  # all ids -> (L, D) float32 on CPU
        self._forwarded = 0  # unique token sequences forwarded, released ones included
        self._zero_weight = {t for t in (tokenizer.cls_token_id, tokenizer.sep_token_id) if t is not None}
        self.meter = batching.ForwardMeter()

    @classmethod
    def load(
        cls, model_dir: str, *, layer: int, device: str = "cpu", dtype: str = "float32", batch_size: int = 64,
        batch_tokens: int | None = None,
    ) -> BertScoreEngine:
        torch_dtype = tokens.torch_dtype(dtype, "BERTScore model")
        try:
            tokenizer = tokens.bert_score_tokenizer(str(model_dir))
            model = native_or_auto(Path(model_dir))
        except OSError as exc:
            raise ModelUnavailable(
                f"cannot load the BERTScore model from {model_dir}: {exc}",
                fix="run `llm-gate models pull` or point models.bertscore.model at a local model directory",
            ) from exc
        if hasattr(model, "decoder") and hasattr(model, "encoder"):
            model = model.encoder
        total, keep_first = _find_layers(model)
        if not isinstance(layer, int) or isinstance(layer, bool) or not 0 <= layer <= total:
            raise _config_error("BERTScore model", field="models.bertscore.layer", found=repr(layer),
                                expected=f"an integer from 0 to {total} for {model_dir}",
                                fix=f"set models.bertscore.layer to a layer between 0 and {total}")
        keep_first(layer)
        fuse_activations(model)
        model.to(device=device, dtype=torch_dtype)
        return cls(tokenizer, model, layer=layer, num_layers=total, device=device, batch_size=batch_size,
                   batch_tokens=batch_tokens)

    def _content_ids(self, text: str) -> tuple[int, ...]:
        text = text.strip()
        return tuple(self.tokenizer.encode(text, add_special_tokens=False, **self._kwargs)) if text else ()

    def _special_template(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        def encode(text: str, special: bool) -> tuple[int, ...]:
            return tuple(self.tokenizer.encode(text, add_special_tokens=special, **self._kwargs))

        return tokens.special_template(encode, "BERTScore")

    def token_ids(self, text: str) -> tuple[int, ...]:
        """All token ids of `text`, special tokens included, never truncated."""
        if text not in self._ids:
            self._ids[text] = self._prefix + self._content_ids(text) + self._suffix
        return self._ids[text]

    def encode_count(self) -> int:
        """How many unique texts (unique token sequences) have been forwarded so far (again after a release)."""
        return self._forwarded

    def held(self) -> int:
        """How many texts' token states the engine holds now."""
        return len(self._states)

    def release(self, texts: Sequence[str]) -> None:
        """Forget the token states of `texts` (1.5 KB a token at d = 384): a run releases each block's once its
        pairs are scored (`gate.runtime.work.execute`), so it holds one block's states, not every text's."""
        for ids in map(self.token_ids, texts):
            self._states.pop(ids, None)
        heap.return_freed_memory()  # else malloc keeps them, and the next block's states fit its holes badly

    def token_states(self, text: str) -> np.ndarray:
        """The (tokens, hidden) float32 states of `text` at `layer`, encoding it if needed."""
        self._encode([text])
        return self._states[self.token_ids(text)].numpy().copy()

    def encode_block(self, texts: Sequence[str]) -> None:
        """Encode exactly `texts`, in one call, even those seen before (sharded runs, `gate.runtime.work.execute`).

        A text's states depend on its batch mates in the last bits; forgetting the memoised states first makes
        them a function of this block alone, whatever the engine encoded earlier.
        """
        for ids in map(self.token_ids, texts):
            self._states.pop(ids, None)
        heap.return_freed_memory()  # else malloc keeps them, and the next block's states fit its holes badly
        self._encode(texts)

    def adopt_states(self, text: str, states: np.ndarray) -> None:
        """Take `text`'s token states from the persistent cache instead of encoding it."""
        self._states[self.token_ids(text)] = torch.from_numpy(np.ascontiguousarray(states, dtype=np.float32))

    def fits(self, text: str, states: np.ndarray) -> bool:
        """Whether cached `states` can be `text`'s: one row per token, the model's width."""
        width = batching.hidden_width(self.model.config)
        return states.ndim == 2 and states.shape[0] == len(self.token_ids(text)) and (
            width is None or states.shape[1] == width)

    def _windows(self, ids: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
        """(start, ids) of each window of a long text, in order."""
        return tokens.windows(ids, self._prefix, self._suffix, self.window)

    def _encode(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(ids for ids in map(self.token_ids, texts) if ids not in self._states))
        needed: dict[tuple[int, ...], None] = {}  # the texts and windows to encode, in order, once each
        for ids in todo:
            windows = [w for _, w in self._windows(ids)] if len(ids) > self.max_tokens else [ids]
            needed.update(dict.fromkeys(windows))
        sequences: dict[tuple[int, ...], torch.Tensor] = {}
        batches = tokens.padded_batches(needed, self.batch_size, self.tokenizer.pad_token_id or 0,
                                        self.max_positions)
        with model_progress("BERTScore: encoding", total=len(batches)) as bar, torch.inference_mode():
            for batch, input_ids, mask in batches:
                start = time.perf_counter()
                out = self.model(input_ids.to(self.device), attention_mask=mask.to(self.device))[0]
                out = out.float().cpu()  # waits for the device, so the meter times the forward pass
                self.meter.add(time.perf_counter() - start, mask)
                for row, seq in enumerate(batch):
                    sequences[seq] = out[row, : len(seq)].clone()
                bar.advance()
        self._forwarded += len(todo)
        for ids in todo:
            self._states[ids] = (
                sequences[ids] if len(ids) <= self.max_tokens else self._stitch(ids, sequences)
            )

    def _stitch(self, ids: tuple[int, ...], sequences: dict[tuple[int, ...], torch.Tensor]) -> torch.Tensor:
        p, w = len(self._prefix), self.window
        windows = self._windows(ids)
        position = np.arange(len(ids) - p - len(self._suffix))
        best, chosen = np.full(len(position), -1), np.zeros(len(position), dtype=int)
        for k, (st, _) in enumerate(windows):
            inside = (position >= st) & (position < st + w)
            distance = np.where(inside, np.minimum(position - st, st + w - 1 - position), -1)
            better = distance > best  # strict: ties keep the earlier window
            best, chosen = np.where(better, distance, best), np.where(better, k, chosen)
        states = [sequences[seq] for _, seq in windows]
        rows = [states[k][p + i - windows[k][0]] for i, k in enumerate(chosen)]
        return torch.cat([states[0][:p], torch.stack(rows), states[-1][p + w :]])

    def score(
        self, candidates: Sequence[str], references: Sequence[str], *, idf_corpus: Sequence[str] | None = None
    ) -> RawBertScores:
        """Per-pair P, R, F; `idf_corpus=None` means no idf, a sequence means idf computed from it."""
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        if idf_corpus is not None and len(idf_corpus) == 0:
            raise ValueError("idf_corpus is empty; pass None to score without idf")
        idf, unseen = idf_weights([self.token_ids(t) for t in idf_corpus]) if idf_corpus is not None else ({}, 1.0)
        idf.update(dict.fromkeys(self._zero_weight, 0.0))
        self._encode([*candidates, *references])
        cands, refs = [self.token_ids(t) for t in candidates], [self.token_ids(t) for t in references]
        special, n = len(self._prefix) + len(self._suffix), len(cands)
        result = np.zeros((3, n), dtype=np.float64)
        order = sorted(range(n), key=lambda i: max(len(cands[i]), len(refs[i])), reverse=True)
        with torch.inference_mode():
            for b in range(0, n, self.batch_size):
                idx = order[b : b + self.batch_size]
                empty = torch.tensor([special in (len(cands[i]), len(refs[i])) for i in idx])
                args = (
                    *self._pad([cands[i] for i in idx], idf, unseen),
                    *self._pad([refs[i] for i in idx], idf, unseen),
                )
                scores = greedy_cos_idf(*(t.to(self.device) for t in (*args, empty)))
                result[:, idx] = torch.stack(scores).cpu().double().numpy()
        windowed = np.array([max(len(c), len(r)) > self.max_tokens for c, r in zip(cands, refs, strict=True)], bool)
        return RawBertScores(result[0], result[1], result[2], windowed)

    def _pad(self, seqs: list[tuple[int, ...]], idf: dict[int, float], unseen: float):
        """Padded (states, mask, weights) of memoized texts; padding has weight 0 and is masked."""
        width, dim = max(map(len, seqs)), self._states[seqs[0]].shape[-1]
        emb = torch.ones((len(seqs), width, dim))
        mask = torch.zeros((len(seqs), width), dtype=torch.bool)
        weight = torch.zeros((len(seqs), width))
        for row, seq in enumerate(seqs):
            emb[row, : len(seq)], mask[row, : len(seq)] = self._states[seq], True
            weight[row, : len(seq)] = torch.tensor([idf.get(t, unseen) for t in seq])
        return emb, mask, weight
