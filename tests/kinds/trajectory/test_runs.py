"""Tool-call arguments as comparable text (`gate.kinds.trajectory.runs.canonical`): the `json` module's sorted,
compact text for any arguments, and the same text for arguments nested deeper than Python recurses."""

from __future__ import annotations

import json
import random

from gate.kinds.trajectory.runs import _canonical_deep, arguments_of, canonical


def _reference(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _generated(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 5 or roll < 0.3:
        return rng.choice([0, 1.5, -2, True, False, None, "a", 'é\n"', 10**30, ""])
    if roll < 0.65:
        return [_generated(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(["b", "a", "c", "é", "1", ""]): _generated(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def test_the_stack_writer_gives_the_json_modules_text():
    rng = random.Random(5)
    for _ in range(5000):
        value = _generated(rng)
        assert _canonical_deep(value) == _reference(value), value


def test_arguments_nested_past_pythons_recursion_are_compared_not_crashed():
    """A model's call whose arguments nest 5,000 levels: json.dumps raises RecursionError, which ended the run as an
    internal error; two such calls compare equal exactly when their arguments do."""
    def nested(leaf: object) -> object:
        value = leaf
        for _ in range(5000):
            value = {"k": [value]}
        return value

    assert canonical(nested(1)) == canonical(nested(1)) != canonical(nested(2))
    assert canonical(nested(1)).startswith('{"k":[{"k":[') and canonical(nested(1)).endswith("1" + "]}" * 5000)
    assert arguments_of('{"city": "Paris"}') == {"city": "Paris"} and canonical({"b": 1, "a": 2}) == '{"a":2,"b":1}'
