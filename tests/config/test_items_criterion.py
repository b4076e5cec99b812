"""An `items:` criterion is checked as gate.yml is read where the suite's entry alone tells its item values
(`Kind.item_values`): a typo fails `validate` with the values it could name, before anything is scored."""

from __future__ import annotations

import pytest
import yaml

from gate.config.loader import parse_config
from gate.errors import ConfigError
from gate.kinds import KINDS
from tests.kinds.test_contract import SAMPLES


def text_of(entry: dict) -> str:
    return yaml.safe_dump({"version": 1, "suites": {"s": entry}}, sort_keys=False)


def problems(entry: dict) -> dict[str, tuple[int | None, str, str, str]]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text_of(entry), "gate.yml", metrics=KINDS)
    return {p.field: (p.line, p.expected, p.found, p.fix or "") for p in caught.value.problems}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_an_unknown_criterion_value_is_located_with_the_values_to_name(kind, tmp_path):
    entry = {**SAMPLES[kind](tmp_path), "items": {"criterion": {"metric": "no_such_value", "min": 1}}}
    found = problems(entry)
    line, expected, value, _ = found["suites.s.items.criterion.metric"]
    assert line == next(n for n, text in enumerate(text_of(entry).splitlines(), 1) if "no_such_value" in text)
    values = KINDS[kind].item_values(entry)
    assert values and expected == f"an item value of this {kind} suite: {', '.join(values[:30])}"
    assert value == "unknown item value 'no_such_value'"


@pytest.mark.parametrize("kind", sorted(set(SAMPLES) - {"trajectory"}))
def test_every_value_the_suite_measures_may_be_a_criterion(kind, tmp_path):
    entry = SAMPLES[kind](tmp_path)
    for value in KINDS[kind].item_values(entry) or ():
        parse_config(text_of({**entry, "items": {"criterion": {"metric": value, "max": 0.5}}}), metrics=KINDS)


def test_a_typo_gets_the_close_name():
    entry = {"kind": "heuristic", "records": "r.jsonl", "items": {"criterion": {"metric": "final_scor", "min": 6}}}
    assert problems(entry)["suites.s.items.criterion.metric"][3] == "did you mean 'final_score'?"


def test_a_kind_that_measures_pass_rates_itself_takes_no_items(tmp_path):
    entry = {**SAMPLES["trajectory"](tmp_path), "items": {"criterion": {"metric": "success", "min": 1}}}
    [(field, (_, expected, found, fix))] = problems(entry).items()
    assert field == "suites.s.items.criterion" and "passed" in found and fix.startswith("drop `items:`")


def test_values_only_the_inputs_tell_are_left_to_the_run():
    """A rubric file's criteria are its own: the loader cannot know them, so the run checks them on the records
    (tests/judge/test_kofn_end_to_end.py)."""
    entry = {"kind": "heuristic", "records": "r.jsonl", "rubric": "house.yml",
             "items": {"criterion": {"metric": "house_criterion", "min": 6}}}
    assert KINDS["heuristic"].item_values(entry) is None
    assert parse_config(text_of(entry), metrics=KINDS).suites["s"].items is not None


def test_an_entry_the_schema_rejects_gets_only_the_schemas_problems():
    entry = {"kind": "heuristic", "records": "r.jsonl", "bogus": 1,
             "items": {"criterion": {"metric": "no_such_value", "min": 6}}}
    assert list(problems(entry)) == ["suites.s.bogus"]
