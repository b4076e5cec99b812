"""Every bad input of the corpus (tests/badinputs/cases.py), run through the real CLI entry point.

Each must exit 2 with a message naming where (file:line, record), the field, the expectation and
the fix — never a traceback, never before a model is loaded, never touching earlier output.
"""

from __future__ import annotations

import collections
import errno
import os
import sys
from pathlib import Path

import pytest

from gate.cli import main
from gate.run import read_config
from gate.steps import load_suites, select_suites
from tests.badinputs.cases import CASES, MB, Case
from tests.badinputs.projects import (
    base_files,
    heuristic_record,
    jsonl,
    rag_record,
    stability_record,
    stereotype_record,
    trajectory_record,
    write_project,
)

KINDS = ("drift", "stereotype", "stability", "rag", "heuristic", "trajectory")
EARLIER = '{"schema": 1, "verdict": "pass", "suites": []}'  # a report an earlier llm-gate (no marker) wrote


class ModelsTouched(AssertionError):
    pass


@pytest.fixture
def project(tmp_path, monkeypatch):
    """Run in an empty working directory; creating the model runtime fails the test."""
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ACTIONS", "INPUT_CONFIG", "INPUT_SUITES"):
        monkeypatch.delenv(name, raising=False)

    def no_models(*args, **kwargs):
        raise ModelsTouched("input validation let the run reach the model runtime")

    monkeypatch.setattr("gate.run.TorchRuntime", no_models)
    return tmp_path


def run_cli(monkeypatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["llm-gate", *args])
    with pytest.raises(SystemExit) as caught:
        main()
    return caught.value.code


def test_the_corpus_covers_every_kind_and_the_config():
    counts = collections.Counter(c.kind for c in CASES)
    assert set(counts) == {*KINDS, "config"}
    assert min(counts.values()) >= 20, counts
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input_exits_2_with_a_clear_message(case: Case, project, monkeypatch, capsys):
    write_project(project, {**base_files(case.kind), **case.files})
    (project / "out").mkdir()
    (project / "out" / "report.json").write_text(EARLIER)

    code = run_cli(monkeypatch, "run", "-c", case.config, "--no-publish", "-q")

    err = capsys.readouterr().err
    assert code == 2, err[:2000]
    assert err.startswith("llm-gate: invalid input: ") and "Traceback" not in err, err[:2000]
    assert len(err) < 20_000, "a message must not echo a huge value"
    problems = [line for line in err.splitlines() if line.startswith("  - ")]
    assert problems, err
    for line in problems:
        assert "expected " in line and ". Fix: " in line, f"problem without expectation or fix: {line}"
    for text in case.expect:
        assert text in err, f"{text!r} not in:\n{err[:3000]}"
    assert (project / "out" / "report.json").read_text() == EARLIER
    assert sorted(p.name for p in (project / "out").iterdir()) == ["report.json"]


# ---------------------------------------------------------------- inputs that are odd but valid

ACCEPTED = {
    "stereotype-bom-crlf": {"stereotype/m.jsonl": ("\ufeff" + jsonl(stereotype_record("a"))).replace("\n", "\r\n")},
    "stereotype-turn2-alias": {"stereotype/m.jsonl": jsonl(
        {k: v for k, v in stereotype_record().items() if k != "bias_response"} | {"turn2_response": "t"})},
    "stability-extra-fields-and-1mb-response": {"stability/m.jsonl": jsonl(
        stability_record("v1", response=MB, temperature=0.7), stability_record("v2", note={"any": [1, None]}))},
    "rag-null-optional-fields": {"rag/candidate.jsonl": jsonl(rag_record("q1", latency=None, cost=None)),
                                 "rag/baseline.jsonl": jsonl(rag_record("q1"), rag_record("q9"))},
    "heuristic-empty-response": {"heuristic/m.jsonl": jsonl(heuristic_record(response=""),
                                                            heuristic_record("C2", response=None))},
    "trajectory-no-steps-string-arguments-and-other-traces": {"trajectory/m.jsonl": jsonl(
        trajectory_record(steps=[]), trajectory_record("t2", steps=[{"tool": "s", "arguments": "{not json"}]),
        {"traceId": "ab", "spanId": "1", "name": "GET /health"})},
}


@pytest.mark.parametrize("kind", KINDS)
def test_the_base_projects_are_valid(kind, project):
    write_project(project, base_files(kind))
    config = read_config(project / "gate.yml")
    assert load_suites(select_suites(config, (), ()), project)


@pytest.mark.parametrize("name", ACCEPTED)
def test_odd_but_valid_inputs_load(name, project):
    kind = name.split("-")[0]
    write_project(project, {**base_files(kind), **ACCEPTED[name]})
    config = read_config(project / "gate.yml")
    [loaded] = load_suites(select_suites(config, (), ()), project)
    assert loaded.data


# ---------------------------------------------------------------- an output directory the gate cannot write


def _unwritable(directory, monkeypatch) -> None:
    """`directory` as the kernel shows it to a user without write permission. Root writes anywhere, so for root
    the kernel's answer (os.access) is stood in for; any other user gets a real read-only directory."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        return
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if Path(path) == directory
                        else real(path, mode, **kw))


def test_an_unwritable_output_dir_is_refused_before_the_model_work(project, monkeypatch, capsys):
    write_project(project, base_files("heuristic"))
    (project / "locked").mkdir()
    _unwritable(project / "locked", monkeypatch)

    code = run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q", "--output-dir", "locked/out")

    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "internal error" not in err, err
    assert "field '--output-dir" in err and f"{project / 'locked'}" in err and f"uid {os.geteuid()}" in err, err
    assert "Fix: make " in err and "writable" in err, err


def test_a_read_only_output_dir_found_while_writing_exits_2(tmp_path, monkeypatch, capsys):
    """The filesystem refuses the report only when it is written (remounted read-only mid-run, say)."""
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, base_files("heuristic"))
    real_mkdir = os.mkdir

    def read_only(path, *args, **kwargs):
        if Path(path).parent == tmp_path / "out":
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_mkdir(path, *args, **kwargs)

    (tmp_path / "out").mkdir()
    monkeypatch.setattr(os, "mkdir", read_only)
    code = run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q", "--output-dir", "out/report")

    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "internal error" not in err, err
    assert os.strerror(errno.EROFS) in err and f"uid {os.geteuid()}" in err and "Fix: " in err, err
    assert not (tmp_path / "out" / "report").exists()
