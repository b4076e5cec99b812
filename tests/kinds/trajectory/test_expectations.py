"""Each expectation of `expect:` on a run: what holds, what fails and how the failure reads."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gate.kinds.trajectory.config import Expectation
from gate.kinds.trajectory.expectations import expectations_for, failures, is_subsequence
from gate.kinds.trajectory.runs import Run, Step

RUN = Run("weather", "m", None, (Step("search", {"q": "Paris"}), Step("get_weather", {"city": "Paris", "days": 9}),
                                 Step("search", {"q": "again"})), final_answer="  It is 18 °C in Paris. ",
          tokens=1200, latency=4.5, cost=None)


def missed(**expectation) -> list[str]:
    return failures(RUN, (Expectation.model_validate(expectation),))


@pytest.mark.parametrize("expectation, expected", [
    ({"tools_called": ["search", "get_weather"]}, []),
    ({"tools_called": ["get_forecast"]}, ["tools_called: get_forecast never called"]),
    ({"tools_never": ["delete_file"]}, []),
    ({"tools_never": ["get_weather"]}, ["tools_never: get_weather called (step 2)"]),
    ({"order": ["search", "get_weather"]}, []),
    ({"order": ["search", "search"]}, []),  # a subsequence: other calls may come between
    ({"order": ["get_weather", "search", "search"]}, ["order: expected get_weather → search → search; no search "
                                                      "after get_weather → search"]),
    ({"order": ["answer"]}, ["order: expected answer; answer never called"]),
    ({"arguments": {"get_weather": {"type": "object", "required": ["city"]}}}, []),
    ({"arguments": {"get_weather": {"properties": {"days": {"maximum": 7}, "city": {"const": "Lyon"}}}}},
     ['arguments of get_weather (step 2): $.city: expected "Lyon", found "Paris"; $.days: 9 is above maximum 7']),
    ({"arguments": {"search": {"properties": {"q": {"const": "Paris"}}}}},
     ['arguments of search (step 3): $.q: expected "Paris", found "again"']),  # every call of the tool
    ({"arguments": {"never_called": False}}, []),
    ({"max_steps": 3, "max_tokens": 1200, "max_latency": 4.5}, []),
    ({"max_steps": 2, "max_tokens": 1000}, ["max_steps: 3 > 2", "max_tokens: 1200 > 1000"]),
    ({"max_cost": 1}, ["max_cost: the run gives no cost, so the limit 1 cannot be shown to hold"]),
    ({"answer": {"exact": "It is 18 °C in Paris."}}, []),
    ({"answer": {"exact": "it is 18 °c in paris.", "ignore_case": True}}, []),
    ({"answer": {"exact": "18 °C"}}, ["answer: expected '18 °C', found 'It is 18 °C in Paris.'"]),
    ({"answer": {"contains": ["18 °C", "Paris"]}}, []),
    ({"answer": {"contains": ["Lyon", "paris"]}}, ["answer: does not contain 'Lyon'", "answer: does not contain "
                                                   "'paris'"]),
])
def test_each_expectation(expectation, expected):
    assert missed(**expectation) == expected


def test_every_task_entry_applies_with_the_tasks_own():
    expectations = {"*": Expectation(tools_never=["rm"]), "weather": Expectation(max_steps=2)}
    applying = expectations_for("weather", expectations)
    assert len(applying) == 2 and failures(RUN, applying) == ["max_steps: 3 > 2"]
    assert expectations_for("other", expectations) == (expectations["*"],)
    assert expectations_for("other", {}) == ()
    no_answer = Run("t", "m", None, ())
    assert failures(no_answer, (Expectation.model_validate({"answer": {"contains": ["x"]}}),)) == [
        "answer: the run has no final answer"]


def test_subsequence():
    assert is_subsequence([], ())
    assert is_subsequence(["a", "c"], ("a", "b", "c"))
    assert not is_subsequence(["c", "a"], ("a", "b", "c"))


@pytest.mark.parametrize("expectation, message", [
    ({"answer": {}}, "one of `exact`, `contains` or `similar_to`"),
    ({"arguments": {"t": {"$ref": "#/x"}}}, "t.$ref: unsupported keyword"),
    ({"max_steps": -1}, "greater than or equal to 0"),
    ({"tools_called": "search"}, "valid list"),
    ({"tool_called": ["search"]}, "Extra inputs are not permitted"),
])
def test_a_wrong_expectation_is_refused(expectation, message):
    with pytest.raises(ValidationError) as caught:
        Expectation.model_validate(expectation)
    assert message in str(caught.value)
