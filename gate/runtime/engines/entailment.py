"""What the NLI engine and the replay of its stored results share, without torch: a (premise, hypothesis) pair as
one text key, which of a model's labels mean entailment, neutral and contradiction, and the per-pair result.

A pair is stored, cached and planned as ONE text, `pair_text(premise, hypothesis)` (JSON of the two: no two pairs
share a key), so the plan, the store, the cache and the shards treat an NLI engine exactly like the classifier:
one softmax per window per text. The labels are read from the model's `id2label` by name (never an index):
entailment is required (`entailment_labels` raises a located error without one), neutral and contradiction are
optional (a two-way model has neither, or "not_entailment"). Of a windowed pair the window with the largest
entailment probability answers (`entailment_result`): a claim is supported when ANY window of its premise
entails it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gate.errors import ConfigError, Problem
from gate.runtime.api import Entailment, Fingerprint

if TYPE_CHECKING:
    import numpy as np

NLI_FIX = ("point the gate.yml field that names the NLI model at a local natural-language-inference model directory "
           "whose config.json names its labels (e.g. `llm-gate models pull cross-encoder/nli-deberta-v3-xsmall`)")


def pair_text(premise: str, hypothesis: str) -> str:
    """The pair as one text key (plan, store, cache)."""
    return json.dumps([premise, hypothesis], ensure_ascii=False)


def split_pair(text: str) -> tuple[str, str]:
    """`pair_text`'s inverse."""
    premise, hypothesis = json.loads(text)
    return str(premise), str(hypothesis)


@dataclass(frozen=True)
class NliLabels:
    entailment: int
    neutral: int | None
    contradiction: int | None


def _named(id2label: Mapping[int, str], *words: str) -> list[int]:
    return [i for i, name in sorted(id2label.items())
            if any(str(name).lower().replace("-", "_").replace(" ", "_").startswith(w) for w in words)]


def entailment_labels(id2label: Mapping[int, str], where: str) -> NliLabels:
    """The indices of the entailment (required), neutral and contradiction labels; `where` names the model's
    config.json for the error."""
    entail = _named(id2label, "entail")
    names = ", ".join(f"{i}: {name}" for i, name in sorted(id2label.items())) or "none"
    if len(entail) != 1:
        raise ConfigError("NLI model labels", [Problem(
            file=where, field="id2label",
            expected="exactly one label named like 'entailment' (the NLI model's labels name the classes)",
            found=f"{'no' if not entail else 'several'} such label ({names})", fix=NLI_FIX)])
    neutral, contradiction = _named(id2label, "neutral"), _named(id2label, "contradict")
    return NliLabels(entail[0], neutral[0] if len(neutral) == 1 else None,
                     contradiction[0] if len(contradiction) == 1 else None)


def entailment_result(windows: Sequence[np.ndarray], windowed: Sequence[bool], id2label: Mapping[int, str],
                      where: str, max_tokens: int, fingerprint: Fingerprint) -> Entailment:
    """Per pair, from its softmax windows ((windows, labels) each): the probabilities of the window that entails
    it most (`TorchRuntime` and the replay of a store both answer through here, so bitwise alike)."""
    labels = entailment_labels(id2label, where)
    rows = [w[int(w[:, labels.entailment].argmax())] for w in windows]

    def column(index: int | None) -> tuple[float | None, ...]:
        return tuple(float(r[index]) if index is not None else None for r in rows)

    return Entailment(entailment=tuple(float(r[labels.entailment]) for r in rows), neutral=column(labels.neutral),
                      contradiction=column(labels.contradiction), windowed=tuple(bool(w) for w in windowed),
                      max_tokens=int(max_tokens), fingerprint=fingerprint)
