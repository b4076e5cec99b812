"""The command provider: the user's program over JSON Lines, with a timeout, malformed output and a program that
dies, none of which crashes the run."""

from __future__ import annotations

import sys
import textwrap

import pytest

from gate.generate.providers.command import CommandProvider, CommandSettings
from gate.generate.providers.types import Failure, Response
from tests.generate.helpers import GITHUB_TOKEN, ask

PROGRAM = textwrap.dedent('''
    import json, os, sys, time
    mode = sys.argv[1]
    for line in sys.stdin:
        request = json.loads(line)
        question = request["messages"][-1]["content"]
        if question == "slow":
            time.sleep(5)
        if question == "garbage":
            print("this is not json", flush=True); continue
        if question == "die":
            print("fatal: index missing", file=sys.stderr, flush=True); sys.exit(3)
        if question == "env":
            print(json.dumps({"id": request["id"], "text": ",".join(sorted(os.environ))}), flush=True); continue
        print(json.dumps({"id": request["id"], "text": "answer to " + question, "retrieved_ids": ["d1", "d7"],
                          "retrieved_contexts": ["ctx one", "ctx two"], "usage": {"prompt_tokens": 7,
                          "completion_tokens": 3}, "cost_usd": 0.002, "model_version": "rag-app-1.2"}), flush=True)
''')


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "app.py"
    path.write_text(PROGRAM)
    return path


def _provider(program, **settings) -> CommandProvider:
    environ = {"PATH": "/usr/bin:/bin", "GITHUB_TOKEN": GITHUB_TOKEN, "ACTIONS_RUNTIME_TOKEN": "x" * 20,
               "APP_SETTING": "1"}
    return CommandProvider(CommandSettings((sys.executable, str(program), "rag"), name="rag-app", **settings),
                           environ)


def test_a_response_passes_its_extra_fields_through(program):
    provider = _provider(program)
    try:
        result = provider.call(ask("what is x?"))
        assert isinstance(result, Response)
        assert result.text == "answer to what is x?" and result.model_version == "rag-app-1.2"
        assert dict(result.extra) == {"retrieved_ids": ["d1", "d7"], "retrieved_contexts": ["ctx one", "ctx two"]}
        assert (result.usage.prompt_tokens, result.cost_usd) == (7, 0.002)
        assert isinstance(provider.call(ask("again")), Response)  # the same process answers the next line
    finally:
        provider.close()


def test_a_call_past_its_timeout_fails_and_the_next_call_gets_a_fresh_program(program):
    provider = _provider(program, timeout=0.5)
    try:
        result = provider.call(ask("slow"))
        assert isinstance(result, Failure) and "no response line within 0.5 s" in result.reason
        assert isinstance(provider.call(ask("fine")), Response)
    finally:
        provider.close()


def test_malformed_output_and_a_dying_program_are_located_failures(program):
    provider = _provider(program)
    try:
        garbage = provider.call(ask("garbage"))
        assert isinstance(garbage, Failure) and "not JSON" in garbage.reason
        died = provider.call(ask("die"))
        assert isinstance(died, Failure) and "exited (code 3)" in died.reason and "index missing" in died.reason
        assert isinstance(provider.call(ask("fine")), Response)
    finally:
        provider.close()


def test_the_program_never_sees_a_github_or_actions_variable(program):
    provider = _provider(program)
    try:
        result = provider.call(ask("env"))
        assert isinstance(result, Response)
        names = result.text.split(",")
        assert "APP_SETTING" in names and not [n for n in names if n.startswith(("GITHUB_", "ACTIONS_"))]
    finally:
        provider.close()


def test_a_program_that_cannot_start_is_a_failure(tmp_path):
    provider = CommandProvider(CommandSettings((str(tmp_path / "missing"),)), {})
    result = provider.call(ask("x"))
    assert isinstance(result, Failure) and "could not be started" in result.reason
