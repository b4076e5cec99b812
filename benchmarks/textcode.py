"""Heuristic-suite responses: coding answers (prose + a Python code block) and paraphrasing answers.

Pure and seeded like `textgen`; the rubric's indicators (docstrings, try/except, O(n), email words, ...)
appear with varying probability so scores spread over the scale.
"""

from __future__ import annotations

import random

import textgen as tg

TASKS = (("merge_intervals", "intervals", "the merged intervals"), ("count_words", "text", "a word count"),
         ("find_duplicates", "items", "the duplicated items"), ("top_k_items", "scores", "the k best items"),
         ("moving_average", "values", "the moving averages"), ("parse_records", "lines", "the parsed records"),
         ("group_by_key", "rows", "the rows grouped by key"), ("flatten_tree", "node", "the flattened nodes"))


def _code(rng: random.Random) -> str:
    name, arg, what = rng.choice(TASKS)
    lines = [f"def {name}({arg}, limit=None):"]
    if rng.random() < 0.6:
        lines.append(f'    """Return {what} of `{arg}`; `limit` caps how many are kept."""')
    if rng.random() < 0.5:
        lines += [f"    if not {arg}:", f'        raise ValueError("{arg} must not be empty")']
    container = rng.choice(["{}", "[]", "set()"])
    lines += [f"    result = {container}", "    seen_count = 0"]
    body = [f"    for position, value in enumerate({arg}):",
            "        # keep the first occurrence of every value",
            "        seen_count += 1",
            "        if limit is not None and seen_count > limit:",
            "            break"]
    body.append("        result[value] = position" if container == "{}" else
                "        result.append(value)" if container == "[]" else "        result.add(value)")
    if rng.random() < 0.5:
        lines += ["    try:", *("    " + line for line in body), "    except TypeError as error:",
                  f'        raise TypeError(f"unhashable value in {arg}: {{error}}") from error']
    else:
        lines += body
    lines.append("    return result")
    if rng.random() < 0.4:
        lines = ["import itertools", "from collections import defaultdict", "", *lines]
    return "\n".join(lines)


def coding_response(rng: random.Random) -> str:
    intro = tg.paragraph(rng, "feedback", 30, 90)
    notes = rng.choice(["This runs in O(n) time with a dict lookup per element.",
                        "A nested loop would be O(n^2), so a hash set keeps it linear.",
                        "Sorting first would make it O(n log n), which is still efficient.",
                        "The brute force version is easier to read but slower on large inputs.",
                        "It handles the empty input explicitly instead of failing later."])
    outro = tg.paragraph(rng, "feedback", 20, 120)
    return f"{intro}\n\n```python\n{_code(rng)}\n```\n\n{notes} {outro}"


def paraphrasing_response(rng: random.Random, prompt: int) -> str:
    domain = rng.choice(["handbook", "social", "science"])
    if prompt in (3, 25):
        return tg.paragraph(rng, domain, 20, 50)
    text = tg.paragraph(rng, domain, 80, 380)
    if prompt in (8, 17):
        text = f"Dear team,\n\n{text}\n\n1. Review the change.\n2. Confirm by Friday.\n\nKind regards,\nAlex"
    elif prompt == 23:
        text = f"A poem in verse, with a gentle rhyme:\n{text}"
    extra = rng.random()
    if extra < 0.2:
        text += " Imagine the same idea told as a short story — would it still hold?"
    elif extra < 0.4:
        text += ' As the author put it, "less is more", and "clarity wins".'
    return text
