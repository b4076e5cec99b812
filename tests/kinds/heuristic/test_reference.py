"""The gate's packaged seed rubric against an independent transcription of the seed.

`tests/support/seed_rubric_reference.py` was written from `seeds/heuristic-rubric.md` and DESIGN §9 alone,
without looking at `gate/kinds/heuristic/rubric.py`, `gate/kinds/heuristic/rubrics/seed-v1.yml` or
`gate/kinds/heuristic/rules.py`. Here the gate's `score_response` is compared with it (a) on the seed's worked
example, (b) rule by rule against hand-computed numbers, (c) on generated responses built from the seed's trigger
terms and (d) on realistic fixed responses.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.kinds.heuristic.rubric import load_rubric
from gate.kinds.heuristic.rules import score_response
from tests.support.seed_rubric_reference import (
    CODING_WEIGHTS,
    PARAPHRASING_WEIGHTS,
    reference_score,
)

RUBRIC = load_rubric(None, Path("."), "x")

CODING_METRICS = list(CODING_WEIGHTS)
PARAPHRASING_METRICS = list(PARAPHRASING_WEIGHTS)

# Ten distinct plain words: no trigger term of any rule, diversity 1.0, one sentence, no comma.
TEN = "alpha bravo golf hotel kilo lima mike oscar papa tango"
# The same ten words as two, three sentences.
TEN_TWO_SENTENCES = "alpha bravo golf hotel kilo. lima mike oscar papa tango"
TEN_THREE_SENTENCES = "alpha bravo golf. hotel kilo lima. mike oscar papa tango"


def gate(category: str, response: str, prompt_id: str = "P01"):
    return score_response(RUBRIC, category, response, prompt_id)


def coding(response: str, name: str) -> float:
    return gate("coding", response).metrics[name]


def para(response: str, name: str, prompt_id: str = "P01") -> float:
    return gate("paraphrasing", response, prompt_id).metrics[name]


def assert_matches_reference(category: str, response: str, prompt_id: str) -> None:
    expected_metrics, expected_final = reference_score(category, response, prompt_id)
    got = gate(category, response, prompt_id)
    assert set(got.metrics) == set(expected_metrics), (category, response, prompt_id)
    for name, value in expected_metrics.items():
        assert math.isclose(got.metrics[name], value, rel_tol=0, abs_tol=1e-9), (
            name, got.metrics[name], value, category, prompt_id, response)
    assert math.isclose(got.final_score, expected_final, rel_tol=0, abs_tol=1e-9), (
        got.final_score, expected_final, category, prompt_id, response)


def with_base(category: str, metric: str, base: float):
    """The seed rubric with one metric's base score changed (to reach the lower clamp)."""
    spec = RUBRIC.categories[category]
    changed = spec.metrics[metric].model_copy(update={"base": base})
    new_spec = spec.model_copy(update={"metrics": {**spec.metrics, metric: changed}})
    return RUBRIC.model_copy(update={"categories": {**RUBRIC.categories, category: new_spec}})


# ---------------------------------------------------------------------------------- packaged rubric shape


def test_packaged_rubric_has_the_seed_categories_weights_and_bases():
    assert set(RUBRIC.categories) == {"coding", "paraphrasing"}
    coding_spec = RUBRIC.categories["coding"].metrics
    para_spec = RUBRIC.categories["paraphrasing"].metrics
    assert {n: m.weight for n, m in coding_spec.items()} == CODING_WEIGHTS
    assert {n: m.weight for n, m in para_spec.items()} == PARAPHRASING_WEIGHTS
    assert {n: m.base for n, m in coding_spec.items()} == {
        "correctness": 5.0, "efficiency": 5.0, "readability": 5.0, "error_handling": 3.0}
    assert {n: m.base for n, m in para_spec.items()} == {
        "relevance_fidelity": 5.0, "creativity_originality": 5.0, "fluency_coherence": 6.0, "prompt_adherence": 5.0}
    assert tuple(RUBRIC.bounds) == (0.0, 10.0)


# ------------------------------------------------------------------------------- the seed's worked example

# correctness 5.0 + def 1.5 + return 1.0 + control ("try:") 0.5 + parentheses 0.5 = 8.5. No "import"/"from":
# with "try:" present the control-structure +0.5 always fires, and "def" needs "(...)", so a real function
# with a try-except reaches exactly 8.5 only without the +0.5 for imports. No "class ", and the "error"
# mention is handled ("try" occurs), so no penalty.
# efficiency 5.0 + "dict" 1.5 = 6.5 (no "set"/"sort"/"o(n)"/... anywhere).
# readability 5.0 + docstring 2.0 + comment 1.5 + len > 100 0.5 = 9.0: two-space indentation (no four
# spaces, no tab) and a single assigned name ("default").
# error handling 3.0 + try-except 4.0 = 7.0: no "raise", no listed exception type, no "if not"/"assert"/
# "validate".
WORKED_EXAMPLE = (
    "def get_value(mapping, key, default=None):\n"
    '  """Look up key in a dict, with a fallback."""\n'
    "  # plain dict lookup\n"
    "  try: return mapping[key]\n"
    "  except LookupError: return default\n"
)


def test_worked_example_response_is_real_python():
    namespace: dict = {}
    exec(compile(WORKED_EXAMPLE, "<worked-example>", "exec"), namespace)
    assert namespace["get_value"]({"a": 1}, "a") == 1
    assert namespace["get_value"]({}, "a", 2) == 2


def test_seed_worked_example():
    result = gate("coding", WORKED_EXAMPLE)
    assert result.metrics == {"correctness": 8.5, "efficiency": 6.5, "readability": 9.0, "error_handling": 7.0}
    assert result.final_score == 7.9  # math.fsum of 3.4, 1.3, 1.8, 1.4 is exactly the float 7.9
    assert (8.5 * 0.4) + (6.5 * 0.2) + (9.0 * 0.2) + (7.0 * 0.2) == pytest.approx(result.final_score, abs=1e-12)
    assert_matches_reference("coding", WORKED_EXAMPLE, "C01")


# ------------------------------------------------------------------------------------- coding: baseline


def test_coding_empty_response_scores_the_bases():
    result = gate("coding", "", "C01")
    assert result.metrics == {"correctness": 5.0, "efficiency": 5.0, "readability": 5.0, "error_handling": 3.0}
    assert result.final_score == pytest.approx(5.0 * 0.4 + 5.0 * 0.2 + 5.0 * 0.2 + 3.0 * 0.2)  # 4.6


def test_coding_plain_prose_scores_the_bases():
    assert gate("coding", "plain words only").metrics == {
        "correctness": 5.0, "efficiency": 5.0, "readability": 5.0, "error_handling": 3.0}


# ---------------------------------------------------------------------------------- coding: correctness


@pytest.mark.parametrize(("response", "expected"), [
    ("def ", 6.5),            # 'def ' -> +1.5
    ("def", 5.0),             # needs the trailing space
    ("DEF ", 6.5),            # coding rules match response.lower()
    ("return", 6.0),          # 'return' -> +1.0
    ("RETURNS", 6.0),
    ("import", 5.5),          # 'import' or 'from' -> +0.5
    ("from", 5.5),
    ("import from", 5.5),     # one +0.5 for both
    ("FROM", 5.5),
    ("class ", 6.0),          # 'class ' -> +1.0
    ("class", 5.0),
    ("subclass ", 6.0),       # substring match
    ("if ", 5.5),             # any of 'if ', 'for ', 'while ', 'try:' -> +0.5
    ("for ", 5.5),
    ("while ", 5.5),
    ("try:", 5.5),
    ("if for while try:", 5.5),  # once
    ("if", 5.0),
    ("try", 5.0),
    ("()", 5.5),              # '(' and ')' -> +0.5
    ("(", 5.0),
    (")", 5.0),
    (") and (", 5.5),         # order does not matter
])
def test_correctness_positive_indicators(response, expected):
    assert coding(response, "correctness") == expected


@pytest.mark.parametrize(("response", "expected"), [
    ("error", 4.0),                 # error mention without handling -> -1.0
    ("exception", 4.0),
    ("ERROR", 4.0),
    ("errors and exceptions", 4.0),  # one -1.0
    ("error handle", 5.0),          # 'handle' present: no penalty
    ("exception handler", 5.0),
    ("error try", 5.0),             # 'try' (even without a colon) present: no penalty
    ("retry after error", 5.0),     # 'try' as a substring of 'retry'
    ("mistake", 5.0),
])
def test_correctness_negative_indicator(response, expected):
    assert coding(response, "correctness") == expected


def test_correctness_every_positive_indicator_reaches_exactly_ten():
    response = "from x import y\nclass A:\n  def f(self):\n    if y: return 1\n"
    assert coding(response, "correctness") == 10.0  # 5 + 1.5 + 1 + 0.5 + 1 + 0.5 + 0.5


def test_correctness_lowest_reachable_is_four_not_clamped():
    assert coding("an error", "correctness") == 4.0


# ----------------------------------------------------------------------------------- coding: efficiency


@pytest.mark.parametrize(("response", "expected"), [
    ("o(n)", 7.0),            # complexity awareness -> +2.0
    ("O(N)", 7.0),
    ("o(log n)", 7.0),
    ("efficient", 7.0),
    ("inefficient", 7.0),     # substring
    ("optimize", 7.0),
    ("complexity", 7.0),
    ("o(n) efficient optimize complexity", 7.0),  # once
    ("dict", 6.5),            # data structures -> +1.5
    ("set", 6.5),
    ("reset", 6.5),           # substring
    ("hash", 6.5),
    ("dictionary", 6.5),
    ("dict set hash", 6.5),
    ("binary search", 6.0),   # algorithms -> +1.0
    ("binary  search", 5.0),  # the literal term only
    ("sort", 6.0),
    ("sorted", 6.0),
    ("heap", 6.0),
    ("nested loop", 4.0),     # inefficiency -> -1.0
    ("o(n^2)", 4.0),          # 'o(n^2)' does not contain 'o(n)'
    ("o(n²)", 4.0),
    ("O(N²)", 4.0),
    ("brute force", 4.0),
    ("nested loop brute force", 4.0),
    ("o(n) vs o(n^2)", 6.0),  # +2.0 - 1.0
    ("o(n) dict sort", 9.5),  # highest reachable
])
def test_efficiency_indicators(response, expected):
    assert coding(response, "efficiency") == expected


# ---------------------------------------------------------------------------------- coding: readability


@pytest.mark.parametrize(("response", "expected"), [
    ('"""', 7.0),              # docstring -> +2.0
    ("'''", 7.0),
    ('""" \'\'\'', 7.0),      # once
    ('""', 5.0),
    ("#", 6.5),                # comment -> +1.5
    ("# a # b", 6.5),
    ("x" * 100, 5.0),          # len > 100 -> +0.5 (strict)
    ("x" * 101, 5.5),
    ("    ", 6.0),             # four spaces -> +1.0
    ("   ", 5.0),
    ("\t", 6.0),               # tab -> +1.0
    ("a\tb    c", 6.0),        # once
])
def test_readability_indicators(response, expected):
    assert coding(response, "readability") == expected


@pytest.mark.parametrize(("response", "expected"), [
    ("alpha=1 bravo=2 charlie=3 delta=4", 6.5),            # four distinct names > 3 chars -> +1.5
    ("alpha=1 bravo=2 charlie=3", 5.0),                    # three: not more than 3
    ("alpha=1 bravo=2 charlie=3 abc=4", 5.0),              # 'abc' is not longer than 3 characters
    ("alpha=1 bravo=2 charlie=3 abcd=4", 6.5),             # 'abcd' is
    ("alpha=1 alpha=2 alpha=3 alpha=4 alpha=5", 5.0),      # distinct names only
    ("alpha==1 bravo==2 charlie==3 delta==4", 5.0),        # comparisons are not assignments
    ("alpha = 1 bravo =2 charlie= 3 delta\n=\n4", 6.5),    # \s* around '=' (newlines included)
    ("Alpha=1 ALPHA=2 alpha=3 aLpha=4", 5.0),              # names are taken from the lower-cased response
    ("f(alpha=1, bravo=2, charlie=3, delta=4)", 6.5),      # keyword arguments are assignments too
    ("alpha+=1 bravo-=2 charlie*=3 delta/=4", 5.0),        # augmented assignment: the name is not before '='
    ("alpha!=1 bravo<=2 charlie>=3 delta!=4", 5.0),
    ("_priv=1 snake_case=2 with9digits=3 __dunder__=4", 6.5),
    ("9abc=1 8bcd=2 7cde=3 6def=4", 5.0),                  # no word boundary before a letter after a digit
])
def test_readability_descriptive_names(response, expected):
    assert coding(response, "readability") == expected


def test_readability_clamped_at_ten():
    response = '"""doc"""\n# comment\n\tvalue_one = 1\n    value_two = 2\nvalue_three = 3\nvalue_four = 4\n' + "x" * 40
    assert len(response) > 100
    assert coding(response, "readability") == 10.0  # 5 + 2 + 1.5 + 0.5 + 1.5 + 1 = 11.5 -> 10


# -------------------------------------------------------------------------------- coding: error handling


@pytest.mark.parametrize(("response", "expected"), [
    ("try: except", 7.0),      # full try-except -> +4.0 (first branch)
    ("TRY: EXCEPT", 7.0),
    ("try:", 5.0),             # partial -> +2.0 (elif branch)
    ("except", 5.0),
    ("exception", 5.0),        # 'except' is a substring of 'exception'
    ("try except", 5.0),       # 'try' without ':' is not 'try:'; 'except' alone is partial
    ("try :", 3.0),            # nothing
    ("raise", 5.0),            # -> +2.0
    ("raises", 5.0),
    ("valueerror", 4.5),       # specific exception types -> +1.5
    ("ValueError", 4.5),
    ("TypeError", 4.5),
    ("FileNotFoundError", 4.5),
    ("KeyError", 4.5),
    ("ValueError TypeError KeyError", 4.5),  # once
    ("IndexError", 3.0),
    ("if not", 4.0),           # input validation -> +1.0
    ("assert", 4.0),
    ("validate", 4.0),
    ("if not assert validate", 4.0),
    ("try: except raise", 9.0),
])
def test_error_handling_indicators(response, expected):
    assert coding(response, "error_handling") == expected


def test_error_handling_clamped_at_ten():
    response = "try:\n  validate(x)\nexcept KeyError:\n  raise"
    assert coding(response, "error_handling") == 10.0  # 3 + 4 + 2 + 1.5 + 1 = 11.5 -> 10


def test_coding_final_score_uses_clamped_metrics():
    response = '"""d"""\n#c\n\tname_one=1\nname_two=2\nname_three=3\nname_four=4\ntry: x\nexcept KeyError: raise\n'
    response += "if not ok: pass\n" + "y" * 30
    result = gate("coding", response)
    assert result.metrics["readability"] == 10.0
    assert result.metrics["error_handling"] == 10.0
    expected = sum(result.metrics[name] * weight for name, weight in CODING_WEIGHTS.items())
    assert result.final_score == pytest.approx(expected, abs=1e-12)
    assert_matches_reference("coding", response, "C01")


def test_coding_kelvin_sign_lowercases_to_k():
    # "\u212a" (KELVIN SIGN) lower-cases to "k": the rules see "keyerror".
    assert coding("\u212aEYERROR", "error_handling") == 4.5


def test_coding_length_is_measured_on_the_lower_cased_response():
    # The seed's coding block reads a single lower-cased `response` (its terms are all lower case), so
    # `len(response) > 100` is the length of `response.lower()`: "İ" lower-cases to two code points.
    assert len("İ" * 60) == 60 and len(("İ" * 60).lower()) == 120
    assert coding("İ" * 60, "readability") == 5.5


@pytest.mark.parametrize(("prompt_id", "expected"), [
    ("P0025", 7.5),   # the integer in the id: 25
    ("p25", 7.5),
    ("25", 7.5),
    ("", 5.0),        # no number: no prompt-specific rule
    ("PXX", 5.0),
    ("P²⁵", 5.0),     # superscripts are not digits
])
def test_prompt_number_is_the_integer_in_the_id(prompt_id, expected):
    assert para("short", "prompt_adherence", prompt_id) == expected


# ---------------------------------------------------------------------------------------- lower clamp


def test_clamped_at_zero_below_the_bounds():
    # No seed rule can push a metric below 0 (the lowest reachable values are correctness 4.0, relevance 2.0,
    # fluency 3.0), so the clamp at 0 is checked with the seed's rules on a lowered base.
    low_correctness = with_base("coding", "correctness", 0.5)
    result = score_response(low_correctness, "coding", "an error", "C01")
    assert result.metrics["correctness"] == 0.0  # 0.5 - 1.0 -> 0
    assert result.final_score == pytest.approx(0.0 * 0.4 + 5.0 * 0.2 + 5.0 * 0.2 + 3.0 * 0.2)

    low_fluency = with_base("paraphrasing", "fluency_coherence", 2.0)
    result = score_response(low_fluency, "paraphrasing", "one", "P01")
    assert result.metrics["fluency_coherence"] == 0.0  # 2.0 - 3.0 -> 0


def test_lowest_reachable_seed_scores_are_not_clamped():
    assert para("", "relevance_fidelity") == 3.0          # 5 - 2
    assert para('"""""""', "relevance_fidelity") == 2.0   # 5 - 2 - 1
    assert para("", "fluency_coherence") == 3.0           # 6 - 3


# ------------------------------------------------------------------------------- paraphrasing: baseline


def test_paraphrasing_empty_response():
    result = gate("paraphrasing", "", "P01")
    # relevance 5 - 2 (fewer than 10 words); creativity 5 (diversity 0); fluency 6 - 3 (fewer than 5 words);
    # adherence 5.
    assert result.metrics == {
        "relevance_fidelity": 3.0, "creativity_originality": 5.0, "fluency_coherence": 3.0, "prompt_adherence": 5.0}
    assert result.final_score == pytest.approx(3.0 * 0.3 + 5.0 * 0.3 + 3.0 * 0.2 + 5.0 * 0.2)  # 4.0


def test_paraphrasing_empty_response_on_a_length_constrained_prompt():
    assert para("", "prompt_adherence", "P03") == 7.5  # 0 words <= 50


def test_paraphrasing_ten_plain_words():
    assert gate("paraphrasing", TEN).metrics == {
        "relevance_fidelity": 7.5, "creativity_originality": 7.0, "fluency_coherence": 6.0, "prompt_adherence": 5.0}


# ---------------------------------------------------------------------------- paraphrasing: relevance


@pytest.mark.parametrize(("words", "expected"), [
    (0, 3.0),      # < 10 -> -2.0
    (1, 3.0),
    (9, 3.0),
    (10, 7.5),     # 10..200 -> +2.5
    (200, 7.5),
    (201, 6.5),    # 200 < n <= 300 -> +1.5
    (300, 6.5),
    (301, 5.5),    # > 300 -> +0.5
    (1000, 5.5),
])
def test_relevance_word_count_branches(words, expected):
    assert para(" ".join(["word"] * words), "relevance_fidelity") == expected


def test_relevance_word_count_is_whitespace_split():
    assert para("word\tword\nword  word\r\nword word word word word word", "relevance_fidelity") == 7.5
    assert para("one,two,three,four,five,six,seven,eight,nine,ten,eleven", "relevance_fidelity") == 3.0


@pytest.mark.parametrize("term", ["explain", "describe", "meaning", "refers to", "EXPLAIN", "Refers To",
                                  "explained", "meaningful"])
def test_relevance_explanatory_terms(term):
    assert para(f"{TEN} {term}", "relevance_fidelity") == 8.5  # 5 + 2.5 + 1


def test_relevance_explanatory_terms_on_a_short_response():
    assert para("explain", "relevance_fidelity") == 4.0  # 5 + 1 - 2
    assert para("refers  to", "relevance_fidelity") == 3.0  # not the literal term


@pytest.mark.parametrize(("quotes", "expected"), [(0, 7.5), (6, 7.5), (7, 6.5), (20, 6.5)])
def test_relevance_quote_count(quotes, expected):
    assert para(TEN + " " + '"' * quotes, "relevance_fidelity") == expected  # 11 words or 10 when none


def test_relevance_quote_count_counts_only_double_quotes():
    assert para(TEN + " '''''''' “”“”“”“”", "relevance_fidelity") == 7.5
    assert para('"a" "b" "c" "d" plus six other words right here', "relevance_fidelity") == 6.5  # 10 words, 8 quotes


# ---------------------------------------------------------------------------- paraphrasing: creativity


@pytest.mark.parametrize("term", ["imagine", "creative", "unique", "innovative", "IMAGINE", "Uniquely"])
def test_creativity_creative_language(term):
    assert para(f"{term} " + " ".join(["word"] * 9), "creativity_originality") == 7.0  # diversity 0.2


@pytest.mark.parametrize("term", ["haiku", "poem", "story", "once upon", "metaphor", "HAIKU", "Poems", "history"])
def test_creativity_creative_formats(term):
    assert para(f"{term} " + " ".join(["word"] * 9), "creativity_originality") == 7.5


@pytest.mark.parametrize("mark", ["!", "?", "...", "—", "–"])
def test_creativity_expressive_punctuation(mark):
    assert para("word word word word" + mark, "creativity_originality") == 5.5  # diversity 0.25


@pytest.mark.parametrize("mark", [".", "..", "-", ",", ";"])
def test_creativity_plain_punctuation_is_not_expressive(mark):
    assert para("word word word word" + mark, "creativity_originality") == 5.0


@pytest.mark.parametrize(("response", "expected"), [
    ("a b c d e f g h i j", 7.0),      # 10/10 = 1.0 > 0.8 -> +2.0
    ("a b c d e f g h i i", 7.0),      # 9/10 = 0.9
    ("a b c d e f g h h h", 6.0),      # 8/10 = 0.8: not > 0.8, but > 0.6 -> +1.0
    ("a b c d e f g g g g", 6.0),      # 7/10 = 0.7
    ("a b c d e f f f f f", 5.0),      # 6/10 = 0.6: not > 0.6
    ("a b c d e E D C B A", 5.0),      # case-folded: 5/10 = 0.5
    ("word", 7.0),                     # 1/1
    ("", 5.0),                         # 0 when empty
    ("Hello, hello.", 7.0),            # words keep their punctuation: {"hello,", "hello."} -> 2/2
])
def test_creativity_vocab_diversity(response, expected):
    assert para(response, "creativity_originality") == expected


def test_creativity_clamped_at_ten():
    assert para("Imagine a unique poem!", "creativity_originality") == 10.0  # 5 + 2 + 2 + 2.5 + 0.5 = 12 -> 10


# ------------------------------------------------------------------------------- paraphrasing: fluency


@pytest.mark.parametrize(("response", "expected"), [
    (TEN, 6.0),                                          # one sentence
    (TEN_TWO_SENTENCES, 7.0),                            # two -> +1.0
    (TEN_THREE_SENTENCES, 8.0),                          # three -> +2.0
    (TEN + ". " + TEN + "! " + TEN + "?", 8.0),
    ("alpha bravo golf hotel kilo... lima mike oscar papa tango", 7.0),  # runs of [.!?] split once
    ("alpha bravo golf hotel kilo?! lima mike oscar papa tango", 7.0),
    (TEN + ". ", 6.0),                                   # a whitespace-only piece is not a sentence
    (TEN + ". \n . ! ", 6.0),
    ("... " + TEN + " ...", 6.0),
])
def test_fluency_sentence_count(response, expected):
    assert para(response, "fluency_coherence") == expected


@pytest.mark.parametrize("term", ["however", "therefore", "furthermore", "moreover", "additionally",
                                  "consequently", "However", "THEREFORE"])
def test_fluency_coherence_markers(term):
    assert para(f"{TEN} {term}", "fluency_coherence") == 7.5


def test_fluency_comma():
    assert para(TEN + ",", "fluency_coherence") == 6.5
    assert para(TEN + ",,,", "fluency_coherence") == 6.5
    assert para(TEN + "，", "fluency_coherence") == 6.0  # only the ASCII comma


@pytest.mark.parametrize(("words", "expected"), [
    (0, 3.0), (4, 3.0),       # < 5 -> -3.0
    (5, 5.0), (9, 5.0),       # < 10 -> -1.0 (elif)
    (10, 6.0), (400, 6.0),
])
def test_fluency_word_count_branches(words, expected):
    assert para(" ".join(["word"] * words), "fluency_coherence") == expected


def test_fluency_reaches_exactly_ten():
    assert para(TEN_THREE_SENTENCES + ", however", "fluency_coherence") == 10.0  # 6 + 2 + 1.5 + 0.5


# ------------------------------------------------------------------------------ paraphrasing: adherence


@pytest.mark.parametrize("prompt_id", ["P08", "P17", "P8", "P017", "C08", "prompt-17"])
@pytest.mark.parametrize("element", ["@", "dear", "sincerely", "regards", "email", "DEAR", "Best Regards",
                                     "Email"])
def test_adherence_email_elements_on_email_prompts(prompt_id, element):
    assert para(f"{element} x", "prompt_adherence", prompt_id) == 7.0


@pytest.mark.parametrize("prompt_id", ["P08", "P17"])
@pytest.mark.parametrize("marker", ["1.", "2.", "3.", "•", "-", "*"])
def test_adherence_list_structures_on_email_prompts(prompt_id, marker):
    assert para(f"{marker} x", "prompt_adherence", prompt_id) == 6.5


@pytest.mark.parametrize("marker", ["4.", "1)", "1 .", "·"])
def test_adherence_non_list_markers(marker):
    assert para(f"{marker} x", "prompt_adherence", "P08") == 5.0


def test_adherence_email_prompt_both_rules_and_tone():
    response = "Dear team,\n- item one\nKind regards, a friendly colleague"
    assert para(response, "prompt_adherence", "P08") == 9.5  # 5 + 2 + 1.5 + 1


def test_adherence_raw_response_rules_see_the_characters_as_written():
    # '@', the list markers and the expressive punctuation are matched on `response` (not lower-cased):
    # they fire regardless of the case of the text around them.
    assert para("CONTACT@EXAMPLE.COM", "prompt_adherence", "P08") == 7.0
    assert para("• FIRST ITEM", "prompt_adherence", "P17") == 6.5
    assert para("WOW WOW WOW WOW!", "creativity_originality") == 5.5


@pytest.mark.parametrize("prompt_id", ["P01", "P07", "P09", "P16", "P18", "P80", "P28", "C01", "X"])
def test_adherence_email_rules_do_not_fire_on_other_prompts(prompt_id):
    response = "Dear Ann, - 1. 2. 3. • * sincerely regards email a@b"
    assert para(response, "prompt_adherence", prompt_id) == 5.0


@pytest.mark.parametrize("prompt_id", ["P03", "P25", "P3", "C25"])
@pytest.mark.parametrize(("words", "expected"), [(0, 7.5), (1, 7.5), (50, 7.5), (51, 5.0), (300, 5.0)])
def test_adherence_length_constraint(prompt_id, words, expected):
    assert para(" ".join(["word"] * words), "prompt_adherence", prompt_id) == expected


@pytest.mark.parametrize("prompt_id", ["P02", "P04", "P24", "P26", "P30", "P13", "P35"])
def test_adherence_length_constraint_does_not_fire_on_other_prompts(prompt_id):
    assert para("short answer", "prompt_adherence", prompt_id) == 5.0


@pytest.mark.parametrize("term", ["rhyme", "verse", "poem", "POEM", "Verses", "rhymes", "universe"])
def test_adherence_recipe_poem(term):
    assert para(f"a {term} here", "prompt_adherence", "P23") == 7.0


@pytest.mark.parametrize("prompt_id", ["P22", "P24", "P08", "P01", "C01", "P230"])
def test_adherence_recipe_poem_does_not_fire_on_other_prompts(prompt_id):
    assert para("a rhyme in verse, a poem", "prompt_adherence", prompt_id) == 5.0


@pytest.mark.parametrize("term", ["formal", "casual", "professional", "friendly", "Informal", "FRIENDLY"])
@pytest.mark.parametrize("prompt_id", ["P01", "P08", "P23", "P30", "C01"])
def test_adherence_tone_on_every_prompt(term, prompt_id):
    assert para(f"a {term} tone", "prompt_adherence", prompt_id) == 6.0


def test_adherence_highest_reachable_values():
    assert para("Dear Ann - formal", "prompt_adherence", "P17") == 9.5  # 5 + 2 + 1.5 + 1
    assert para("a formal note", "prompt_adherence", "P25") == 8.5     # 5 + 2.5 + 1
    assert para("a formal poem", "prompt_adherence", "P23") == 8.0     # 5 + 2 + 1


def test_paraphrasing_final_score_weights():
    result = gate("paraphrasing", TEN_THREE_SENTENCES + ", however", "P01")
    m = result.metrics
    assert m == {"relevance_fidelity": 7.5, "creativity_originality": 7.0, "fluency_coherence": 10.0,
                 "prompt_adherence": 5.0}
    assert result.final_score == pytest.approx(7.5 * 0.3 + 7.0 * 0.3 + 10.0 * 0.2 + 5.0 * 0.2)  # 7.35


# -------------------------------------------------------------------------------- property: vs reference

TRIGGERS = [
    # coding
    "def ", "def", "return", "import", "from", "class ", "if ", "for ", "while ", "try:", "try", "(", ")", "()",
    "error", "exception", "handle", "o(n)", "O(n)", "o(log n)", "efficient", "optimize", "complexity", "dict",
    "set", "hash", "dictionary", "binary search", "sort", "heap", "nested loop", "o(n^2)", "o(n²)", "brute force",
    '"""', "'''", "#", "    ", "\t", "except", "raise", "ValueError", "TypeError", "FileNotFoundError",
    "KeyError", "if not", "assert", "validate", "==", "=", "!=", "+=",
    "alpha = 1", "bravo=2", "charlie =3", "delta= 4", "echo_five = x", "Alpha = 1", "abc = 2", "value == other",
    # paraphrasing
    "explain", "describe", "meaning", "refers to", "imagine", "creative", "unique", "innovative", "haiku", "poem",
    "story", "once upon", "metaphor", "!", "?", "...", "—", "–", "however", "therefore", "furthermore",
    "moreover", "additionally", "consequently", ",", '"', "dear", "Dear", "sincerely", "regards", "email", "@",
    "1.", "2.", "3.", "•", "-", "*", "rhyme", "verse", "formal", "casual", "professional", "friendly",
    "EXPLAIN", "However", "POEM", "DEF ", "RETURN",
    # compound: both halves of a try-except, many double quotes
    "try:\n  x()\nexcept ValueError:", "try: pass\nexcept:", '"a" "b" "c" "d"', 'said "yes"',
]
ORDINARY = [
    "the", "The", "a", "cat", "sat", "on", "mat", "quick", "brown", "fox", "jumps", "over", "lazy", "dog",
    "value", "list", "result", "data", "user", "name", "and", "of", "to", "in", "is", "it", "we", "you",
    ".", ";", ":", "'", "\n", "\n\n", " ", "  ", "x", "y", "42", "3.14", "İ", "\u212a", "ß", "é",
]
SEPARATORS = ["", " ", " ", " ", "\n", "  ", "\t", ". ", ", "]
PROMPT_IDS = [f"P{n:02d}" for n in range(1, 31)] + ["C01"]

NAMES = ["alpha", "bravo", "charlie", "delta", "echo_five", "Alpha", "ALPHA", "abc", "x", "_tmp", "value2"]
SPECIAL_PROMPT_IDS = ["P03", "P08", "P17", "P23", "P25"]


@st.composite
def assignments(draw) -> str:
    name = draw(st.sampled_from(NAMES))
    operator = draw(st.sampled_from(["=", " = ", "= ", " =", "==", " == ", "\n=", "+="]))
    return name + operator + draw(st.sampled_from(["1", "x", "None", "[]", ""]))


tokens = st.one_of(
    st.sampled_from(TRIGGERS),
    st.sampled_from(TRIGGERS),  # twice: trigger terms are drawn about half of the time
    st.sampled_from(ORDINARY),
    assignments(),
    st.text(max_size=4),
)


@st.composite
def responses(draw) -> str:
    size = draw(st.one_of(st.integers(min_value=0, max_value=6), st.integers(min_value=0, max_value=80)))
    parts = draw(st.lists(st.tuples(tokens, st.sampled_from(SEPARATORS)), min_size=size, max_size=size))
    text = "".join(token + sep for token, sep in parts)
    padding = draw(st.sampled_from([0, 0, 0, 3, 4, 5, 9, 10, 45, 50, 51, 195, 200, 201, 300, 301]))
    if padding:
        filler = draw(st.sampled_from(["word", "lorem ipsum", "x"]))
        text += " " + " ".join([filler] * padding)
    return text


prompt_ids = st.one_of(st.sampled_from(PROMPT_IDS), st.sampled_from(SPECIAL_PROMPT_IDS))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(response=responses(), prompt_id=prompt_ids)
def test_gate_matches_reference_on_generated_responses(response, prompt_id):
    for category in ("coding", "paraphrasing"):
        assert_matches_reference(category, response, prompt_id)


@settings(max_examples=300, deadline=None)
@given(response=st.text(max_size=200), prompt_id=st.sampled_from(PROMPT_IDS))
def test_gate_matches_reference_on_arbitrary_text(response, prompt_id):
    for category in ("coding", "paraphrasing"):
        assert_matches_reference(category, response, prompt_id)


# --------------------------------------------------------------------------- realistic fixed responses

REALISTIC = {
    "code_two_sum": (
        "Here is an efficient O(n) solution using a dictionary (hash map):\n\n"
        "```python\n"
        "def two_sum(nums, target):\n"
        '    """Return indices of the two numbers that add up to target."""\n'
        "    seen = {}  # value -> index\n"
        "    for index, value in enumerate(nums):\n"
        "        complement = target - value\n"
        "        if complement in seen:\n"
        "            return [seen[complement], index]\n"
        "        seen[value] = index\n"
        '    raise ValueError("no two numbers sum to target")\n'
        "```\n\n"
        "This avoids the brute force nested loop, which would be O(n^2)."
    ),
    "code_read_config": (
        "import json\nfrom pathlib import Path\n\n\n"
        "class ConfigLoader:\n"
        "    def __init__(self, path):\n"
        "        self.path = Path(path)\n\n"
        "    def load(self):\n"
        "        if not self.path.exists():\n"
        '            raise FileNotFoundError(f"missing {self.path}")\n'
        "        try:\n"
        "            with self.path.open() as handle:\n"
        "                return json.load(handle)\n"
        "        except json.JSONDecodeError as exc:\n"
        '            raise ValueError("bad config") from exc\n'
    ),
    "code_one_liner": "sorted(items, key=len)",
    "code_js": (
        "function fib(n) {\n\tlet a = 0, b = 1;\n\tfor (let i = 0; i < n; i++) {\n\t\t[a, b] = [b, a + b];\n\t}\n"
        "\treturn a;\n}\n// Runs in linear time; a memoized recursive version also works."
    ),
    "code_explanation_only": (
        "The error happens because the list is mutated while iterating over it. Copy the list first, "
        "or build a new one with a comprehension."
    ),
    "code_sql": "SELECT name, COUNT(*) AS total\nFROM orders\nGROUP BY name\nORDER BY total DESC;",
    "email_formal": (
        "Subject: Request for an extension\n\n"
        "Dear Professor Smith,\n\n"
        "I am writing to ask for a short extension on the final report. However, I have completed:\n"
        "1. the literature review;\n2. the data collection;\n3. most of the analysis.\n\n"
        "I would be grateful for two additional days. Please let me know if this is possible.\n\n"
        "Sincerely,\nJordan Lee\njordan.lee@example.edu"
    ),
    "email_casual": (
        "Hey Sam! Quick one - are we still on for Friday? I'll bring the snacks, you bring the board games. "
        "Cheers, Alex"
    ),
    "email_bullets": (
        "Hi all,\n\nA friendly reminder about tomorrow's meeting:\n• 10:00 start\n• Room 4B\n• Bring your laptops\n\n"
        "Best regards,\nPriya"
    ),
    "haiku": "Autumn moonlight—\na worm digs silently\ninto the chestnut.",
    "poem_recipe": (
        "A poem for pancakes, in simple verse:\n"
        "Two cups of flour, then milk to disperse,\n"
        "An egg and some butter, a whisk and a pan,\n"
        "Flip when they bubble, as fast as you can!\n"
        "Golden and stacked, with syrup to pour,\n"
        "Imagine the morning you wake up for more."
    ),
    "story": (
        "Once upon a time, in a village at the edge of a quiet forest, a young baker discovered that her bread "
        "could make people remember their happiest day... Word spread quickly! Travelers came from far away; "
        "consequently, the little bakery never closed again. Was it magic? Nobody could say."
    ),
    "summary_short": (
        "The article explains that remote work improves focus for many employees, but it also describes "
        "challenges with collaboration and onboarding."
    ),
    "summary_long": " ".join(
        ["Photosynthesis is the process by which plants convert light energy into chemical energy."] * 18
        + ["Moreover, it refers to a chain of reactions; therefore the meaning is broad."]
    ),
    "paraphrase_quotes": (
        'He said "we will" and "we must" and "we can" but the "plan" was "vague" and "unfunded" in '
        '"practice" overall.'
    ),
    "one_word": "Yes.",
    "one_word_no_punct": "Paris",
    "empty": "",
    "whitespace_only": "   \n\t  ",
    "refusal": "I'm sorry, but I can't help with that request.",
    "json_answer": '{"answer": 42, "confidence": "high", "explanation": "It is the meaning of life."}',
    "markdown_list": (
        "- Professional tone\n- Clear structure\n- Short sentences\n* Use **bold** for key terms\n"
        "1. Draft\n2. Review\n3. Send"
    ),
    "unicode_text": "Café déjà vu — naïve façade? İstanbul’s ß and ΣΊΣΥΦΟΣ... «guillemets»!",
    "limerick_fifty_words": " ".join(["There once was a coder named Lee"] * 7 + ["ok"]),
}


@pytest.mark.parametrize("name", sorted(REALISTIC))
@pytest.mark.parametrize("category", ["coding", "paraphrasing"])
def test_gate_matches_reference_on_realistic_responses(name, category):
    for prompt_id in PROMPT_IDS:
        assert_matches_reference(category, REALISTIC[name], prompt_id)


def test_realistic_responses_hand_checked():
    # A few realistic answers with hand-computed values, so the reference itself is not the only witness.
    two_sum = gate("coding", REALISTIC["code_two_sum"]).metrics
    # def, return, ('from'? no; 'import'? no), control, parens; no class; 'error' handled? 'try' absent and
    # 'handle' absent but the text says "valueerror" -> 'error' present -> -1.0.
    assert two_sum["correctness"] == 5.0 + 1.5 + 1.0 + 0.5 + 0.5 - 1.0
    assert two_sum["efficiency"] == 5.0 + 2.0 + 1.5 - 1.0  # o(n)/efficient, dict/hash, brute force/nested loop
    assert two_sum["readability"] == 10.0  # 5 + 2 + 1.5 + 0.5 + 1 (names: seen, complement -> 2) = 10.0
    assert two_sum["error_handling"] == 3.0 + 2.0 + 1.5  # raise, valueerror

    email = gate("paraphrasing", REALISTIC["email_formal"], "P08").metrics
    assert email["prompt_adherence"] == 5.0 + 2.0 + 1.5  # 'dear'/'@', '1.'; no tone word
    assert email["fluency_coherence"] == 6.0 + 2.0 + 1.5 + 0.5

    assert gate("paraphrasing", REALISTIC["one_word"], "P03").metrics == {
        "relevance_fidelity": 3.0, "creativity_originality": 7.0, "fluency_coherence": 3.0, "prompt_adherence": 7.5}
