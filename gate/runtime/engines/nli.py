"""Natural-language inference: a sequence-pair classifier's softmax per (premise, hypothesis) pair.

A pair within `max_tokens` (special tokens included) is tokenised exactly as `tokenizer(premise, hypothesis)`
does (its `token_type_ids` too, where the tokenizer gives them) and forwarded once, so its probabilities equal
`softmax(AutoModelForSequenceClassification(**tokenizer(premise, hypothesis, return_tensors="pt")).logits)`;
never truncated silently. Over the limit, the PREMISE is cut into overlapping windows of W content tokens, one
starting every W // 2 tokens, the last aligned to the premise's end, each window paired with the whole
hypothesis inside the same special tokens (W = the limit minus the special tokens minus the hypothesis; a
hypothesis longer than half the room is cut to that half, and the pair is flagged either way). The pair's answer
is the window with the largest entailment probability (`gate.runtime.engines.entailment`): a claim counts as
supported when any window of its contexts entails it.

Pairs are keyed as one text (`entailment.pair_text`), so execution, the store, the cache and shards treat this
engine as they treat the classifier (`classify_block`, `adopt`, `fits`, `softmax_windows`): each unique pair
is forwarded once per model, identical token sequences once, in batches sorted by length.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from gate.errors import ModelUnavailable
from gate.runtime.engines import batching, tokens
from gate.runtime.engines.classifier import load_checkpoint
from gate.runtime.engines.entailment import NLI_FIX, entailment_labels, split_pair
from gate.runtime.engines.memo import WindowMemo
from gate.runtime.engines.progress import model_progress

_LOAD_ERRORS = (OSError, ValueError, KeyError, TypeError)
Seq = tuple[tuple[int, ...], tuple[int, ...]]  # (input ids, token type ids; () where the tokenizer gives none)


class PairClassifier(WindowMemo[Seq]):
    """Softmax windows memoised per unique pair for the engine's lifetime; see the module docstring."""

    def __init__(self, tokenizer, model, *, device: str = "cpu", batch_size: int = 64,
                 batch_tokens: int | None = None, where: str = "config.json"):
        super().__init__()
        self.tokenizer, self.model = tokenizer, model
        self.device, self.batch_size = torch.device(device), max(1, int(batch_size))
        self.max_positions = batching.position_budget(batch_tokens, self.device.type,
                                                    batching.hidden_width(model.config))
        self.id2label: dict[int, str] = {int(k): str(v) for k, v in model.config.id2label.items()}
        self.labels = entailment_labels(self.id2label, where)
        self.max_tokens = tokens.max_tokens(tokenizer, model.config)
        self._template, self._types = self._probe()
        self.meter = batching.ForwardMeter()

    @classmethod
    def load(cls, model_dir: str, *, device: str = "cpu", dtype: str = "float32", batch_size: int = 64,
             batch_tokens: int | None = None) -> PairClassifier:
        tokenizer, model = load_checkpoint(model_dir, device=device, dtype=dtype, label="NLI model",
                                           what="a sequence-pair classifier", fix=NLI_FIX)
        return cls(tokenizer, model, device=device, batch_size=batch_size, batch_tokens=batch_tokens,
                   where=str(Path(model_dir) / "config.json"))

    # ------------------------------------------------------------ tokenising

    def _pair(self, premise: str, hypothesis: str | None = None, special: bool = True) -> Seq:
        encoded = self.tokenizer(premise, hypothesis, add_special_tokens=special, truncation=False, verbose=False)
        ids = tuple(int(i) for i in encoded["input_ids"])
        types = tuple(int(t) for t in encoded.get("token_type_ids") or ())
        return ids, types

    def _probe(self) -> tuple[tuple[Seq, Seq, Seq], tuple[tuple[int, ...], tuple[int, ...]]]:
        """The special tokens (and their type ids) before, between and after the two texts of a pair, and the
        type id of each text's tokens (() where the tokenizer gives none)."""
        first, second = self._pair("hello world", special=False)[0], self._pair("good day", special=False)[0]
        ids, types = self._pair("hello world", "good day")
        for a in range(len(ids) - len(first) + 1):
            if ids[a: a + len(first)] != first:
                continue
            for b in range(a + len(first), len(ids) - len(second) + 1):
                if ids[b: b + len(second)] == second:
                    cut = (0, a, a + len(first), b, b + len(second), len(ids))
                    parts = [(ids[cut[i]:cut[i + 1]], types[cut[i]:cut[i + 1]]) for i in range(0, 6, 2)]
                    kinds = (types[a:a + 1], types[b:b + 1]) if types else ((), ())
                    return (parts[0], parts[1], parts[2]), kinds
        raise ModelUnavailable("cannot find where the NLI tokenizer puts its special tokens around a pair",
                               fix=NLI_FIX)

    def windows(self, text: str) -> list[Seq]:
        """The sequences a pair text is classified as: the whole pair, or its premise's windows (module doc)."""
        premise, hypothesis = split_pair(text)
        whole = self._pair(premise, hypothesis)
        if len(whole[0]) <= self.max_tokens:
            return [whole]
        (pre, pre_t), (mid, mid_t), (post, post_t) = self._template
        first_t, second_t = self._types
        room = self.max_tokens - len(pre) - len(mid) - len(post)
        if room < 2:
            raise ModelUnavailable(f"the NLI model's limit of {self.max_tokens} tokens leaves no room for a pair",
                                   fix=NLI_FIX)
        p_ids, h_ids = self._pair(premise, special=False)[0], self._pair(hypothesis, special=False)[0]
        h_ids = h_ids[: max(room - len(p_ids), room // 2)]
        width = room - len(h_ids)
        starts = [0] if len(p_ids) <= width else [s for s, _ in tokens.windows(p_ids, (), (), width)]
        out = []
        for start in starts:
            chunk = p_ids[start:start + width]
            ids = pre + chunk + mid + h_ids + post
            types = (pre_t + first_t * len(chunk) + mid_t + second_t * len(h_ids) + post_t) if first_t else ()
            out.append((ids, types))
        return out

    # ------------------------------------------------------------ the engine interface of execute

    def probabilities(self, texts: Sequence[str]) -> tuple[list[np.ndarray], list[bool]]:
        """(softmax per window, windowed) per pair text, in input order."""
        self._classify(texts)
        return [self._texts[t][0] for t in texts], [self._texts[t][1] for t in texts]

    def _over(self, text: str) -> bool:
        """Whether the pair is over the limit (windowed, or its hypothesis cut): flagged even as one sequence."""
        return len(self._pair(*split_pair(text))[0]) > self.max_tokens

    def _classify(self, texts: Sequence[str]) -> None:
        plans = {t: self.windows(t) for t in dict.fromkeys(texts) if t not in self._texts}
        pending = sorted(dict.fromkeys(s for seqs in plans.values() for s in seqs if s not in self._sequences),
                         key=lambda s: len(s[0]), reverse=True)
        pad = self.tokenizer.pad_token_id or 0
        spans = batching.budget_batches([len(s[0]) for s in pending], self.batch_size, self.max_positions)
        with model_progress("Inferring entailment", total=len(spans)) as bar, torch.inference_mode():
            for rows in spans:
                batch = pending[rows.start: rows.stop]
                ids = torch.full((len(batch), len(batch[0][0])), pad, dtype=torch.long)
                mask, types = torch.zeros_like(ids), torch.zeros_like(ids)
                for row, (seq, seq_types) in enumerate(batch):
                    ids[row, :len(seq)], mask[row, :len(seq)] = torch.tensor(seq, dtype=torch.long), 1
                    if seq_types:
                        types[row, :len(seq)] = torch.tensor(seq_types, dtype=torch.long)
                extra = {"token_type_ids": types.to(self.device)} if batch[0][1] else {}
                start = time.perf_counter()
                logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                    **extra).logits
                probs = logits.float().softmax(dim=-1).cpu().numpy()
                self.meter.add(time.perf_counter() - start, mask)
                for item, row_probs in zip(batch, probs, strict=True):
                    self._sequences[item] = row_probs
                bar.advance()
        for text, seqs in plans.items():
            self._texts[text] = (np.stack([self._sequences[s] for s in seqs]), len(seqs) > 1 or self._over(text))
