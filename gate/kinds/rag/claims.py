"""Claim-level faithfulness (issue 36): each answer split into claims, each claim decided against the retrieved
contexts by a local NLI model.

- Claims (`split_claims`, pure): the answer's sentences. A sentence ends at `.`, `!` or `?` followed by
  whitespace (closing quotes or brackets may sit between), and at a line break; a period after a known
  abbreviation (`ABBREVIATIONS`: "e.g.", "Dr.", "etc.", …) or after a single letter (an initial, "J. Smith")
  ends nothing, and a decimal point has no whitespace after it. Text without a sentence end is one claim;
  pieces with no letter or digit ("...", "-") are not claims; an empty or blank answer has none.
- The premise of every claim is the record's retrieved contexts joined by blank lines; the NLI engine windows a
  premise longer than the model's limit, and a claim counts as entailed when ANY window entails it
  (`gate.runtime.engines.nli`).
- A claim is supported when P(entailment) ≥ the suite's `claim_threshold` (default 0.5), and
  `claim_faithfulness` = supported claims / claims.
- Unmeasured (None, with the reason): an answer with no claims (empty, blank or punctuation only: there is
  nothing to be faithful or unfaithful, and 0 or 1 would both be invented), and a record without retrieved
  contexts (nothing to entail from) — as the embedding `context_similarity` treats them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

CLAIM_SPLITTER = "sentences/1"  # in the fingerprint: a change to `split_claims` makes old snapshots not comparable
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "etc", "vs", "cf", "al", "approx", "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "no",
    "fig", "inc", "ltd", "co", "corp", "u.s", "u.k", "a.m", "p.m", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "mt", "vol", "pp", "ed", "est",
})
_BOUNDARY = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'”’)\]])|(?<=[.!?][\"'”’)\]]{2}))\s+|\s*\n\s*")
_WORD_BEFORE = re.compile(r"(\S+)\.[\"'”’)\]]*$")
_CONTENT = re.compile(r"\w")
NO_CLAIMS = "the answer has no claims (empty, or no sentence with a letter or digit)"
NO_CONTEXTS = "the record has no retrieved contexts to entail its claims"


def split_claims(answer: str) -> tuple[str, ...]:
    """The answer's claims, in order (module docstring)."""
    claims, start = [], 0
    for boundary in _BOUNDARY.finditer(answer):
        before = answer[start:boundary.start()]
        if "\n" not in boundary.group() and _abbreviated(before):
            continue
        claims.append(answer[start:boundary.start()])
        start = boundary.end()
    claims.append(answer[start:])
    return tuple(c.strip() for c in claims if _CONTENT.search(c))


def _abbreviated(text: str) -> bool:
    """Whether `text` ends in a period that belongs to an abbreviation or an initial, not a sentence end."""
    found = _WORD_BEFORE.search(text.rstrip())
    if found is None or not text.rstrip().rstrip("\"'”’)]").endswith("."):
        return False
    word = found.group(1).lstrip("(\"'“‘[").lower()
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def premise(contexts: Sequence[str] | None) -> str | None:
    """What a record's claims are checked against: its contexts joined by blank lines; None without any."""
    kept = [c for c in contexts or () if c.strip()]
    return "\n\n".join(kept) if kept else None


@dataclass(frozen=True)
class ClaimVerdict:
    claim: str
    entailment: float  # P(entailment | premise, claim), of the window that entails it most
    supported: bool


@dataclass(frozen=True)
class AnswerClaims:
    """One answer's claims decided, or why it has no claim_faithfulness."""

    verdicts: tuple[ClaimVerdict, ...]
    reason: str | None = None  # set where unmeasured

    @property
    def faithfulness(self) -> float | None:
        """Supported claims / claims; None where unmeasured."""
        if self.reason is not None or not self.verdicts:
            return None
        return sum(v.supported for v in self.verdicts) / len(self.verdicts)

    @property
    def unsupported(self) -> tuple[str, ...]:
        return tuple(v.claim for v in self.verdicts if not v.supported)


def decide(claims: Sequence[str], entailment: Sequence[float], threshold: float) -> AnswerClaims:
    """Each claim supported when its P(entailment) ≥ `threshold`; no claims: unmeasured (`NO_CLAIMS`)."""
    if len(claims) != len(entailment):
        raise ValueError(f"{len(claims)} claims but {len(entailment)} entailment probabilities")
    if not claims:
        return AnswerClaims((), NO_CLAIMS)
    if any(not math.isfinite(p) or not 0.0 <= p <= 1.0 for p in entailment):
        raise ValueError(f"entailment probabilities must lie in [0, 1], got {list(entailment)}")
    return AnswerClaims(tuple(ClaimVerdict(c, float(p), float(p) >= threshold)
                              for c, p in zip(claims, entailment, strict=True)))
