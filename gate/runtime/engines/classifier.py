"""Sequence classification (a kind's detector, e.g. HEARTS's): softmax class probabilities per text.

The seed runs `softmax(model(**tokenizer(text, truncation=True, max_length=512)).logits)[1]`. We
tokenise exactly as `tokenizer(text)` does (special tokens added, an empty or whitespace text is
just the special tokens) but never truncate, run `AutoModelForSequenceClassification` in eval mode
on CPU or CUDA in fp32/fp16/bf16, and take the softmax of the logits in float32. A text within
`max_tokens` (special tokens included) is one forward pass, so its probability equals
`softmax(model(**tokenizer(text, return_tensors="pt")).logits)[0, label]`; `token_type_ids` are
left to the model's default (zeros, what the tokenizer gives for a single text).

Long texts: a text over `max_tokens` has its content tokens (those between the special tokens
`tokenizer(text)` adds) cut into overlapping windows of W = max_tokens - (number of special tokens)
tokens, one starting every W // 2 tokens (at least 1), the last aligned to the end of the text; each
window is wrapped in the same special tokens and classified on its own. The text's probability for a
label is the MAX over its windows (what the label flags anywhere in a long answer counts), and the text is
flagged as windowed. Being a per-label max, the probabilities of a windowed text need not sum to 1.

Each unique text is tokenised and classified once per classifier (its softmax vectors are memoised,
so asking for another label later forwards nothing), identical token sequences (texts or windows)
are forwarded once, and batches are sorted by token length so that padding stays small.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from gate.errors import ModelUnavailable
from gate.runtime.engines import batching, tokens
from gate.runtime.engines.fused import fuse_activations
from gate.runtime.engines.hf import quiet_transformers
from gate.runtime.engines.memo import WindowMemo
from gate.runtime.engines.progress import model_progress

_FIX = (
    "point the gate.yml field that names the classifier at a local directory holding a transformers "
    "sequence-classification model "
    "(config.json, weights and tokenizer files), or run `llm-gate models pull NAME` on a machine with network"
)
_LOAD_ERRORS = (OSError, ValueError, KeyError, TypeError)


class SequenceClassifier(WindowMemo[tuple[int, ...]]):
    """Softmax probabilities memoised per unique text for the classifier's lifetime; see the module docstring."""

    def __init__(self, tokenizer, model, *, device: str = "cpu", batch_size: int = 64, batch_tokens: int | None = None):
        super().__init__()
        self.tokenizer, self.model = tokenizer, model
        self.device, self.batch_size = torch.device(device), max(1, int(batch_size))
        self.max_positions = batching.position_budget(batch_tokens, self.device.type,
                                                    batching.hidden_width(model.config))
        self.id2label: dict[int, str] = {int(k): str(v) for k, v in model.config.id2label.items()}
        self.max_tokens = tokens.max_tokens(tokenizer, model.config)
        self._prefix, self._suffix = tokens.special_template(self._encode, "classifier")
        self.window = self.max_tokens - len(self._prefix) - len(self._suffix)
        if self.window < 1:
            raise ModelUnavailable(f"the classifier's limit of {self.max_tokens} tokens leaves no room for text")
        self.meter = batching.ForwardMeter()

    @classmethod
    def load(
        cls, model_dir: str, *, device: str = "cpu", dtype: str = "float32", batch_size: int = 64,
        batch_tokens: int | None = None,
    ) -> SequenceClassifier:
        tokenizer, model = load_checkpoint(model_dir, device=device, dtype=dtype, label="Sequence classifier",
                                           what="a sequence classifier", fix=_FIX)
        return cls(tokenizer, model, device=device, batch_size=batch_size, batch_tokens=batch_tokens)

    def _encode(self, text: str, special: bool = True) -> tuple[int, ...]:
        ids = self.tokenizer(text, add_special_tokens=special, truncation=False, verbose=False)["input_ids"]
        return tuple(int(i) for i in ids)

    def windows(self, text: str) -> list[tuple[int, ...]]:
        """The token sequences `text` is classified as: all of it, or its windows (module docstring)."""
        ids = self._encode(text)
        if len(ids) <= self.max_tokens:
            return [ids]
        prefix, suffix = ids[: len(self._prefix)], ids[len(ids) - len(self._suffix) :]
        return [seq for _, seq in tokens.windows(ids, prefix, suffix, self.window)]

    def probabilities(self, texts: Sequence[str], label: int) -> tuple[np.ndarray, np.ndarray]:
        """(softmax(logits)[label] per text as float64, windowed flag per text as bool), in input order."""
        if isinstance(label, bool) or label not in self.id2label:
            names = ", ".join(f"{k} ({v})" for k, v in sorted(self.id2label.items()))
            raise ValueError(f"label {label!r} is not one of the classifier's labels: {names}")
        self._classify(texts)
        results = [self._texts[t] for t in texts]
        probability = np.array([float(probs[:, label].max()) for probs, _ in results], dtype=np.float64)
        return probability, np.array([windowed for _, windowed in results], dtype=bool)

    def _classify(self, texts: Sequence[str]) -> None:
        plans = {t: self.windows(t) for t in dict.fromkeys(texts) if t not in self._texts}
        pending = dict.fromkeys(s for seqs in plans.values() for s in seqs if s not in self._sequences)
        batches = tokens.padded_batches(pending, self.batch_size, self.tokenizer.pad_token_id or 0, self.max_positions)
        with model_progress("Classifying", total=len(batches)) as bar, torch.inference_mode():
            for batch, input_ids, mask in batches:
                start = time.perf_counter()
                logits = self.model(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device)).logits
                probs = logits.float().softmax(dim=-1).cpu().numpy()
                self.meter.add(time.perf_counter() - start, mask)
                for seq, row in zip(batch, probs, strict=True):
                    self._sequences[seq] = row
                bar.advance()
        for text, seqs in plans.items():
            self._texts[text] = (np.stack([self._sequences[s] for s in seqs]), len(seqs) > 1)


def load_checkpoint(model_dir: str, *, device: str, dtype: str, label: str, what: str, fix: str) -> tuple:
    """A sequence-classification checkpoint's tokenizer and model, in eval mode on `device` in `dtype`; a missing
    directory, an unloadable checkpoint or one without its classification head is ModelUnavailable with `fix`.
    Shared by the classifier and the NLI engine (`label` and `what` name the engine in the errors)."""
    torch_dtype = tokens.torch_dtype(dtype, label)
    if not Path(model_dir).is_dir():
        raise ModelUnavailable(f"no model directory at {model_dir}", fix=fix)
    quiet_transformers()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        model, info = AutoModelForSequenceClassification.from_pretrained(str(model_dir), output_loading_info=True)
    except _LOAD_ERRORS as exc:
        raise ModelUnavailable(f"cannot load {what} from {model_dir}: {exc}", fix=fix) from exc
    prefix = f"{model.base_model_prefix}."
    head = sorted(k for k in info.get("missing_keys", ()) if not k.startswith(prefix))
    if head:  # e.g. a bare encoder: transformers would give it a randomly initialised head
        raise ModelUnavailable(f"{model_dir} is not a sequence-classification model: its checkpoint lacks the "
                               f"classification head ({', '.join(head)})", fix=fix)
    fuse_activations(model)
    model.eval().to(device=device, dtype=torch_dtype)
    return tokenizer, model
