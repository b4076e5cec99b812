"""A model directory that is missing parts or corrupt: one message that names the model, its directory, the
cause and the fix (exit 3), for every engine kind.

Most damage makes loading fail (no weights, truncated safetensors, a garbled config.json). Missing tokenizer
files do not: transformers 5 then builds a tokenizer that knows only its special tokens, every word becomes
[UNK], and the scores come out quietly meaningless. `require_vocabulary` catches that after loading.
"""

from __future__ import annotations

from typing import Any

from gate.config import ModelRole
from gate.errors import ModelUnavailable, RuntimeFailure
from gate.runtime.engines.models import ModelSource, ResolvedModel

REASON_LIMIT = 400  # characters of the underlying error kept


def unavailable(role: ModelRole, model: ResolvedModel, cause: BaseException) -> ModelUnavailable:
    """The error for `model` (in `role`: its words, and the gate.yml field that names it for the fix) that could not
    be loaded because of `cause`."""
    reason = cause.message if isinstance(cause, RuntimeFailure) else str(cause) or type(cause).__name__
    reason = " ".join(reason.split())  # transformers' causes span lines; an error here is one paragraph
    reason = reason if len(reason) <= REASON_LIMIT else reason[:REASON_LIMIT] + "…"
    field = role.config_field
    if model.source is ModelSource.LOCAL_PATH:
        fix = (f"restore {model.path} (config.json, the weights as model.safetensors or pytorch_model.bin, and the "
               f"tokenizer files), or point {field} at a complete model directory")
    else:
        fix = (f"the copy at {model.path} is incomplete or corrupt: delete it and run `llm-gate models pull "
               f"{model.name}`, or point {field} at a complete local model directory")
    return ModelUnavailable(f"{role.words} model {model.name!r} at {model.path} could not be loaded: {reason}", fix=fix)


def require_vocabulary(engine: Any, role: ModelRole) -> None:
    """Raise when the engine's tokenizer knows nothing but its special tokens (its files are missing)."""
    tokenizer: Any = getattr(engine, "tokenizer", None) or getattr(getattr(engine, "model", None), "tokenizer", None)
    try:
        size, special = len(tokenizer), sorted(set(tokenizer.all_special_tokens))
    except (TypeError, AttributeError):  # no tokenizer to check (a test double, a custom engine)
        return
    if size <= len(special):
        raise RuntimeFailure(
            f"its tokenizer has no vocabulary, only the {size} special tokens {', '.join(special)}: the tokenizer "
            "files (tokenizer.json, vocab.txt, vocab.json + merges.txt or a sentencepiece model) are missing, so "
            f"every word would be unknown and the {role.words} scores meaningless")
