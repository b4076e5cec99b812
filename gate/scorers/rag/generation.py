"""Generation metrics per answer (pure: sacrebleu and rouge-score, and cosine over given embeddings).

- `bleu`: sacrebleu's BLEU / 100 — per query its sentence BLEU, per system the corpus BLEU.
- `rouge_l`: rouge-score's ROUGE-L F-measure (expected answer as target, no stemming).
- `answer_relevancy`: cosine similarity of the query's and the answer's sentence embeddings.
- `faithfulness`: the share of the answer's sentences that some sentence of the retrieved contexts
  supports — cosine similarity of their embeddings at least the suite's threshold (0.6 by default).
  Contexts are compared sentence by sentence, so a long passage is not cut at the embedding model's
  token limit.
An empty answer is unmeasured for all four (and left out of the corpus BLEU); missing expected
answers or contexts leave the metrics that need them unmeasured.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache

import numpy as np

from gate.records.rag import RagRecord

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


@lru_cache(maxsize=1)
def _rouge():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


# The text metrics are pure and slow (ROUGE-L's LCS is quadratic in Python), and a run asks for each pair
# twice: in the planning pass (gate.steps.model_work.plan_model_work) and when scoring. Memoised for the process.
@cache
def rouge_l(answer: str, expected: str) -> float:
    return float(_rouge().score(expected, answer)["rougeL"].fmeasure)


@cache
def _sentence_score(answer: str, expected: str):  # sacrebleu's BLEUScore: the score and its n-gram statistics
    import sacrebleu

    return sacrebleu.sentence_bleu(answer, [expected])


def sentence_bleu(answer: str, expected: str) -> float:
    return float(_sentence_score(answer, expected).score) / 100


# An answer's BLEU sufficient statistics, item values beside the columns (not in items.csv; snapshots keep them):
# summed over a system's answers they give its corpus BLEU, so a test can recompute it on resampled queries.
BLEU_STATISTICS = ("bleu_sys_len", "bleu_ref_len", *(f"bleu_correct_{n}" for n in range(1, 5)),
                   *(f"bleu_total_{n}" for n in range(1, 5)))


def bleu_statistics(answer: str, expected: str) -> tuple[float, ...]:
    """(hypothesis length, reference length, matching n-grams for n = 1..4, hypothesis n-grams for n = 1..4),
    what sacrebleu's corpus BLEU sums over the corpus (its default 13a tokenizer, no lowercasing)."""
    score = _sentence_score(answer, expected)
    return (float(score.sys_len), float(score.ref_len), *map(float, score.counts), *map(float, score.totals))


def bleu_values(record: RagRecord) -> dict[str, float | None]:
    """The statistics of an answer the corpus BLEU counts (a non-empty answer and expected answer), else None."""
    expected = record.expected_answer
    if not record.actual_answer.strip() or not expected or not expected.strip():
        return dict.fromkeys(BLEU_STATISTICS)
    return dict(zip(BLEU_STATISTICS, bleu_statistics(record.actual_answer, expected), strict=True))


def corpus_bleu(answers: Sequence[str], expected: Sequence[str]) -> float | None:
    import sacrebleu

    if not answers:
        return None
    return float(sacrebleu.corpus_bleu(list(answers), [list(expected)]).score) / 100


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def generation_metrics(record: RagRecord, embed: Embed | None, threshold: float) -> dict[str, float | None]:
    """`embed` None: the suite runs without embeddings, answer_relevancy and faithfulness stay unmeasured."""
    answer = record.actual_answer
    if not answer.strip():
        return dict.fromkeys(("bleu", "rouge_l", "answer_relevancy", "faithfulness"))
    expected = record.expected_answer if record.expected_answer and record.expected_answer.strip() else None
    values: dict[str, float | None] = {
        "bleu": sentence_bleu(answer, expected) if expected else None,
        "rouge_l": rouge_l(answer, expected) if expected else None,
        "answer_relevancy": _cosine(embed(record.query), embed(answer)) if embed else None,
        "faithfulness": None,
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
        values["faithfulness"] = supported / len(claims)
    else:
        values["faithfulness"] = None
    return values
