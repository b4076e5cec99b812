"""gate.yml's `providers:` and a suite's `generate:`: every mistake is one located problem, all at once."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gate.config.loader import load_config, parse_config
from gate.errors import ConfigError
from gate.kinds import KINDS

BASE = """version: 1
providers:
  chat: {type: openai, base_url: "https://api.openai.com/v1"}
suites:
  s:
    kind: heuristic
    records: outputs/h/*.jsonl
    generate:
      provider: chat
      models: [m]
      dataset: prompts.jsonl
"""


def problems(text: str, catalogue=KINDS) -> dict[str, tuple[int | None, str, str]]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, metrics=catalogue)
    return {p.field: (p.line, p.expected, p.found) for p in caught.value.problems}


def test_a_valid_generate_section_and_its_default_output():
    from gate.config.generation import generated_file

    config = parse_config(BASE, metrics=None)
    suite = config.suites["s"]
    assert generated_file("s", suite.generate, suite.records) == "outputs/h/s.jsonl"
    assert config.cassettes == "cassettes" and config.providers["chat"].concurrency == 4


def test_every_problem_located_at_once():
    text = (BASE.replace("provider: chat", "provider: chatt").replace("models: [m]", "models: []")
            .replace('type: openai, base_url: "https://api.openai.com/v1"',
                     'type: openai, base_url: "ftp://x", api_key_env: GITHUB_TOKEN'))
    found = problems(text)
    assert set(found) == {"providers.chat.base_url", "providers.chat.api_key_env", "suites.s.generate.models"}
    assert found["suites.s.generate.models"][0] == 10 and found["providers.chat.base_url"][0] == 3
    assert "must be an http(s) URL" in found["providers.chat.base_url"][2]
    assert "GITHUB_TOKEN is a GitHub or Actions variable" in found["providers.chat.api_key_env"][2]
    # the schema errors first; the provider name is checked once the schema holds
    assert problems(BASE.replace("provider: chat", "provider: chatt"), None)["suites.s.generate.provider"][:2] == (
        9, "a provider defined under `providers:` (chat)")


def test_output_must_be_read_by_the_suite_and_stay_in_the_workspace(tmp_path):
    catalogue = {"heuristic": SimpleNamespace(generation=SimpleNamespace(reads="records"), metrics={}, levels=(),
                                              metrics_of=None, knows=lambda m: True, impossible=lambda *a: None)}
    found = problems(BASE + "      output: elsewhere/s.jsonl\n", catalogue)
    assert found["suites.s.generate.output"][0] == 12 and "outputs/h/*.jsonl" in found["suites.s.generate.output"][1]
    fixed = BASE.replace("records: outputs/h/*.jsonl", "records: [outputs/*/*.jsonl]")
    assert "suites.s.generate.output" in problems(fixed, catalogue)  # no fixed folder: output must be given
    (tmp_path / "gate.yml").write_text(BASE.replace("records: outputs/h/*.jsonl", "records: ../*.jsonl")
                                       + "      output: ../s.jsonl\n")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "gate.yml", metrics=None)
    assert {p.field for p in caught.value.problems} >= {"suites.s.generate.output"}


def test_a_kind_without_a_recipe_and_a_dollar_budget_without_a_price():
    catalogue = {"heuristic": SimpleNamespace(generation=None, metrics={}, levels=(), metrics_of=None,
                                              knows=lambda m: True, impossible=lambda *a: None)}
    found = problems(BASE, catalogue)
    assert found["suites.s.generate"][1:] == ("a suite whose kind can generate its records",
                                              "kind heuristic has no generation recipe")
    priced = problems(BASE + "      budget: {max_usd: 2}\n")
    assert "`price` beside `budget.max_usd`" in priced["suites.s.generate"][1]
    assert priced["suites.s.generate"][2] == "`budget.max_usd: 2` without `price`"


def test_json_mode_is_a_parameter_a_local_model_cannot_take():
    json_mode = BASE + "      parameters: {response_format: json_object}\n"
    assert parse_config(json_mode, metrics=KINDS).suites["s"].generate.parameters.response_format == "json_object"
    [(field, (line, expected, found))] = problems(json_mode.replace("      parameters: {response_format: json_object}",
                                                                    "      parameters: {response_format: json_schema}")
                                                  ).items()
    assert field == "suites.s.generate.parameters.response_format" and "json_object" in expected
    local = json_mode.replace('chat: {type: openai, base_url: "https://api.openai.com/v1"}',
                              "chat: {type: local, model: gpt2}")
    [(field, (line, expected, found))] = problems(local).items()
    assert field == "suites.s.generate.parameters.response_format" and line == 12
    assert "held to a JSON answer" in expected and found == "local provider 'chat'"
