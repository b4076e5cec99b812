"""No text a pull request chose can issue a workflow command (SECURITY.md, issue 17).

The runner obeys a command on any line of stdout or stderr that starts with `::` after whitespace
(`::error::`, `::add-mask::`, `::stop-commands::`, the deprecated `::set-output`), and the legacy form
`##[command]` anywhere in a line; it splits lines at LF, CR and CRLF. The gate prints names, paths and
values from the inputs, so every byte of both streams passes one neutraliser, and the gate's own
commands take the one trusted channel (`gate.publish.actions.issue`). Here the real CLI runs the bundled example
with hostile text in every field that reaches the log, with GITHUB_ACTIONS unset and set, and the
error paths quote hostile values; not one line may be a command the gate did not issue itself.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gate.io import redact
from gate.publish import actions
from tests.conftest import EXAMPLES, REPO
from tests.support.cli import outside_actions

SECRET = "hostile%test-secret-0042"  # announced with ::add-mask::, its % escaped
# Each payload carries a tag naming its field, so that the test also sees it did reach the log.
NAME = "x\n::error::forged-name\n::set-output name=verdict::pass"  # issue 17's gate name
PAYLOADS = {
    "description": ["  ::stop-commands::forged-desc1", "d\r::add-mask::forged-desc2", "##[error]forged-desc3",
                    "d\n\t::warning file=x::forged-desc4", "d\r\n::group::forged-desc5"],
    "model": "llama\n::error::forged-model",
    "file": "a\n::error title=x::forged-file.jsonl",
    "colon-file": "::error::forged-cfile.jsonl",
    "title": "t\n::notice::forged-title",
    "feedback": "f\r::error::forged-feedback ##[set-output name=verdict;]pass",
    "trait": "emotional\n::add-mask::forged-trait",
    "stereotype-model": " ::error::forged-smodel",
    "question": "obqa-001\n::error::forged-qid",
    "variation": "v\n##[warning]forged-variation",
    "stability-model": "tinyllama\n::set-output name=verdict::forged-stab",
    "heuristic-model": "llama\r\n::error::forged-hmodel",
    "response": "r\n::endgroup::forged-response",
    "prompt-id": "C01\n::error::forged-prompt",
    "system": "enhanced\n::error::forged-system",
    "query": "q\n  ::error::forged-query",
    "rag-id": "q01\n::error::forged-ragid",
}
TRUSTED = {"error", "warning", "notice", "add-mask", "group", "endgroup", "debug"}


def command_lines(text: str) -> list[str]:
    """Every line the runner would read as a workflow command (v2 `::` after whitespace, or v1 `##[`)."""
    return [line for line in re.split(r"\r\n|\r|\n", text) if line.lstrip().startswith("::") or "##[" in line]


def assert_only_own_commands(text: str, *, in_actions: bool) -> list[str]:
    """No command lines at all outside Actions; inside, only well-formed ones the gate issued itself."""
    found = command_lines(text)
    if not in_actions:
        assert not found, found
        return found
    for line in found:
        match = re.fullmatch(r"::([a-z-]+)(?: ([^:]*))?::(.*)", line)
        assert match and match[1] in TRUSTED, line  # a command of the gate's, not ::set-output or ::stop-
        assert "##[" not in line and "\u200b" not in line[:3], line
        props = dict(p.split("=", 1) for p in match[2].split(",")) if match[2] else {}
        assert set(props) <= {"file", "line", "title"}, line  # properties escaped: no `,`/`:` smuggled in
        if match[1] == "add-mask":
            assert match[3] == SECRET.replace("%", "%25"), line  # the registered secret, escaped
    return found


# --- the neutraliser ------------------------------------------------------------------------------

def _through_stream(*chunks: str) -> str:
    sink = io.StringIO()
    stream = redact.RedactingStream(sink)
    for chunk in chunks:
        stream.write(chunk)
    return sink.getvalue()


@pytest.mark.parametrize("chunks", [
    (":", ":error::x\n"),                    # `::` split over two writes
    ("  :", ":set-output name=v::pass\n"),   # after indentation
    ("ok\n", " ", "\t", ":", ":add-mask::x"),
    ("progress 3/9\r", "::error::x"),        # CR starts a line for the runner
    ("a\r\n::warning::x",),
    ("line\r  ::stop-commands::t",),
    ("#", "#[error]x"), ("x #", "#", "[warning]y"), ("##", "[group]z"),  # v1 anywhere, split
    ("\x0b::error::x",),                     # vertical tab: whitespace to .NET's Trim too
])
def test_the_stream_neutralises_commands_split_over_writes(chunks):
    out = _through_stream(*chunks)
    assert not command_lines(out), out
    assert out.replace("\u200b", "") == "".join(chunks)  # only zero-width spaces added, nothing lost


def test_ordinary_text_is_untouched_and_neutralising_is_idempotent():
    plain = "a::b ok: ::fine #[x] # [y] C# [z]\nratio 2:1 ::\u200b:x\n"
    assert _through_stream(plain) == plain
    once = redact.neutralise("::a\n##[b\r  ::c")[0]
    assert redact.neutralise(once)[0] == once and actions.inert_commands(once) == once


def test_a_partial_line_does_not_reset_the_line_start():
    assert _through_stream("partial ", "::not at a line start\n") == "partial ::not at a line start\n"


def test_the_trusted_channel_writes_one_line_of_its_own():
    sink = io.StringIO()
    stream = redact.RedactingStream(sink)
    stream.write("half a line")
    stream.write_command("::warning title=t::m")
    stream.write(":")
    stream.write(":error::x\n")
    assert sink.getvalue() == "half a line\n::warning title=t::m\n:\u200b:error::x\n"
    for bad in ("::error::a\n::set-output name=v::pass", "::set-output name=v::pass", "x::error::a",
                "::error file=a\r::b"):
        with pytest.raises(ValueError):
            redact.emit_command(bad)


def test_issue_keeps_a_hostile_message_inside_its_one_line(capsys):
    with redact.guard({"HOSTILE_TEST_SECRET": SECRET}):
        actions.issue("error", NAME + "\r::add-mask::x ##[error]y", file="a:b,\n::error::c.jsonl", line=3,
                      title="t\n::notice::z")
    out = capsys.readouterr().out
    assert out == ("::error file=a%3Ab%2C%0A%3A%3Aerror%3A%3Ac.jsonl,line=3,title=t%0A%3A%3Anotice%3A%3Az::"
                   "x%0A::error::forged-name%0A::set-output name=verdict::pass%0D::add-mask::x ##\u200b[error]y\n")
    assert_only_own_commands(out, in_actions=True)


def test_print_and_log_records_cannot_issue_commands_on_either_stream(capsys):
    raw = io.StringIO()  # a handler a library set up before the command, holding the stream itself
    logger = logging.getLogger("gate.test.commands")
    logger.addHandler(logging.StreamHandler(raw))
    logger.propagate = False
    try:
        with redact.guard({"HOSTILE_TEST_SECRET": SECRET, "GITHUB_ACTIONS": "true"}):
            print(NAME)  # stdout too: the gate's own commands no longer go this way
            sys.stderr.write("::error::forged\n")
            logger.warning("%s", "::error::forged-log\n##[error]x")
    finally:
        logger.handlers.clear()
        logger.propagate = True
    out, err = capsys.readouterr()
    assert not command_lines(out) and "forged-name" in out
    assert command_lines(err) == [f"::add-mask::{SECRET.replace('%', '%25')}"]
    assert not command_lines(raw.getvalue()) and "forged-log" in raw.getvalue()


# --- the real CLI on hostile inputs ---------------------------------------------------------------

def _plant(root: Path) -> int:
    """Hostile text in every field of the example that reaches the log; returns how many strings."""
    def rewrite(path: Path, change) -> None:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        path.write_text("".join(json.dumps(change(i, r)) + "\n" for i, r in enumerate(rows)))

    p = PAYLOADS
    feedback = root / "outputs/feedback"
    rewrite(feedback / "llama-3.1-8b-instruct.jsonl", lambda i, r: {
        **r, "model": p["model"], "feedback": [{**f, "title": p["feedback"]} for f in r["feedback"]]})
    (feedback / "llama-3.1-8b-instruct.jsonl").rename(feedback / p["file"])
    (feedback / "gpt-4o-mini.jsonl").rename(feedback / p["colon-file"])
    exercise = root / "baselines/feedback/sampled_exercise-14676.json"
    exercise.write_text(json.dumps({**json.loads(exercise.read_text()), "title": p["title"]}))
    rewrite(root / "stereotype/mistral_7b.jsonl", lambda i, r: {
        **r, "model": p["stereotype-model"], "trait": p["trait"], "bias_response": p["response"]})
    rewrite(root / "stability/tinyllama-1.1b-chat.jsonl", lambda i, r: {
        **r, "model": p["stability-model"], "variation": p["variation"], "response": p["response"],
        "question_id": p["question"] if r["question_id"] == "obqa-001" else r["question_id"]})
    rewrite(root / "heuristic/responses.jsonl", lambda i, r: {
        **r, "model": p["heuristic-model"] if "llama" in r["model"] else r["model"],
        "prompt_id": p["prompt-id"] if r["prompt_id"] == "C01" else r["prompt_id"], "response": p["response"]})
    # one query rewritten: its id no longer pairs (the runs pair by id and question), and the note naming it
    # carries the hostile text to every surface; the other queries still pair, so the suite is still compared
    rewrite(root / "rag/enhanced.jsonl", lambda i, r: {
        **r, "system": p["system"], "query": p["query"] if r["id"] == "q02" else r["query"],
        "id": p["rag-id"] if r["id"] == "q01" else r["id"]})
    config = yaml.safe_load((root / "gate.yml").read_text())
    config["name"] = NAME
    for suite, description in zip(config["suites"].values(), p["description"], strict=True):
        suite["description"] = description
    (root / "gate.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    return 1 + sum(len(v) if isinstance(v, list) else 1 for v in p.values())


@pytest.fixture(scope="module", params=["local", "actions"])
def hostile_cli(request, tmp_path_factory):
    """`python -m gate run` on the planted example, as a process: real stdout and stderr pipes."""
    work = tmp_path_factory.mktemp(f"commands-{request.param}")
    shutil.copytree(EXAMPLES, work / "examples", ignore=shutil.ignore_patterns("gate-report", ".gate-cache"))
    planted = _plant(work / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "RUNNER_"))}
    env |= {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HOSTILE_TEST_SECRET": SECRET,
            "PYTHONPATH": str(REPO)}
    if request.param == "actions":
        event = work / "event.json"
        event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": "feedc0de" * 5}}}))
        env |= {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(work), "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_EVENT_PATH": str(event), "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
                "GITHUB_OUTPUT": str(work / "output.txt"), "INPUT_CONFIG": "examples/gate.yml"}
    proc = subprocess.run([sys.executable, "-m", "gate", "run", "--config", "examples/gate.yml"], cwd=work,
                          env=env, capture_output=True, timeout=600)
    return request.param == "actions", proc, planted


def test_hostile_inputs_issue_no_command_on_stdout_or_stderr(hostile_cli):
    in_actions, proc, planted = hostile_cli
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 1, err  # the example still fails, on the drifting model
    assert planted == 22
    assert "forged-name" in out  # the hostile name is shown, as text
    own = assert_only_own_commands(out, in_actions=in_actions) + assert_only_own_commands(err, in_actions=in_actions)
    if in_actions:  # annotations of the failing checks (notices: those that could not tell), the secret's mask
        kinds = {line.split("::")[1].split(" ")[0] for line in own}
        assert {"add-mask", "error", "warning"} <= kinds <= {"add-mask", "error", "warning", "notice", "group",
                                                            "endgroup"}, own
        groups = [line for line in own if line.startswith(("::group::", "::endgroup::"))]
        assert groups[0::2] == [g for g in groups if g.startswith("::group::")] and all(  # opened, then closed
            g == "::endgroup::" for g in groups[1::2]), groups
        assert not any("forged" in g for g in groups), groups  # log groups are titled by the gate, not by inputs
        assert any("forged-model" in line or "forged-file" in line for line in own if line.startswith("::error"))


# --- error paths that quote the hostile value -----------------------------------------------------

SET_OUTPUT = "::set-output name=verdict::pass"


def _heuristic_gate(tmp_path: Path, records: str, extra: str = "") -> None:
    (tmp_path / "heuristic").mkdir(exist_ok=True)
    (tmp_path / "heuristic" / "r.jsonl").write_text(records)
    (tmp_path / "gate.yml").write_text("version: 1\nsuites:\n  rubric:\n    kind: heuristic\n"
                                       "    records: heuristic/*.jsonl\n" + extra)


def _record(**change) -> str:
    row = {"model": "m", "category": "coding", "prompt_id": "C01", "prompt": "p", "response": "r"}
    return json.dumps({**row, **change}) + "\n"


ERROR_CASES = {
    "record-value": lambda t: _heuristic_gate(t, _record(category=SET_OUTPUT)),
    "record-field-type": lambda t: _heuristic_gate(t, _record(model={"x\n" + SET_OUTPUT: 1})),
    "suite-kind": lambda t: (t / "gate.yml").write_text(
        f"version: 1\nsuites:\n  s:\n    kind: {json.dumps('x' + chr(10) + SET_OUTPUT)}\n"),
    "suite-name": lambda t: (t / "gate.yml").write_text(
        f"version: 1\nsuites:\n  {json.dumps(SET_OUTPUT)}:\n    kind: heuristic\n    records: a.jsonl\n"),
    "unknown-key": lambda t: _heuristic_gate(t, _record(), f"{json.dumps(chr(10) + SET_OUTPUT)}: 1\n"),
    "check-name": lambda t: _heuristic_gate(t, _record()) or (t / "gate.yml").write_text(
        "version: 1\nsuites:\n  rubric:\n    kind: heuristic\n    records: heuristic/*.jsonl\n"
        f"    checks:\n      {json.dumps('x' + chr(10) + SET_OUTPUT)}: {{min: 1}}\n"),
    "judge-criteria": lambda t: (t / "gate.yml").write_text(
        "version: 1\nsuites:\n  r:\n    kind: rag\n    records: rag.jsonl\n    judge:\n      enabled: true\n"
        f"      criteria: [{json.dumps('x' + chr(10) + SET_OUTPUT)}]\n"),
    "judge-endpoint": lambda t: (t / "gate.yml").write_text(
        "version: 1\nsuites:\n  r:\n    kind: rag\n    records: rag.jsonl\n    judge:\n      enabled: true\n"
        f"      base_url: {json.dumps('http://x' + chr(10) + SET_OUTPUT)}\n"),
    "missing-records": lambda t: _heuristic_gate(t, _record(), "") or (t / "gate.yml").write_text(
        f"version: 1\nsuites:\n  rubric:\n    kind: heuristic\n    records: {json.dumps(SET_OUTPUT + '.jsonl')}\n"),
    "colon-file-name": lambda t: _heuristic_gate(t, "") or (t / "heuristic" / "::error::x.jsonl").write_text(
        "{not json\n"),
    "name-type": lambda t: (t / "gate.yml").write_text(f"version: 1\nname: [{json.dumps(NAME)}]\nsuites: {{}}\n"),
}


@pytest.mark.parametrize("in_actions", [False, True], ids=["local", "actions"])
@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_error_messages_quoting_hostile_values_issue_no_command(case, in_actions, tmp_path, monkeypatch, capfd):
    from tests.test_cli import run_cli

    ERROR_CASES[case](tmp_path)
    outside_actions(monkeypatch, tmp_path)
    monkeypatch.setenv("HOSTILE_TEST_SECRET", SECRET)
    if in_actions:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    assert run_cli(monkeypatch, "run", "--no-publish", "-q", "--config", "gate.yml") == 2
    out, err = capfd.readouterr()
    assert "set-output" in err or "forged" in err or "::error::x" in err.replace("\u200b", ""), err
    assert_only_own_commands(out + err, in_actions=in_actions)


def test_a_hostile_command_line_value_issues_no_command(tmp_path, monkeypatch, capfd):
    from tests.test_cli import run_cli

    monkeypatch.chdir(tmp_path)
    code = run_cli(monkeypatch, "run", "--fail-on", "x\n" + SET_OUTPUT, "--config", NAME)
    out, err = capfd.readouterr()
    assert code == 2 and "set-output" in out + err
    assert not command_lines(out + err), out + err
