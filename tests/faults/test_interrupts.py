"""SIGTERM / SIGINT mid-run: the run stops with exit 143 / 130 and one clear line, reports no verdict and
publishes nothing; a signal while the report is being written waits for the last file, so the report set is
this run's whole, never a mix with an earlier run's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from gate.config import GraderConfig
from gate.errors import interrupt
from gate.errors.interrupt import Interrupted
from gate.kinds.rag.grader import GraderItem
from gate.kinds.rag.grader_client import run_grader
from tests.conftest import EXAMPLES, REPO
from tests.test_cli import run_cli

# `llm-gate run`, announcing on stderr when model work begins so the test can signal it then.
PROBE = """
import sys
from gate.runtime.engines import progress
real = progress.model_progress
def announce(description, total):
    sys.stderr.write(f"MODEL-WORK {description}\\n")
    sys.stderr.flush()
    return real(description, total)
progress.model_progress = announce
from gate.cli import main
sys.argv = ["llm-gate", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_llm_gate_run_signalled_while_models_run_reports_nothing_and_exits_non_zero(tmp_path, signum, code):
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=shutil.ignore_patterns("gate-report", ".gate-cache"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env.update(HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    run = subprocess.Popen([sys.executable, "-c", PROBE, "run", "-c", "examples/gate.yml", "--output-dir", "out",
                            "--no-publish"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        seen = []
        while not seen or not seen[-1].startswith("MODEL-WORK"):
            line = run.stderr.readline()
            assert line, f"the run ended before model work began: {''.join(seen)}"
            seen.append(line)
        run.send_signal(signum)
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == code, err
    name = signal.Signals(signum).name
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1] == (f"llm-gate: interrupted by {name} before the run finished: no verdict, this run wrote no "
                         f"report and published nothing (exit {code})")
    assert "Traceback" not in err and "passed" not in out and "failed" not in out
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")) \
        if (tmp_path / "out").exists() else []
    assert not [p for p in written if p.startswith("report.") or p == "publish.json" or p.endswith(".tmp")]


def heuristic_project(tmp_path, monkeypatch) -> None:
    rows = [{"model": "m", "category": "coding", "prompt_id": "P01", "response": "def f(x):\n    return x\n"}]
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "gate.yml").write_text("version: 1\nname: sig\nsuites:\n  rubric:\n    kind: heuristic\n"
                                       "    records: h.jsonl\n    checks:\n      final_score_mean: {min: 9.9}\n"
                                       "report: {formats: [markdown, json, junit]}\n")
    monkeypatch.chdir(tmp_path)


def test_a_signal_while_the_report_is_written_waits_for_the_whole_set(tmp_path, monkeypatch, capsys):
    from gate import report

    heuristic_project(tmp_path, monkeypatch)
    real_write = report.write

    def write_while_signalled(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)  # arrives before the first file is written
        return real_write(*args, **kwargs)

    monkeypatch.setattr(report, "write", write_while_signalled)
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == 143
    out = tmp_path / "gate-report"
    assert json.loads((out / "report.json").read_text())["verdict"] == "fail"  # whole, and this run's
    assert (out / "report.md").read_text().startswith("## ❌ sig: failed")
    assert (out / "junit.xml").is_file() and (out / "publish.json").is_file() and not list(out.glob(".*.tmp"))
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == ("llm-gate: interrupted by SIGTERM after the report was written to "
                                           "gate-report; the rest was skipped (exit 143)")


def test_the_signal_handlers_are_restored_after_a_command(tmp_path, monkeypatch):
    heuristic_project(tmp_path, monkeypatch)
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == 1
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_deferred_holds_a_signal_until_the_block_ends():
    done = []
    with interrupt.handling():
        with pytest.raises(Interrupted) as caught:
            with interrupt.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)  # the handler has run by now, and held it
                done.append("still writing")
        assert done == ["still writing"] and caught.value.exit_code == 143
        with pytest.raises(Interrupted):  # outside a deferred block it stops the run at once
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
            done.append("too far")
    assert done == ["still writing"]


def test_ctrl_c_during_the_llm_judge_drops_the_queued_requests(httpserver):
    calls = []

    def slow(request):
        calls.append(1)
        time.sleep(0.3)
        from werkzeug import Response
        return Response(json.dumps({"choices": [{"message": {"content": "0.5"}}]}), content_type="application/json")

    httpserver.expect_request("/v1/chat/completions").respond_with_handler(slow)
    config = GraderConfig(enabled=True, base_url=httpserver.url_for("/v1"), model="j", max_concurrency=1,
                         cache=False)
    items = [GraderItem(f"q{i}", "relevance", f"q {i}", "c", "a", "e") for i in range(40)]
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    started = time.monotonic()
    with interrupt.handling(), pytest.raises(Interrupted):
        run_grader(config, "sk-x", items, cache_dir=None)
    assert time.monotonic() - started < 3  # not 40 x 0.3 s: the queue was dropped
    time.sleep(0.5)
    assert len(calls) < 6


def test_an_error_that_follows_the_interruption_is_reported_as_the_interruption(tmp_path, monkeypatch, capsys):
    """A Ctrl-C raised inside a model load unwinds through torch's context managers, whose cleanup can fail on
    its own ("trying to pop from empty mode stack"), and the engine loader wraps any exception as a broken model:
    the run was interrupted (130), not a model failure (3)."""
    import gate.run
    from gate.errors import RuntimeFailure

    heuristic_project(tmp_path, monkeypatch)

    def interrupted_load(*_args, **_kwargs):
        try:
            try:
                interrupt._raise(signal.SIGINT)  # what the handler does at the next safe point
            finally:
                raise RuntimeError("trying to pop from empty mode stack")  # a library's cleanup, as it unwinds
        except Exception as exc:  # the loader's "could not be loaded" wrapper
            raise RuntimeFailure(f"BERTScore model could not be loaded: {exc}") from None

    monkeypatch.setattr(gate.run, "measure", interrupted_load)
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == 130
    err = capsys.readouterr().err
    assert "could not be loaded" not in err and "SIGINT" in err.strip().splitlines()[-1]
