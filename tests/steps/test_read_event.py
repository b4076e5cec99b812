"""GITHUB_EVENT_PATH set but unusable is a visible warning, never a silent 'no pull request' (issue 32, item 8)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gate.config.settings import Settings
from gate.steps.output import read_event


def settings(path: Path, in_actions: bool) -> Settings:
    environ = {"GITHUB_EVENT_PATH": str(path)}
    if in_actions:
        environ["GITHUB_ACTIONS"] = "true"
    return Settings.from_env(environ, config="gate.yml")


def unusable(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / "event.json"
    if kind == "a directory":
        path.mkdir()
    elif kind == "not JSON":
        path.write_text('{"pull_request": ', encoding="utf-8")
    elif kind == "a list":
        path.write_text("[1, 2]", encoding="utf-8")
    return path  # "missing": never written


@pytest.mark.parametrize(("kind", "why"), [("missing", "does not exist"), ("a directory", "is not a file"),
                                          ("not JSON", "cannot be read or is not JSON"),
                                          ("a list", "is not a JSON object")])
def test_an_unusable_event_file_is_a_workflow_warning_and_the_run_goes_on(tmp_path, capsys, kind, why):
    path = unusable(tmp_path, kind)
    assert read_event(settings(path, in_actions=True)) is None
    out = capsys.readouterr().out
    assert out.startswith("::warning title=llm-quality-gate::the event file GITHUB_EVENT_PATH=")
    assert f"{why}: this run knows of no pull request" in out and out.count("\n") == 1


def test_outside_actions_the_warning_is_the_clis_warning_line(tmp_path, capsys):
    assert read_event(settings(tmp_path / "gone.json", in_actions=False)) is None
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("llm-gate: warning: the event file GITHUB_EVENT_PATH=") and "does not exist" in \
        captured.err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_event_file_is_named(tmp_path, capsys):
    path = tmp_path / "event.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0)
    assert read_event(settings(path, in_actions=True)) is None
    assert "cannot be read or is not JSON" in capsys.readouterr().out


def test_a_readable_event_is_returned_without_a_word(tmp_path, capsys):
    path = tmp_path / "event.json"
    path.write_text('{"pull_request": {"number": 7}}', encoding="utf-8")
    assert read_event(settings(path, in_actions=True)) == {"pull_request": {"number": 7}}
    assert read_event(Settings.from_env({}, config="gate.yml")) is None
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")
