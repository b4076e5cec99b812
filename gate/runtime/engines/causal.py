"""A local Hugging Face causal LM as a generation provider's engine (`gate.generate.providers.local`).

Decoding is a plain loop over the model's key/value cache, so what is reported is exactly what was computed:
greedy (temperature 0) or sampled (temperature, top-p) from a `torch.Generator` seeded per call, and for every
generated token its log-probability under the model, log_softmax of the raw logits at that position (temperature
and top-p shape the choice, not the reported probability: the stability seed's answer probability P is the model's
own). The end-of-sequence token ends the text and is not reported; a stop sequence cuts the text before it, and
the tokens that reached into it are not reported either. CUDA when present (`device="auto"`), else the CPU; fp32.
Loaded from a local directory only (never `trust_remote_code`); the model version is its weights' digest.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from gate.errors import ModelUnavailable

_WEIGHTS = (".safetensors", ".bin")


@dataclass(frozen=True)
class CausalGeneration:
    text: str
    tokens: tuple[tuple[str, float], ...]  # (token text, log-probability) per reported generated token
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (end of sequence or a stop sequence) | "length"
    model_version: str


class CausalLM:
    def __init__(self, path: str | Path, *, device: str = "auto", name: str | None = None):
        directory = Path(path)
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
            self._model = AutoModelForCausalLM.from_pretrained(str(directory), local_files_only=True,
                                                               dtype=torch.float32)
        except (OSError, ValueError) as exc:
            raise ModelUnavailable(f"the causal LM {directory} cannot be loaded: {exc}") from exc
        self.device = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        self._model.eval().to(device=self.device)
        self._max_positions = int(getattr(self._model.config, "n_positions", None)
                                  or getattr(self._model.config, "max_position_embeddings", 0) or 1 << 30)
        self.model_version = f"{name or directory.name}@{_digest(directory)}"
        self._lock = threading.Lock()

    def generate(self, prompt: str | None, messages: Sequence[tuple[str, str]], *, max_new_tokens: int,
                 temperature: float = 0.0, top_p: float | None = None, seed: int | None = None,
                 stop: Sequence[str] = ()) -> CausalGeneration:
        with self._lock, torch.inference_mode():
            ids = self._encode(prompt, messages)
            return self._decode(ids, max_new_tokens, temperature, top_p, seed or 0, tuple(stop))

    def _encode(self, prompt: str | None, messages: Sequence[tuple[str, str]]) -> list[int]:
        tok = self._tokenizer
        raw: Any
        if prompt is None and getattr(tok, "chat_template", None):
            chat = [{"role": r, "content": c} for r, c in messages]
            raw = tok.apply_chat_template(chat, add_generation_prompt=True, tokenize=True)
            raw = raw["input_ids"] if hasattr(raw, "keys") else raw
        else:
            text = prompt if prompt is not None else "\n".join(c for _, c in messages)
            raw = tok(text, add_special_tokens=True)["input_ids"]
        ids = [int(i) for i in raw]
        if not ids:
            bos = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
            if bos is None:
                raise ValueError("an empty prompt, and the tokenizer has no beginning-of-sequence token")
            ids = [int(bos)]
        return ids

    def _text(self, ids: list[int], special: bool = False) -> str:
        return str(self._tokenizer.decode(ids, skip_special_tokens=not special))

    def _decode(self, ids: list[int], max_new: int, temperature: float, top_p: float | None, seed: int,
                stop: tuple[str, ...]) -> CausalGeneration:
        generator = torch.Generator(device=self.device).manual_seed(seed)
        eos = self._tokenizer.eos_token_id
        generated: list[int] = []
        logprobs: list[float] = []
        past = None
        step_input = torch.tensor([ids], device=self.device)
        finish = "length"
        text = ""
        while len(generated) < max_new and len(ids) + len(generated) < self._max_positions:
            out = self._model(input_ids=step_input, past_key_values=past, use_cache=True)
            past = out.past_key_values
            logits = out.logits[0, -1].float()
            chosen = _choose(logits, temperature, top_p, generator)
            if eos is not None and chosen == eos:
                finish = "stop"
                break
            generated.append(chosen)
            logprobs.append(float(torch.log_softmax(logits, dim=-1)[chosen]))
            text = self._text(generated)
            cut = min((text.find(s) for s in stop if s and s in text), default=-1)
            if cut >= 0:
                text, finish = text[:cut], "stop"
                while generated and not text.startswith(self._text(generated)):
                    generated.pop()
                    logprobs.pop()
                break
            step_input = torch.tensor([[chosen]], device=self.device)
        tokens = tuple((self._text([t], special=True), lp)
                       for t, lp in zip(generated, logprobs, strict=True))
        return CausalGeneration(text, tokens, len(ids), len(generated), finish, self.model_version)


def _choose(logits: torch.Tensor, temperature: float, top_p: float | None, generator: torch.Generator) -> int:
    if temperature <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_p is not None and top_p < 1:
        ordered, order = torch.sort(probs, descending=True)
        keep = torch.cumsum(ordered, dim=-1) - ordered < top_p  # the smallest head whose mass reaches top_p
        probs = torch.zeros_like(probs).scatter(0, order[keep], ordered[keep])
    return int(torch.multinomial(probs / probs.sum(), 1, generator=generator))


def _digest(directory: Path) -> str:
    """sha256 (first 16 hex) of the weight files, streamed; "unknown" when there are none."""
    files = sorted(p for p in directory.rglob("*") if p.suffix in _WEIGHTS and p.is_file())
    if not files:
        return "unknown"
    digest = hashlib.sha256()
    for path in files:
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):  # noqa: B023 (read at once, in this loop)
                digest.update(block)
    return digest.hexdigest()[:16]
