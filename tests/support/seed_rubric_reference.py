"""Independent reference implementation of the seed's heuristic rubric.

Transcribed as literally as possible from the code blocks of ``seeds/heuristic-rubric.md``
(§2.2 coding, §3.2 paraphrasing, §4 scoring) with the precise reading of DESIGN §9:

- every coding rule matches ``response.lower()`` (including ``len(response) > 100``, which is
  evaluated on the same lower-cased text the other coding rules see);
- ``descriptive_names`` = the distinct names matched by ``\\b([A-Za-z_][A-Za-z0-9_]*)\\s*=(?!=)`` on the
  lower-cased response that are longer than 3 characters; +1.5 when there are more than 3 of them;
- paraphrasing: ``word_count = len(response.split())``; ``sentence_count`` = pieces of
  ``re.split(r'[.!?]+', response)`` that are non-empty after ``strip()``; ``vocab_diversity`` = distinct
  lower-cased words / words (0 when there are no words); ``quote_count`` = number of ``"`` characters;
  the prompt number is the integer in ``prompt_id`` (``P08`` -> 8);
- each paraphrasing rule matches ``response`` or ``response.lower()`` exactly as the seed writes it;
- every metric is clamped to [0, 10] after all of its rules; the final score is the weighted sum.

This module deliberately does not import anything from ``gate``: it is the oracle the gate is
compared against.
"""

from __future__ import annotations

import re

CODING_WEIGHTS: dict[str, float] = {
    "correctness": 0.4,
    "efficiency": 0.2,
    "readability": 0.2,
    "error_handling": 0.2,
}

PARAPHRASING_WEIGHTS: dict[str, float] = {
    "relevance_fidelity": 0.3,
    "creativity_originality": 0.3,
    "fluency_coherence": 0.2,
    "prompt_adherence": 0.2,
}

CODING_BASE: dict[str, float] = {
    "correctness": 5.0,
    "efficiency": 5.0,
    "readability": 5.0,
    "error_handling": 3.0,
}

PARAPHRASING_BASE: dict[str, float] = {
    "relevance_fidelity": 5.0,
    "creativity_originality": 5.0,
    "fluency_coherence": 6.0,
    "prompt_adherence": 5.0,
}

NAME_ASSIGNMENT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")


def _clamp(value: float) -> float:
    return max(0.0, min(10.0, value))


def descriptive_names(text: str) -> set[str]:
    """Distinct assigned names longer than 3 characters (DESIGN §9)."""
    return {name for name in NAME_ASSIGNMENT.findall(text) if len(name) > 3}


def prompt_number(prompt_id: str) -> int | None:
    """The integer in ``prompt_id`` (``P08`` -> 8); ``None`` when it has no digits."""
    match = re.search(r"\d+", prompt_id or "")
    return int(match.group()) if match else None


def word_count(response: str) -> int:
    return len(response.split())


def sentence_count(response: str) -> int:
    return len([piece for piece in re.split(r"[.!?]+", response) if piece.strip()])


def vocab_diversity(response: str) -> float:
    words = response.split()
    if not words:
        return 0.0
    return len({word.lower() for word in words}) / len(words)


def quote_count(response: str) -> int:
    return response.count('"')


# --------------------------------------------------------------------------------------------- coding


def coding_metrics(raw_response: str) -> dict[str, float]:
    response = raw_response.lower()

    # 2.2.1 Correctness, base 5.0
    correctness_score = 5.0
    if "def " in response:
        correctness_score += 1.5
    if "return" in response:
        correctness_score += 1.0
    if "import" in response or "from" in response:
        correctness_score += 0.5
    if "class " in response:
        correctness_score += 1.0
    if any(keyword in response for keyword in ["if ", "for ", "while ", "try:"]):
        correctness_score += 0.5
    if "(" in response and ")" in response:
        correctness_score += 0.5
    if "error" in response or "exception" in response:
        if "handle" not in response and "try" not in response:
            correctness_score -= 1.0

    # 2.2.2 Efficiency, base 5.0
    efficiency_score = 5.0
    if any(term in response for term in ["o(n)", "o(log", "efficient", "optimize", "complexity"]):
        efficiency_score += 2.0
    if any(term in response for term in ["dict", "set", "hash", "dictionary"]):
        efficiency_score += 1.5
    if any(term in response for term in ["binary search", "sort", "heap"]):
        efficiency_score += 1.0
    if any(term in response for term in ["nested loop", "o(n^2)", "o(n²)", "brute force"]):
        efficiency_score -= 1.0

    # 2.2.3 Readability, base 5.0
    readability_score = 5.0
    if '"""' in response or "'''" in response:
        readability_score += 2.0
    if "#" in response:
        readability_score += 1.5
    if len(response) > 100:
        readability_score += 0.5
    if len(descriptive_names(response)) > 3:
        readability_score += 1.5
    if "    " in response or "\t" in response:
        readability_score += 1.0

    # 2.2.4 Error handling, base 3.0
    error_handling_score = 3.0
    if "try:" in response and "except" in response:
        error_handling_score += 4.0
    elif "try:" in response or "except" in response:
        error_handling_score += 2.0
    if "raise" in response:
        error_handling_score += 2.0
    if any(term in response for term in ["valueerror", "typeerror", "filenotfounderror", "keyerror"]):
        error_handling_score += 1.5
    if any(term in response for term in ["if not", "assert", "validate"]):
        error_handling_score += 1.0

    return {
        "correctness": _clamp(correctness_score),
        "efficiency": _clamp(efficiency_score),
        "readability": _clamp(readability_score),
        "error_handling": _clamp(error_handling_score),
    }


# --------------------------------------------------------------------------------------- paraphrasing


def paraphrasing_metrics(response: str, prompt_id: str) -> dict[str, float]:
    words = word_count(response)
    sentences = sentence_count(response)
    diversity = vocab_diversity(response)
    quotes = quote_count(response)
    prompt_num = prompt_number(prompt_id)

    # 3.2.1 Relevance & Fidelity, base 5.0
    relevance_score = 5.0
    if 10 <= words <= 200:
        relevance_score += 2.5
    elif 200 < words <= 300:
        relevance_score += 1.5
    elif words > 300:
        relevance_score += 0.5
    if any(term in response.lower() for term in ["explain", "describe", "meaning", "refers to"]):
        relevance_score += 1.0
    if words < 10:
        relevance_score -= 2.0
    if quotes > 6:
        relevance_score -= 1.0

    # 3.2.2 Creativity & Originality, base 5.0
    creativity_score = 5.0
    if any(term in response.lower() for term in ["imagine", "creative", "unique", "innovative"]):
        creativity_score += 2.0
    if diversity > 0.8:
        creativity_score += 2.0
    elif diversity > 0.6:
        creativity_score += 1.0
    if any(term in response.lower() for term in ["haiku", "poem", "story", "once upon", "metaphor"]):
        creativity_score += 2.5
    if any(char in response for char in ["!", "?", "...", "—", "–"]):
        creativity_score += 0.5

    # 3.2.3 Fluency & Coherence, base 6.0
    fluency_score = 6.0
    if sentences >= 3:
        fluency_score += 2.0
    elif sentences >= 2:
        fluency_score += 1.0
    markers = ["however", "therefore", "furthermore", "moreover", "additionally", "consequently"]
    if any(term in response.lower() for term in markers):
        fluency_score += 1.5
    if response.count(",") > 0:
        fluency_score += 0.5
    if words < 5:
        fluency_score -= 3.0
    elif words < 10:
        fluency_score -= 1.0

    # 3.2.4 Prompt Adherence, base 5.0
    adherence_score = 5.0
    if prompt_num in [8, 17]:
        if "@" in response or any(term in response.lower() for term in ["dear", "sincerely", "regards", "email"]):
            adherence_score += 2.0
        if any(term in response for term in ["1.", "2.", "3.", "•", "-", "*"]):
            adherence_score += 1.5
    if prompt_num in [3, 25]:
        if words <= 50:
            adherence_score += 2.5
    if prompt_num == 23:
        if any(term in response.lower() for term in ["rhyme", "verse", "poem"]):
            adherence_score += 2.0
    if any(term in response.lower() for term in ["formal", "casual", "professional", "friendly"]):
        adherence_score += 1.0

    return {
        "relevance_fidelity": _clamp(relevance_score),
        "creativity_originality": _clamp(creativity_score),
        "fluency_coherence": _clamp(fluency_score),
        "prompt_adherence": _clamp(adherence_score),
    }


# -------------------------------------------------------------------------------------------- scoring


def weighted_score(metrics: dict[str, float], weights: dict[str, float]) -> float:
    return sum(metrics[name] * weight for name, weight in weights.items())


def reference_score(category: str, response: str, prompt_id: str) -> tuple[dict[str, float], float]:
    """Metric scores (each clamped to [0, 10]) and the weighted final score for one response."""
    key = category.strip().lower()
    if key == "coding":
        metrics = coding_metrics(response)
        return metrics, weighted_score(metrics, CODING_WEIGHTS)
    if key.startswith("paraphras"):
        metrics = paraphrasing_metrics(response, prompt_id)
        return metrics, weighted_score(metrics, PARAPHRASING_WEIGHTS)
    raise ValueError(f"unknown category {category!r}")
