"""SIGINT / SIGTERM at any moment of a run, the first second included: exit 130 / 143 with the one line, within
a bound, never a hang, never a partial file.

The signal handler raises only at a safe point: a signal that lands inside an import, or while `logging` holds
its module lock, is held until the import or the logging call is done (gate/errors/interrupt.py). Raising there
leaked the lock, and the next thread that needed it hung the process (issue 17, item 3).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import tomllib

from gate.errors import interrupt
from gate.errors.interrupt import Interrupted
from tests.conftest import EXAMPLES, REPO

BOUND_S = 5.0  # from the signal to the exit, even while an import holds it

# Runs gate.__main__.main as the console script does, and says on stderr where each signal landed.
PROBE = """
import os, sys
from gate.errors import interrupt
real_handler = interrupt._handler
def traced(signum, frame):
    chain, f = [], frame
    while f is not None:
        chain.append(f.f_code.co_filename)
        f = f.f_back
    importing = any(name.startswith("<frozen importlib") for name in chain)
    cli = sys.modules.get("gate.cli")
    phase = "entry" if cli is None else "cli-import" if not hasattr(cli, "main") else "command"
    os.write(2, f"PROBE signal importing={importing} phase={phase}\\n".encode())
    real_handler(signum, frame)
interrupt._handler = traced
{hook}
from gate.__main__ import main
sys.argv = ["llm-gate", *sys.argv[1:]]
main()
"""

# A library that signals itself while it holds logging's module lock, during the import of `target`, the way
# `logging.getLogger` does at a module's top level (acquire, then work, then release; no try/finally between).
# At exit a second thread takes the lock: if it was leaked, that thread would wait forever.
STALL = """
import atexit, logging, signal, threading, time
def stall():
    logging._lock.acquire()
    os.kill(os.getpid(), signal.{signal})
    time.sleep({hold})
    logging._lock.release()
    os.write(2, b"PROBE import finished\\n")
class Hook:
    done = False
    def find_spec(self, name, path=None, target=None):
        if name == {target!r} and not Hook.done:
            Hook.done = True
            stall()
        return None
sys.meta_path.insert(0, Hook())
def lock_check():
    got = []
    def take():
        got.append(logging._lock.acquire(timeout=2))
        if got[0]:
            logging._lock.release()
    worker = threading.Thread(target=take)
    worker.start(); worker.join()
    os.write(2, b"PROBE logging lock " + (b"free" if got[0] else b"leaked") + b"\\n")
atexit.register(lock_check)
"""


def workspace(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=shutil.ignore_patterns("gate-report", ".gate-cache"))
    return tmp_path


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "LLM_GATE_"))}
    env.update(HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO), PYTHONFAULTHANDLER="1")
    return env


def start(cwd: Path, out: str, hook: str = "", command: list[str] | None = None) -> subprocess.Popen[str]:
    command = command or [sys.executable, "-c", PROBE.replace("{hook}", hook)]
    return subprocess.Popen([*command, "run", "-c", "examples/gate.yml", "--output-dir", out, "--no-publish", "-q"],
                            cwd=cwd, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def handlers_installed(run: subprocess.Popen[str]) -> float:
    """Wait until the process catches SIGTERM (gate.__main__ installs SIGINT's and SIGTERM's handlers together);
    return when. Before that, Python is still starting up (tens of milliseconds, more on a loaded machine):
    no code of ours has run, and the signals have Python's defaults."""
    status = Path(f"/proc/{run.pid}/status")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and run.poll() is None:
        caught = next((line.split()[1] for line in status.read_text().splitlines() if line.startswith("SigCgt:")),
                      None) if status.exists() else None
        if caught is None:
            pytest.skip("needs /proc/<pid>/status (Linux)")
        if int(caught, 16) >> (signal.SIGTERM - 1) & 1:
            return time.monotonic()
        time.sleep(0.002)
    pytest.fail("the handlers were never installed")


def finish(run: subprocess.Popen[str], signalled_at: float) -> tuple[str, float]:
    """stderr and the seconds from the signal to the exit; a hang dumps every thread's stack and fails."""
    try:
        _, err = run.communicate(timeout=BOUND_S + 25)
    except subprocess.TimeoutExpired:
        run.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: the stacks go to stderr
        _, err = run.communicate(timeout=10)
        pytest.fail(f"no exit {BOUND_S + 25:.0f} s after the signal: a hang\n{err[-6000:]}")
    return err, time.monotonic() - signalled_at


def assert_interrupted(run: subprocess.Popen[str], err: str, signum: int, took: float, *,
                       after_report: bool = False) -> bool:
    """The run ended as an interrupted one; True when the signal came once the whole report set was in place
    (allowed with `after_report`: a warm run on a fast machine can write its report within the sweep's delays)."""
    code = 128 + signum
    name = signal.Signals(signum).name
    assert run.returncode == code, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("PROBE")]
    late = lines[-1].startswith(f"llm-gate: interrupted by {name} after the report was written to ")
    if not (after_report and late):
        assert lines[-1] == (f"llm-gate: interrupted by {name} before the run finished: no verdict, this run wrote no "
                             f"report and published nothing (exit {code})"), err[-3000:]
    assert "Traceback" not in err and "lock leaked" not in err and "Exception ignored" not in err, err[-3000:]
    assert took < BOUND_S, f"exited {took:.1f} s after the signal"
    return late


def assert_no_partial_files(workspace: Path, out: Path) -> None:
    """No temporary piece anywhere (atomic writes' `.x.<random>.tmp`, cache entries' too, staging `.out.tmp-<pid>`), and
    no report: an interrupted run (interrupted before the report set) leaves none of it."""
    stray = [p.relative_to(workspace).as_posix() for p in workspace.rglob("*") if ".tmp" in p.name]
    assert not stray
    if out.exists():
        assert not [p for p in out.rglob("*") if p.name.startswith("report.") or p.name == "publish.json"]


# ------------------------------------------------------------------------------- the safe-point logic, in-process


def test_a_signal_inside_an_import_is_held_until_the_import_is_done(monkeypatch):
    monkeypatch.setattr(interrupt, "RECHECK_S", 5.0)  # no re-check in time: the checkpoint must act
    events = []

    class Hook:
        def find_spec(self, name, path=None, target=None):
            if name == "gate_test_slow_module":
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.2)  # the handler runs during this sleep, with importlib's frames below it
                events.append("import finished")
            return None

    monkeypatch.setattr(sys, "meta_path", [Hook(), *sys.meta_path])
    with interrupt.handling():
        with pytest.raises(ModuleNotFoundError):  # the import ran to its end, unharmed
            __import__("gate_test_slow_module")
        assert events == ["import finished"]
        with pytest.raises(Interrupted) as caught:
            interrupt.checkpoint()
        assert caught.value.exit_code == 143
        interrupt.checkpoint()  # raised once


def test_a_signal_while_logging_holds_its_lock_is_raised_after_the_call_returns():
    events = []
    logger = logging.getLogger("gate.test.interrupt")

    def signalled(record):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # inside Logger.handle's frames: raising here would skip logging's own clean-up
        events.append("filter finished")
        return False

    logger.addFilter(signalled)
    alarm = signal.getsignal(signal.SIGALRM)
    try:
        with interrupt.handling(), pytest.raises(Interrupted) as caught:
            logger.warning("x")
            time.sleep(1)  # the SIGALRM re-check raises here, 50 ms after the handler held it
            events.append("too far")
    finally:
        logger.removeFilter(signalled)
    assert events == ["filter finished"] and caught.value.exit_code == 130
    assert signal.getsignal(signal.SIGALRM) is alarm and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_unsafe_sees_import_logging_and_threading_frames_but_not_a_blocking_wait():
    assert not interrupt.unsafe(sys._getframe())
    seen = []
    logger = logging.getLogger("gate.test.unsafe")
    logger.addFilter(lambda record: seen.append(interrupt.unsafe(sys._getframe())))
    logger.warning("x")
    assert seen == [True]
    # Event.wait's frames are threading's, but its blocking wait is inside try/finally: Ctrl-C stops it at once
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    started = time.monotonic()
    with interrupt.handling(), pytest.raises(Interrupted):
        threading.Event().wait(10)
    assert time.monotonic() - started < 2


def test_a_signal_during_a_finaliser_is_held_not_swallowed():
    """The garbage collector runs `__del__` at any bytecode; an exception raised there is printed as "Exception
    ignored" and dropped, and the run would go on as if never signalled."""
    seen = []

    class Finalised:
        def __del__(self):
            seen.append(interrupt.unsafe(sys._getframe()))

    Finalised()
    assert seen == [True]


def test_the_console_script_is_the_light_entry_module():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["llm-gate"] == "gate.__main__:main"
    probe = ("import sys, gate.__main__; "
             "print(sorted(m for m in ('typer', 'click', 'gate.cli', 'logging') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=environment())
    assert done.stdout.strip() == "[]", done.stderr


# ----------------------------------------------------------------------------------- the real CLI, in a subprocess


@pytest.mark.parametrize(("target", "signum"), [("typer", signal.SIGINT), ("typer", signal.SIGTERM),
                                                ("gate.run", signal.SIGINT),
                                                ("gate.run", signal.SIGTERM)])
def test_a_signal_inside_an_import_holding_logging_s_lock_exits_cleanly(tmp_path, target, signum):
    """`typer` is imported by the CLI module before any command runs; `gate.run` by the command."""
    cwd = workspace(tmp_path)
    hook = STALL.format(signal=signal.Signals(signum).name, hold=0.3, target=target)
    run = start(cwd, "out", hook)
    err, took = finish(run, time.monotonic())
    assert "PROBE signal importing=True" in err and "PROBE import finished" in err
    assert "PROBE logging lock free" in err
    assert_interrupted(run, err, signum, took)
    assert_no_partial_files(cwd, cwd / "out")


@pytest.mark.parametrize("second", [False, True])
def test_an_import_that_does_not_end_still_exits_within_the_bound(tmp_path, second):
    """A signal held by an import that takes 60 s: the hold limit (or a second signal at once) ends the process."""
    cwd = workspace(tmp_path)
    hook = STALL.format(signal="SIGTERM", hold=60, target="gate.run")
    if second:
        hook = hook.replace("time.sleep(60)", "time.sleep(0.1); os.kill(os.getpid(), signal.SIGTERM); time.sleep(60)")
    run = start(cwd, "out", hook)
    started = time.monotonic()
    err, took = finish(run, started)
    assert "PROBE import finished" not in err
    assert_interrupted(run, err, signal.SIGTERM, took)
    if second:
        assert took < interrupt.HOLD_LIMIT_S, "the second signal should not wait for the hold limit"
    assert_no_partial_files(cwd, cwd / "out")


DELAYS = (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.5, 3.0, 5.0)  # after the handlers are installed


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_at_any_moment_of_a_run_exits_cleanly(tmp_path, signum):
    cwd = workspace(tmp_path)
    landed = []
    for delay in DELAYS:
        out = f"out-{delay}"
        run = start(cwd, out)
        time.sleep(max(0.0, handlers_installed(run) + delay - time.monotonic()))
        if run.poll() is not None:  # a very fast machine finished the run first: nothing to interrupt
            landed.append("finished first")
            continue
        run.send_signal(signum)
        err, took = finish(run, time.monotonic())
        if assert_interrupted(run, err, signum, took, after_report=True):  # the report set is whole, one run's
            report = json.loads((cwd / out / "report.json").read_text())
            assert json.loads((cwd / out / "publish.json").read_text())["verdict"] == report["verdict"]
            assert not [p for p in cwd.rglob("*") if ".tmp" in p.name]
        else:
            assert_no_partial_files(cwd, cwd / out)
        landed.append(next((line for line in err.splitlines() if line.startswith("PROBE signal")), "before entry"))
    sys.stderr.write(f"{signal.Signals(signum).name} trials: {list(zip(DELAYS, landed, strict=True))}\n")
    assert landed.count("finished first") <= 2


def test_sigterm_in_the_first_moments_through_the_console_script(tmp_path):
    script = Path(sys.executable).parent / "llm-gate"
    installed = script.is_file() and "gate.__main__" in script.read_text()
    command = [str(script)] if installed else [sys.executable, "-m", "gate"]
    cwd = workspace(tmp_path)
    for delay in (0.0, 0.1):
        run = start(cwd, "out", command=command)
        time.sleep(max(0.0, handlers_installed(run) + delay - time.monotonic()))
        run.send_signal(signal.SIGTERM)
        err, took = finish(run, time.monotonic())
        assert_interrupted(run, err, signal.SIGTERM, took)
        assert_no_partial_files(cwd, cwd / "out")
