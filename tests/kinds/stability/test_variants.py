"""Stability's prompt variants: n distinct, deterministic texts, the question first."""

from __future__ import annotations

import random

from gate.kinds.stability.variants import STABILITY_VARIANTS, sentence_order, stability_variants, typo

QUESTION = "Which planet is known as the red planet? Answer briefly."


def test_ten_distinct_deterministic_variants_the_question_first():
    variants = stability_variants(QUESTION)
    assert len(variants) == STABILITY_VARIANTS == 10
    assert variants[0].text == QUESTION and variants[0].id == "v00"
    assert len({v.text for v in variants}) == 10
    assert variants == stability_variants(QUESTION)  # same on every call and machine
    assert stability_variants(QUESTION, seed=1) != variants
    kinds = {v.kind for v in variants}
    assert {"lower", "no-end-punctuation", "sentence-order", "typo"} <= kinds


def test_a_variant_keeps_the_words_apart_from_one_typo():
    for variant in stability_variants(QUESTION, 20):
        if variant.kind == "typo":
            changed = [a != b for a, b in zip(QUESTION.split(), variant.text.split(), strict=True)]
            assert sum(changed) == 1


def test_short_questions_give_fewer_variants_not_duplicates():
    variants = stability_variants("2+2?")
    assert 1 < len(variants) < 10 and len({v.text for v in variants}) == len(variants)


def test_typos_and_sentence_order_are_pure():
    assert typo("a b c", random.Random(1)) == "a b c"
    assert typo("planet", random.Random(7)) == typo("planet", random.Random(7))
    assert sentence_order("One. Two? Three!") == "Three! One. Two?"
    assert sentence_order("Just one") == "Just one"
