"""BLEU and ROUGE-L at scale (issue 23): the same numbers as sacrebleu and rouge-score — compared here on generated
texts and, for the tokenizer, on every short string of a tricky alphabet — without their quadratic or repeated
work: ROUGE-L's LCS table in Python, the corpus tokenised a second time for corpus BLEU, the tokenizer's caches of
65,536 lines, nltk imported for a stemmer the gate never uses. Counted, never timed."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import pytest
import sacrebleu
from rouge_score import rouge_scorer
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from gate.kinds.rag import generation
from gate.kinds.rag.generation import _13a, corpus_bleu, lcs_length, rouge_l, sentence_bleu

WORDS = ("the", "cache", "is", "warm", "cold", "3.5", "1,000", "e.g.", "--", "well-known", "(see", "below)",
         "x=1", "&amp;", "Ünïcode", "'quoted'", '"double"', "end.", "why?", "wow!", "a,b", "9-2", "...")


def texts(seed: int, count: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        answer = " ".join(rng.choice(WORDS) for _ in range(rng.choice([0, 1, 5, 40, 150])))
        expected = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 60)))
        out.append((answer, expected))
    return out


def test_rouge_l_equals_rouge_score_without_its_lcs_table(monkeypatch):
    reference = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    pairs = texts(1, 300) + [("", "x"), ("!!! ...", "a b"), ("a b c", "c b a")]
    expected = [reference.score(e, a)["rougeL"].fmeasure for a, e in pairs]

    def quadratic(*_):
        raise AssertionError("the quadratic LCS table was used")

    monkeypatch.setattr(rouge_scorer, "_lcs_table", quadratic)
    assert [rouge_l(a, e) for a, e in pairs] == expected


def test_lcs_length_equals_the_table():
    rng = random.Random(2)
    for _ in range(2000):
        first = [rng.choice("abcd") for _ in range(rng.randint(0, 70))]
        second = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        table = [[0] * (len(second) + 1) for _ in range(len(first) + 1)]
        for i, x in enumerate(first, 1):
            for j, y in enumerate(second, 1):
                table[i][j] = table[i - 1][j - 1] + 1 if x == y else max(table[i - 1][j], table[i][j - 1])
        assert lcs_length(first, second) == table[-1][-1]


def test_13a_tokens_equal_sacrebleu_on_every_short_string():
    tokenize = Tokenizer13a.__call__.__wrapped__  # sacrebleu's own steps, without its cache
    for length in range(1, 6):
        for chars in itertools.product("a1.,- &", repeat=length):
            line = "".join(chars)
            assert _13a(line) == tokenize(Tokenizer13a(), line).split(), repr(line)
    rng = random.Random(3)
    pool = "ab1 2.,-\n&;<>\"'()[]{}~`^_\\/:?@!#$%*+=|é—…\t"
    for _ in range(20_000):
        line = "".join(rng.choice(pool) for _ in range(rng.randint(0, 30)))
        line = line.replace("&", rng.choice(["&", "&amp;", "&quot;", "&lt;"]))
        assert _13a(line) == tokenize(Tokenizer13a(), line).split(), repr(line)


def test_bleu_equals_sacrebleu_and_the_corpus_is_not_tokenised_again(monkeypatch):
    pairs = [(a, e) for a, e in texts(4, 300) if a.strip()]
    for answer, expected in pairs:
        theirs = sacrebleu.sentence_bleu(answer, [expected])
        ours = generation._sentence_score(answer, expected)
        assert (ours.score, ours.counts, ours.totals, ours.sys_len, ours.ref_len) == \
            (theirs.score, theirs.counts, theirs.totals, theirs.sys_len, theirs.ref_len)
        assert sentence_bleu(answer, expected) == theirs.score / 100
    answers, references = [a for a, _ in pairs], [e for _, e in pairs]
    corpus = sacrebleu.corpus_bleu(answers, [references]).score / 100
    calls = []
    monkeypatch.setattr(Tokenizer13a, "__call__", lambda self, line: calls.append(line) or line)
    assert corpus_bleu(answers, references) == pytest.approx(corpus, abs=0) and calls == []


def test_rouge_l_does_not_import_nltk():
    code = ("import sys; from gate.kinds.rag.generation import rouge_l, sentence_bleu; "
            "rouge_l('a b c', 'a c'); sentence_bleu('a b c', 'a c'); print('nltk' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
