"""Tool-sequence edit distance and the side-by-side comparison, against a reference written here: the textbook
Levenshtein recurrence, memoised, independent of the scorer's two-row dynamic programme."""

from __future__ import annotations

import random
from functools import cache

import pytest

from gate.kinds.trajectory.runs import Run, Step
from gate.kinds.trajectory.sequences import (
    ADDED,
    ARGUMENTS,
    DROPPED,
    MOVED,
    UNCHANGED,
    alignment,
    compare,
    edit_distance,
    nearest,
    summary,
)


def levenshtein(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """lev(a, b) = |a| if b is empty, |b| if a is empty, lev(tail a, tail b) if the heads match, else
    1 + min(lev(tail a, b), lev(a, tail b), lev(tail a, tail b))."""
    @cache
    def lev(i: int, j: int) -> int:
        if i == len(a):
            return len(b) - j
        if j == len(b):
            return len(a) - i
        if a[i] == b[j]:
            return lev(i + 1, j + 1)
        return 1 + min(lev(i + 1, j), lev(i, j + 1), lev(i + 1, j + 1))
    return lev(0, 0)


def test_known_distances():
    assert edit_distance((), ()) == 0
    assert edit_distance(("search",), ()) == 1
    assert edit_distance((), ("a", "b", "c")) == 3
    assert edit_distance(("search", "get_weather"), ("search", "get_weather")) == 0
    assert edit_distance(("search", "get_weather"), ("get_weather",)) == 1  # a dropped call
    assert edit_distance(("search", "get_weather"), ("get_weather", "search")) == 2  # a swap costs 2
    assert edit_distance(("a", "b", "c"), ("a", "x", "c")) == 1  # one call replaced
    assert edit_distance(tuple("kitten"), tuple("sitting")) == 3


def test_distance_matches_the_reference_on_random_sequences():
    rng = random.Random(36)
    tools = ["search", "read", "write", "ls", "get_weather"]
    for _ in range(600):
        a = tuple(rng.choice(tools) for _ in range(rng.randint(0, 9)))
        b = tuple(rng.choice(tools) for _ in range(rng.randint(0, 9)))
        expected = levenshtein(a, b)
        assert edit_distance(a, b) == expected == edit_distance(b, a), (a, b)
        pairs = alignment(a, b)
        # the alignment is one cheapest edit script: each call of each side once, in order, at the distance's cost
        assert [i for i, _ in pairs if i is not None] == list(range(len(a)))
        assert [j for _, j in pairs if j is not None] == list(range(len(b)))
        assert sum(1 for i, j in pairs if i is None or j is None or a[i] != b[j]) == expected


def steps(*calls) -> tuple[Step, ...]:
    return tuple(Step(tool, arguments) for tool, arguments in calls)


def test_a_dropped_call():
    rows = compare(steps(("search", {"q": "x"}), ("get_weather", {"city": "Paris"})),
                   steps(("get_weather", {"city": "Paris"})))
    assert [(r.baseline, r.candidate, r.change) for r in rows] == [(0, None, DROPPED), (1, 0, UNCHANGED)]
    assert summary(rows) == {ADDED: 0, DROPPED: 1, MOVED: 0, ARGUMENTS: 0}


def test_an_added_call_and_changed_arguments_whatever_the_key_order():
    rows = compare(steps(("ls", {"path": "/a", "all": True})),
                   steps(("ls", {"all": True, "path": "/a"}), ("rm", {"path": "/a"})))
    assert [r.change for r in rows] == [UNCHANGED, ADDED]
    rows = compare(steps(("ls", {"path": "/a"})), steps(("ls", {"path": "/b"})))
    assert [r.change for r in rows] == [ARGUMENTS]
    assert summary(rows)[ARGUMENTS] == 1


def test_a_reordered_call_is_a_move_not_a_drop_and_an_add():
    baseline = steps(("search", 1), ("get_weather", 2), ("answer", 3))
    run = steps(("get_weather", 2), ("answer", 3), ("search", 1))
    rows = compare(baseline, run)
    assert summary(rows) == {ADDED: 0, DROPPED: 0, MOVED: 1, ARGUMENTS: 0}
    moved = [r for r in rows if r.change == MOVED]
    assert {(r.baseline, r.candidate, r.note) for r in moved} == {(0, None, "now step 3"), (None, 2, "was step 1")}


def test_a_replaced_call_is_a_drop_and_an_add():
    rows = compare(steps(("search", 1), ("get_weather", 2)), steps(("search", 1), ("get_forecast", 2)))
    assert summary(rows) == {ADDED: 1, DROPPED: 1, MOVED: 0, ARGUMENTS: 0}


@pytest.mark.parametrize("baseline, expected", [
    ([("a", "b"), ("a", "c", "b")], (0, 0)),  # the equal one, not the first
    ([("x",), ("a", "c")], (1, 1)),  # ties: the first of the closest
])
def test_nearest_is_the_closest_baseline_run_of_the_task(baseline, expected):
    runs = [Run("t", "base", None, steps(*((tool, None) for tool in tools))) for tools in baseline]
    found = nearest(Run("t", "m", None, steps(("a", None), ("b", None))), runs)
    assert found is not None and (runs.index(found[0]), found[1]) == expected
    assert nearest(Run("t", "m", None, ()), []) is None
