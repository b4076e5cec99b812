"""Generation metrics per answer (pure: sacrebleu and rouge-score, and cosine over given embeddings).

- `bleu`: sacrebleu's BLEU / 100 — per answer its sentence BLEU, per system the corpus BLEU over all its
  answers, each generation of a query one segment (`sacrebleu.corpus_bleu` of them all).
- `rouge_l`: rouge-score's ROUGE-L F-measure (expected answer as target, no stemming).
- `answer_relevancy`: cosine similarity of the query's and the answer's sentence embeddings.
- `context_similarity` (named `faithfulness` until issue 36: it measures similarity, not support): the share
  of the answer's sentences that some sentence of the retrieved contexts is close to — cosine similarity of their
  embeddings at least the suite's threshold (0.6 by default). Support is `claim_faithfulness` (an NLI model).
  Contexts are compared sentence by sentence, so a long passage is not cut at the embedding model's
  token limit.
An empty answer is unmeasured for all four (and left out of the corpus BLEU); missing expected
answers or contexts leave the metrics that need them unmeasured.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from functools import cache, lru_cache
from itertools import chain

import numpy as np

from gate.kinds.rag.records import RagRecord

Embed = Callable[[str], np.ndarray]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def texts_to_embed(record: RagRecord) -> list[str]:
    """Every text the generation metrics of this sample will ask an embedding for."""
    if not record.actual_answer.strip():
        return []
    context = [s for c in record.retrieved_contexts or () for s in sentences(c)]
    return [record.query, record.actual_answer, *sentences(record.actual_answer), *context]


def rouge_l(answer: str, expected: str) -> float:
    """rouge-score's `RougeScorer(["rougeL"]).score(expected, answer)["rougeL"].fmeasure`, with its tokenizer
    (DefaultTokenizer without a stemmer) and F-measure, but the LCS length bit-parallel (`lcs_length`) instead of
    its quadratic Python table: the same integer, ~50× faster on answers of a few hundred words."""
    from rouge_score import scoring, tokenize  # not rouge_scorer or tokenizers: they import nltk (~2 s), unused

    target, prediction = tokenize.tokenize(expected, None), tokenize.tokenize(answer, None)
    if not target or not prediction:
        return 0.0
    common = lcs_length(target, prediction)
    return float(scoring.fmeasure(common / len(prediction), common / len(target)))


def lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    """The length of a longest common subsequence (Allison–Dix / Hyyrö's bit-vector algorithm): one big-integer
    step per token of `second` instead of a row of len(first) cells."""
    masks: dict[str, int] = {}
    for position, token in enumerate(first):
        masks[token] = masks.get(token, 0) | (1 << position)
    full = (1 << len(first)) - 1
    row = full
    for token in second:
        matched = row & masks.get(token, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(first) - row.bit_count()


# sacrebleu's 13a rules 2-4 where no two of "." and "," are adjacent: each then matches exactly where a lookaround
# does (a neighbour that is no "." or "," cannot have been taken by the match before), and a literal replacement
# keeps re in C instead of a Python call per match (the character first: re then searches for it, fast).
_ADJACENT = re.compile(r"[.,][.,]")
_AROUND = ((re.compile(r"\.(?<=[^0-9]\.)"), " . "), (re.compile(r",(?<=[^0-9],)"), " , "),
           (re.compile(r"\.(?=[^0-9])"), " . "), (re.compile(r",(?=[^0-9])"), " , "),
           (re.compile(r"-(?<=[0-9]-)"), " - "))


@lru_cache(maxsize=1)
def _13a_rules() -> tuple[str, list]:
    """sacrebleu's 13a rules (TokenizerRegexp): the characters its first rule spaces out one at a time, and the
    other three as sacrebleu compiled them."""
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    (spaced, around), *rest = TokenizerRegexp()._re
    assert around == r" \1 " and spaced.pattern.startswith("([") and spaced.pattern.endswith("])")  # one char each
    return "".join(chr(c) for c in range(128) if spaced.fullmatch(chr(c))), rest


def _13a(line: str) -> list[str]:
    """sacrebleu's default `13a` tokenizer (Tokenizer13a, then TokenizerRegexp), split into tokens: the same
    tokens (the tests compare every short string), several times faster, and without its two `lru_cache`s of
    65,536 lines each (hundreds of MB at scale; this module memoises pairs instead)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    spaced, rules = _13a_rules()
    line = f"   {line.replace(' ', '   ')}   "  # the first rule, the space first: what it inserts stays as is
    for char in spaced:
        if char != " " and char in line:
            line = line.replace(char, f" {char} ")
    for pattern, replacement in (rules if _ADJACENT.search(line) else _AROUND):
        line = pattern.sub(replacement, line)
    return line.split()


def _ngrams(tokens: list[str]) -> Counter:
    """Every n-gram of orders 1–4 with its count (sacrebleu's `extract_all_word_ngrams(line, 1, 4)`)."""
    return Counter(chain.from_iterable(zip(*(tokens[i:] for i in range(n)), strict=False) for n in range(1, 5)))


# Memoised for the process: an answer's sentence BLEU, its statistics and its system's corpus BLEU all read it.
@cache
def _sentence_score(answer: str, expected: str):  # sacrebleu's BLEUScore: the score and its n-gram statistics
    """`sacrebleu.sentence_bleu(answer, [expected])`: its statistics counted as its `BLEU._compute_segment_statistics`
    counts them (n-gram tuples, clipped by the reference's counts), the score from its own `BLEU.compute_bleu`."""
    from sacrebleu.metrics.bleu import BLEU

    hypothesis, reference = _13a(answer), _13a(expected)
    theirs = _ngrams(reference)
    correct, total = [0] * 4, [0] * 4
    for ngram, count in _ngrams(hypothesis).items():
        total[len(ngram) - 1] += count
        if ngram in theirs:
            correct[len(ngram) - 1] += min(count, theirs[ngram])
    return BLEU.compute_bleu(correct=correct, total=total, sys_len=len(hypothesis), ref_len=len(reference),
                             smooth_method="exp", effective_order=True)


def sentence_bleu(answer: str, expected: str) -> float:
    return float(_sentence_score(answer, expected).score) / 100


# A query's BLEU sufficient statistics, item values listed in items.csv after its columns: summed over a system's
# queries they give its corpus BLEU (`statistics.BLEU`), so a test can recompute it on resampled queries.
BLEU_STATISTICS = ("bleu_sys_len", "bleu_ref_len", *(f"bleu_correct_{n}" for n in range(1, 5)),
                   *(f"bleu_total_{n}" for n in range(1, 5)))


def bleu_statistics(answer: str, expected: str) -> tuple[float, ...]:
    """(hypothesis length, reference length, matching n-grams for n = 1..4, hypothesis n-grams for n = 1..4),
    what sacrebleu's corpus BLEU sums over the corpus (its default 13a tokenizer, no lowercasing)."""
    score = _sentence_score(answer, expected)
    return (float(score.sys_len), float(score.ref_len), *map(float, score.counts), *map(float, score.totals))


def _counted(record: RagRecord) -> bool:
    """Whether the corpus BLEU counts this answer: a non-empty answer with a non-empty expected answer."""
    return bool(record.actual_answer.strip() and record.expected_answer and record.expected_answer.strip())


def query_bleu_values(records: Sequence[tuple[Hashable, RagRecord]]) -> list[dict[str, float | None]]:
    """Per record, the BLEU statistics of its query summed over the query's generations the corpus BLEU counts
    (records with the same hashable key: one run's system and query; several only with `sample`), all None
    where it counts none. Every generation of a query carries the same sums, so its merged item
    (`gate.kinds.samples.collapse`, a mean over the generations) keeps them: the column sums over a system's items
    are then every answer's statistics pooled, each answer a segment, as `sacrebleu.corpus_bleu` over all the
    system's answers sums them, however many generations each query has."""
    sums: dict[Hashable, list[float]] = {}
    for key, record in records:
        if _counted(record):
            found = bleu_statistics(record.actual_answer, record.expected_answer or "")
            total = sums.setdefault(key, [0.0] * len(BLEU_STATISTICS))
            total[:] = [a + b for a, b in zip(total, found, strict=True)]
    return [dict(zip(BLEU_STATISTICS, sums[key], strict=True)) if key in sums else dict.fromkeys(BLEU_STATISTICS)
            for key, _ in records]


def corpus_bleu(answers: Sequence[str], expected: Sequence[str]) -> float | None:
    """sacrebleu's `corpus_bleu(answers, [expected]).score / 100`, from the answers' sentence statistics (summed,
    as sacrebleu's corpus score sums them) instead of tokenising the corpus a second time."""
    from sacrebleu.metrics.bleu import BLEU

    if not answers:
        return None
    totals = [0] * 10
    for answer, reference in zip(answers, expected, strict=True):
        score = _sentence_score(answer, reference)
        for i, value in enumerate((score.sys_len, score.ref_len, *score.counts, *score.totals)):
            totals[i] += value
    return float(BLEU.compute_bleu(correct=totals[2:6], total=totals[6:], sys_len=totals[0], ref_len=totals[1],
                                   smooth_method="exp").score) / 100


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def generation_metrics(record: RagRecord, embed: Embed | None, threshold: float) -> dict[str, float | None]:
    """`embed` None: the suite runs without embeddings, answer_relevancy and context_similarity stay unmeasured."""
    answer = record.actual_answer
    if not answer.strip():
        return dict.fromkeys(("bleu", "rouge_l", "answer_relevancy", "context_similarity"))
    expected = record.expected_answer if record.expected_answer and record.expected_answer.strip() else None
    values: dict[str, float | None] = {
        "bleu": sentence_bleu(answer, expected) if expected else None,
        "rouge_l": rouge_l(answer, expected) if expected else None,
        "answer_relevancy": _cosine(embed(record.query), embed(answer)) if embed else None,
        "context_similarity": None,
    }
    if embed is None:
        return values
    claims = sentences(answer)
    support = [s for c in record.retrieved_contexts or () for s in sentences(c)]
    if claims and support:
        evidence = np.stack([embed(s) for s in support])
        evidence = evidence / np.linalg.norm(evidence, axis=1, keepdims=True)
        supported = 0
        for claim in claims:
            vector = embed(claim)
            if float(np.max(evidence @ (vector / np.linalg.norm(vector)))) >= threshold:
                supported += 1
        values["context_similarity"] = supported / len(claims)
    else:
        values["context_similarity"] = None
    return values
