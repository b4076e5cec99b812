"""The GitHub token never shows: not in stdout, stderr, debug logs, exceptions, report files, the job
summary, step outputs or anything posted to GitHub — even when the server echoes it back, a model
writes it, or the gate crashes with it in the message.

Real code paths: `llm-gate run` through `gate.cli.main`, real PyGithub against a
local GitHub API (pytest-httpserver) that fails with the token in its error messages.
"""

from __future__ import annotations

import io
import json
import logging
import sys
from pathlib import Path

import pytest

from gate.config.settings import Settings
from gate.io import redact
from tests.conftest import EXAMPLES
from tests.support.fake_github import REPO
from tests.test_cli import run_cli

TOKEN = "ghs_TESTTOKEN1234567890abcdef"
CORE = "TESTTOKEN1234567890abcdef"  # also no escaped copy of it (`ghs&#95;TESTTOKEN…` renders as the token)
HEAD = "feedc0de" * 5
CONFIG = """\
version: 1
name: token-test
suites:
  rubric:
    kind: heuristic
    records: heuristic/*.jsonl
report: {output_dir: gate-report, formats: [markdown, json, html, junit]}
"""


@pytest.fixture(autouse=True)
def fresh_registry():
    redact.forget_all()
    yield
    redact.forget_all()


@pytest.fixture
def workspace(tmp_path, monkeypatch, github_api):
    """A repository with a small gate (the rubric suite: no model needed) and the Actions environment."""
    from gate.publish.github import client as gate_github

    root = tmp_path / "workspace"
    (root / "heuristic").mkdir(parents=True)
    lines = (EXAMPLES / "heuristic" / "responses.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["response"] = f"As requested, the token is {TOKEN}."  # a model leaking it
    (root / "heuristic" / "responses.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    (root / "gate.yml").write_text(CONFIG)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": HEAD}}}))
    files = tmp_path / "file_commands"
    files.mkdir()
    env = {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": github_api.base_url, "GITHUB_REPOSITORY": REPO,
           "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": HEAD,
           "GITHUB_RUN_ID": "5", "GITHUB_WORKSPACE": str(root), "GITHUB_STEP_SUMMARY": str(files / "summary.md"),
           "GITHUB_OUTPUT": str(files / "output.txt"), "INPUT_CONFIG": "gate.yml", "INPUT_GITHUB_TOKEN": TOKEN}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.chdir(root)
    monkeypatch.setattr(gate_github.RetryPolicy, "delay", lambda self, attempt, retry_after: 0.0)
    return root, files


def everything_written(*roots: Path) -> dict[str, str]:
    """The text of every file the gate wrote (workbooks cell by cell); the input records are not its own."""
    from openpyxl import load_workbook

    found = {}
    for root in roots:
        for path in root.rglob("*"):
            if not path.is_file() or path.parent.name == "heuristic":
                continue
            if path.suffix == ".xlsx":
                cells = [str(c) for sheet in load_workbook(path).worksheets for row in sheet.iter_rows(values_only=True)
                         for c in row if c is not None]
                found[str(path)] = "\n".join(cells)
            else:
                found[str(path)] = path.read_bytes().decode("utf-8", errors="replace")
    return found


def assert_no_token(stdout: str, stderr: str, files: dict[str, str], github_api=None) -> None:
    assert CORE not in stdout
    # The one place it may appear: the workflow command that tells the runner to mask it (on stderr).
    shown = [line for line in stderr.splitlines() if CORE in line]
    assert shown == [f"::add-mask::{TOKEN}"], shown
    leaked = [name for name, text in files.items() if CORE in text]
    assert not leaked, leaked
    if github_api is not None:  # nothing the gate posted carries it (the Authorization header aside)
        assert not [c for c in github_api.calls if CORE in json.dumps(c.body)]


def test_failing_github_calls_that_echo_the_token_never_show_it(workspace, github_api, capsys, monkeypatch):
    root, files = workspace
    monkeypatch.setenv("LLM_GATE_DEBUG", "1")  # every library's DEBUG log on stderr too
    for _ in range(5):
        github_api.fail_next("GET", rf"/repos/{REPO}/issues/7/comments", 502, f"upstream failed for {TOKEN}",
                             {"X-Debug-Token": TOKEN})
    github_api.fail_next("POST", rf"/repos/{REPO}/check-runs", 401, f"Bad credentials: {TOKEN}")
    github_api.fail_next("POST", rf"/repos/{REPO}/statuses/{HEAD}", 422, f"invalid token {TOKEN}")
    assert run_cli(monkeypatch, "run") == 0
    out, err = capsys.readouterr()
    assert "could not comment" in out and "DEBUG" in err  # it did fail, and it did log
    written = everything_written(root, files)
    assert [n for n, text in written.items() if "the token is &#42;&#42;&#42;" in text]  # the model's copy
    assert_no_token(out, err, written, github_api)


def test_a_crash_with_the_token_in_its_message_never_shows_it(workspace, capsys, monkeypatch):
    root, files = workspace
    from gate import run as pipeline

    def crash(*args, **kwargs):
        logging.getLogger("gate.test").error("about to fail with %s", TOKEN)
        raise RuntimeError(f"request to https://x-access-token:{TOKEN}@github.example failed")

    monkeypatch.setattr(pipeline, "render", crash)
    assert run_cli(monkeypatch, "run", "--no-publish") == 3
    out, err = capsys.readouterr()
    assert "internal error: RuntimeError" in err
    assert_no_token(out, err, everything_written(root, files))
    monkeypatch.setenv("LLM_GATE_DEBUG", "1")  # the traceback too
    assert run_cli(monkeypatch, "run", "--no-publish") == 3
    out, err = capsys.readouterr()
    assert "Traceback" in err and "x-access-token:***@" in err
    assert_no_token(out, err, everything_written(root, files))


def test_publishing_failures_never_show_the_token(workspace, github_api, capsys, monkeypatch):
    root, files = workspace
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    for _ in range(5):
        github_api.fail_next("GET", rf"/repos/{REPO}/issues/7/comments", 503, f"try later {TOKEN}")
    assert run_cli(monkeypatch, "run") == 0  # publishing problems never change the exit code
    out, err = capsys.readouterr()
    assert "could not comment" in out
    assert_no_token(out, err, everything_written(root, files), github_api)


def test_outside_actions_the_token_is_not_even_announced(workspace, github_api, capsys, monkeypatch):
    root, files = workspace
    monkeypatch.delenv("GITHUB_ACTIONS")
    github_api.fail_next("POST", rf"/repos/{REPO}/check-runs", 400, f"nope {TOKEN}")
    assert run_cli(monkeypatch, "run") == 0
    out, err = capsys.readouterr()
    assert CORE not in out and CORE not in err and "::add-mask::" not in err
    assert not [n for n, t in everything_written(root, files).items() if CORE in t]


def test_settings_never_print_the_token():
    settings = Settings.from_env({"INPUT_GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPO})
    assert settings.github.token == TOKEN
    assert TOKEN not in repr(settings) and TOKEN not in str(settings.github)


def test_redact_masks_registered_secrets_and_token_shapes():
    redact.register_environment({"INPUT_GITHUB_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-live-0123456789",
                                 "HF_TOKEN": "short", "GITHUB_REPOSITORY": "octo/widgets-long-name"})
    assert redact.redact(f"a {TOKEN} b sk-live-0123456789 c") == "a *** b *** c"
    assert redact.redact("short octo/widgets-long-name") == "short octo/widgets-long-name"  # not secrets
    unregistered = "ghp_" + "A1b2" * 9
    assert redact.redact(f"pat {unregistered} and github_pat_{'x' * 30}") == "pat *** and ***"


def test_every_stream_and_log_record_is_redacted_inside_guard(capsys):
    early = io.StringIO()  # a handler a library set up before the command, on a stream of its own
    logger = logging.getLogger("gate.test.redact")
    logger.addHandler(logging.StreamHandler(early))
    factory = logging.getLogRecordFactory()
    try:
        with redact.guard({"GITHUB_TOKEN": TOKEN, "GITHUB_ACTIONS": "true"}):
            sys.stdout.write(f"out {TOKEN}\n")
            sys.stderr.write(f"err {TOKEN}\n")
            logger.warning("log %s", TOKEN)
    finally:
        logger.handlers.clear()
    out, err = capsys.readouterr()
    assert out == "out ***\n"
    assert err == f"::add-mask::{TOKEN}\nerr ***\n" and early.getvalue() == "log ***\n"
    assert logging.getLogRecordFactory() is factory  # restored


def test_stderr_cannot_carry_a_workflow_command(capsys):
    from gate.publish import actions

    with redact.guard({}):
        sys.stderr.write("llm-gate: bad file a\n::error::forged\n")
        sys.stderr.write("  ::set-output name=x::y\n")
        sys.stderr.write("partial ")
        sys.stderr.write("::not at a line start\n")
        sys.stdout.write("::warning::printed, not issued\n")  # stdout is neutralised too
        actions.issue("warning", "the gate's own command")
    out, err = capsys.readouterr()
    assert not [line for line in err.splitlines() if line.lstrip().startswith("::")], err
    assert "partial ::not at a line start" in err
    assert out == ":\u200b:warning::printed, not issued\n::warning::the gate's own command\n"


def test_every_token_shape_is_masked_whatever_surrounds_it():
    """The regular expression runs only on texts holding "_" and "gh"/"github_pat_": each shape it knows must
    pass that filter, wherever it sits in a text."""
    from gate.io.redact import redact

    body = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    for token in [f"gh{kind}_{body}" for kind in "pousr"] + [f"github_pat_{body}_X9"]:
        for text in (token, f"see {token}.", f"(x={token})\n", f"é {token} ok", f"x{token}", f"key_{token}",
                     f"1{token}y", f"é{token}"):
            assert token not in redact(text) and "***" in redact(text)
    assert redact("through the high road") == "through the high road"
