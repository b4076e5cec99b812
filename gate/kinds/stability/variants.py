"""Seed stability-coefficient's mechanical prompt variations, as pure functions.

Each question is asked in n = 10 variations and the stability coefficient is the mean off-diagonal cosine
similarity of the n responses times P, the answer probability from the responses' token probabilities (so those
requests ask for `logprobs`). `stability_variants` makes the n variants deterministically: the question itself
first, then case, punctuation, spacing and sentence-order changes, then seeded typos until there are n distinct
texts (a typo's random source is seeded from the seed and the question, never from Python's `hash`, so every
machine makes the same variants).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

STABILITY_VARIANTS = 10  # n in the seed
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W\d_]{4,}")  # words of 4+ letters: where a typo keeps the word recognisable


@dataclass(frozen=True)
class Variant:
    id: str  # "v00" … : the stability record's `variant_id`
    kind: str  # original | lower | upper | capitalised | no-end-punctuation | end-punctuation | spacing |
    #            sentence-order | typo
    text: str


def lower(text: str) -> str:
    return text.lower()


def upper(text: str) -> str:
    return text.upper()


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:].lower()


def strip_end_punctuation(text: str) -> str:
    return text.rstrip().rstrip(".?!;:… ").rstrip()


def swap_end_punctuation(text: str) -> str:
    stripped = strip_end_punctuation(text)
    return stripped + ("." if text.rstrip().endswith("?") else "?")


def extra_spacing(text: str) -> str:
    """Doubled spaces between words and a trailing newline: the same words, differently spaced."""
    return "  ".join(text.split(" ")) + "\n"


def sentence_order(text: str) -> str:
    """The last sentence (usually the question) moved to the front; the text itself when it has one sentence."""
    sentences = _SENTENCE.split(text.strip())
    if len(sentences) < 2:
        return text
    return " ".join([sentences[-1], *sentences[:-1]])


def typo(text: str, rng: random.Random) -> str:
    """One typo in one word of 4+ letters: two inner letters swapped, a letter dropped or doubled."""
    words = list(_WORD.finditer(text))
    if not words:
        return text
    match = rng.choice(words)
    word = match.group()
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(3)
    if kind == 0:
        changed = word[:i] + word[i + 1] + word[i] + word[i + 2:]  # i + 1 < len(word): i ≤ len(word) − 2
    elif kind == 1:
        changed = word[:i] + word[i + 1:]
    else:
        changed = word[:i] + word[i] + word[i:]
    return text[: match.start()] + changed + text[match.end():]


_FIXED: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("lower", lower), ("capitalised", capitalised), ("no-end-punctuation", strip_end_punctuation),
    ("end-punctuation", swap_end_punctuation), ("spacing", extra_spacing), ("sentence-order", sentence_order),
    ("upper", upper),
)


def stability_variants(question: str, n: int = STABILITY_VARIANTS, *, seed: int = 0) -> tuple[Variant, ...]:
    """n distinct variants of `question`, the question itself first; fewer only when the text admits no more
    (a question with no word of 4+ letters and few distinct spellings)."""
    texts = [("original", question)]
    seen = {question}
    for kind, change in _FIXED:
        if len(texts) >= n:
            break
        text = change(question)
        if text not in seen:
            texts.append((kind, text))
            seen.add(text)
    digest = hashlib.sha256(f"{seed}\x00{question}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    for _ in range(50 * n):
        if len(texts) >= n:
            break
        text = typo(question, rng)
        if text not in seen:
            texts.append(("typo", text))
            seen.add(text)
    return tuple(Variant(f"v{i:02d}", kind, text) for i, (kind, text) in enumerate(texts))
