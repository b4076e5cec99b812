"""Settings from the environment: CLI over INPUT_* over defaults, the GitHub context, and a token never shown."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from gate.config.settings import FailOn, GitHubContext, Settings
from gate.errors import ConfigError, ExitCode

TOKEN = "ghs_s3cr3tT0k3nValue"


def test_defaults_with_an_empty_environment():
    settings = Settings.from_env({})
    assert settings.config_path == Path("gate.yml")
    assert settings.output_dir is None
    assert settings.suites == ()
    assert settings.publish is True
    assert settings.fail_on is FailOn.FAIL
    assert settings.github == GitHubContext()
    assert settings.github.api_url == "https://api.github.com"
    assert settings.github.in_actions is False and settings.github.token is None
    assert settings.github.run_url is None


def test_action_inputs_override_defaults():
    env = {"INPUT_CONFIG": "ci/gate.yml", "INPUT_OUTPUT_DIR": "out", "INPUT_SUITES": "a, b,,c",
           "INPUT_PUBLISH": "false", "INPUT_FAIL_ON": "warn"}
    settings = Settings.from_env(env)
    assert settings.config_path == Path("ci/gate.yml")
    assert settings.output_dir == Path("out")
    assert settings.suites == ("a", "b", "c")
    assert settings.publish is False
    assert settings.fail_on is FailOn.WARN


def test_command_line_values_override_inputs():
    env = {"INPUT_CONFIG": "ci/gate.yml", "INPUT_OUTPUT_DIR": "out", "INPUT_SUITES": "a,b",
           "INPUT_PUBLISH": "false", "INPUT_FAIL_ON": "warn"}
    settings = Settings.from_env(env, config="mine.yml", output_dir="here", suites=("z",), publish=True,
                                 fail_on="fail")
    assert settings.config_path == Path("mine.yml")
    assert settings.output_dir == Path("here")
    assert settings.suites == ("z",)
    assert settings.publish is True
    assert settings.fail_on is FailOn.FAIL


def test_blank_inputs_count_as_unset():
    # the runner passes every declared input, empty when the workflow leaves it out
    env = {"INPUT_CONFIG": "  ", "INPUT_OUTPUT_DIR": "", "INPUT_SUITES": "\n", "INPUT_PUBLISH": "",
           "INPUT_FAIL_ON": " "}
    settings = Settings.from_env(env)
    assert (settings.config_path, settings.output_dir, settings.suites, settings.publish, settings.fail_on) == \
        (Path("gate.yml"), None, (), True, FailOn.FAIL)


def test_suites_split_on_commas_and_newlines():
    settings = Settings.from_env({"INPUT_SUITES": "feedback-drift\n  fairness, retrieval \n\n,heuristic\n"})
    assert settings.suites == ("feedback-drift", "fairness", "retrieval", "heuristic")


@pytest.mark.parametrize(("text", "expected"), [("true", True), ("TRUE", True), ("yes", True), ("false", False),
                                                ("False", False), ("0", False), ("no", False), ("off", False)])
def test_publish_input(text, expected):
    assert Settings.from_env({"INPUT_PUBLISH": text}).publish is expected


def test_bad_fail_on_names_the_field():
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"INPUT_FAIL_ON": "bogus"})
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    [problem] = caught.value.problems
    assert problem.field == "fail_on" and problem.found == "'bogus'" and "'fail' or 'warn'" in problem.expected
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({}, fail_on="never")
    assert caught.value.problems[0].field == "--fail-on"


GITHUB_ENV = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_API_URL": "http://127.0.0.1:8765/api/v3",
    "GITHUB_SERVER_URL": "http://127.0.0.1:8765",
    "GITHUB_REPOSITORY": "octo/repo",
    "GITHUB_EVENT_NAME": "pull_request",
    "GITHUB_EVENT_PATH": "/github/workflow/event.json",
    "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
    "GITHUB_RUN_ID": "4242",
    "GITHUB_WORKSPACE": "/github/workspace",
    "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
    "GITHUB_OUTPUT": "/github/file_commands/set_output_1",
}


def test_github_context_from_the_standard_variables():
    github = Settings.from_env(GITHUB_ENV).github
    assert github == GitHubContext(
        api_url="http://127.0.0.1:8765/api/v3", server_url="http://127.0.0.1:8765", repository="octo/repo",
        event_name="pull_request", event_path=Path("/github/workflow/event.json"),
        sha="0123456789abcdef0123456789abcdef01234567", run_id="4242", workspace=Path("/github/workspace"),
        step_summary=Path("/github/file_commands/step_summary_1"), output=Path("/github/file_commands/set_output_1"),
        in_actions=True, token=None)
    assert github.run_url == "http://127.0.0.1:8765/octo/repo/actions/runs/4242"


def test_run_url_on_github_com():
    github = Settings.from_env({"GITHUB_REPOSITORY": "octo/repo", "GITHUB_RUN_ID": "7"}).github
    assert github.run_url == "https://github.com/octo/repo/actions/runs/7"


def test_token_from_the_input_or_the_environment():
    assert Settings.from_env({"GITHUB_TOKEN": "env-token"}).github.token == "env-token"
    assert Settings.from_env({"INPUT_GITHUB_TOKEN": "input-token"}).github.token == "input-token"
    both = {"INPUT_GITHUB_TOKEN": "input-token", "GITHUB_TOKEN": "env-token"}
    assert Settings.from_env(both).github.token == "input-token"
    assert Settings.from_env({"INPUT_GITHUB_TOKEN": " ", "GITHUB_TOKEN": "env-token"}).github.token == "env-token"


def test_the_token_is_never_in_the_repr():
    settings = Settings.from_env({**GITHUB_ENV, "INPUT_GITHUB_TOKEN": TOKEN})
    assert settings.github.token == TOKEN
    for text in (repr(settings), str(settings), repr(settings.github), str(settings.github)):
        assert TOKEN not in text
    assert "octo/repo" in repr(settings)  # the rest of the context is still there


def test_settings_are_frozen():
    settings = Settings.from_env({})
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.publish = False  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.github.token = "x"  # type: ignore[misc]


def test_the_environment_a_run_needs_is_in_the_settings():
    """Read once here and handed down: the shard inputs, the model directories and the hub switch."""
    env = {"INPUT_SHARDS": "a/s1.npz\n b/ ", "HF_HUB_OFFLINE": "1",
           "LLM_GATE_MODEL_DIR": f"/opt/models{os.pathsep}{os.pathsep}/more"}
    settings = Settings.from_env(env)
    assert settings.shards == (Path("a/s1.npz"), Path("b"))
    assert settings.model_dirs == (Path("/opt/models"), Path("/more")) and settings.hub_offline is True
    given = Settings.from_env(env, shards=("x.npz",))
    assert given.shards == (Path("x.npz"),)  # the command line wins
    empty = Settings.from_env({})
    assert (empty.shards, empty.model_dirs, empty.hub_offline) == ((), (), False)


def test_base_checkout_and_candidates_dir_are_the_workflows_and_must_exist(tmp_path):
    """The trust boundary's two directories: the config is read from the base checkout, relative to it; a missing
    directory is a located error naming the step that should have made it."""
    (tmp_path / "base").mkdir()
    settings = Settings.from_env({"INPUT_BASE_CHECKOUT": str(tmp_path / "base"), "INPUT_CONFIG": "ci/gate.yml"})
    assert settings.base_checkout == tmp_path / "base"
    assert settings.config_path == tmp_path / "base" / "ci" / "gate.yml"
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"INPUT_CANDIDATES_DIR": str(tmp_path / "missing")})
    [problem] = caught.value.problems
    assert problem.field == "candidates_dir" and "does not exist" in (problem.found or "")


def test_check_name_comment_title_and_comment_mode_from_inputs_and_options():
    assert (Settings.from_env({}).check_name, Settings.from_env({}).comment_title,
            Settings.from_env({}).comment_mode) == (None, None, None)
    env = {"INPUT_CHECK_NAME": " quality (rubric) ", "INPUT_COMMENT_TITLE": "quality rubric",
           "INPUT_COMMENT_MODE": "failures"}
    settings = Settings.from_env(env)
    assert (settings.check_name, settings.comment_title, settings.comment_mode.value) == (
        "quality (rubric)", "quality rubric", "failures")
    options = Settings.from_env(env, check_name="cli", comment_title="cli title", comment_mode="changes")
    assert (options.check_name, options.comment_title, options.comment_mode.value) == ("cli", "cli title", "changes")


@pytest.mark.parametrize(("env", "option", "field"), [
    ({"INPUT_COMMENT_MODE": "sometimes"}, None, "comment_mode"),
    ({}, "sticky", "--comment-mode"),
])
def test_an_unknown_comment_mode_is_a_located_error(env, option, field):
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env, comment_mode=option)
    [problem] = caught.value.problems
    assert problem.field == field and "'always', 'changes', 'failures' or 'off'" in problem.expected
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
