"""The run's progress display (gate.runtime.engines.progress): timestamped lines at a bounded rate without a
terminal, labelled bars on one, log groups around each unit of work, nothing with --quiet."""

from __future__ import annotations

import io
import re
from datetime import datetime

import pytest
from rich.console import Console

from gate.runtime.engines import progress
from gate.runtime.engines.progress import Mode, Reporter, engine_label, suites_label

LABEL = "feedback-drift · BERTScore (all-MiniLM-L6-v2, layer 6)"
STAMP = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\] (.*)$")
START = datetime(2024, 5, 1, 12, 1, 0).timestamp()  # local time, as the lines show it


class FakeClock:
    """Seconds since the epoch; `tick` moves it on, as the work would."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def lines_reporter(clock: FakeClock, group=None) -> tuple[Reporter, io.StringIO]:
    out = io.StringIO()
    return Reporter(Mode.LINES, stream=out, clock=clock, group=group), out


def long_task(reporter: Reporter, clock: FakeClock, blocks: int, seconds_per_block: float, size: int = 40) -> None:
    with reporter.task(LABEL, blocks * size, loading="all-MiniLM-L6-v2") as task:
        clock.now += 5  # loading the model
        task.loaded()
        for _ in range(blocks):
            clock.now += seconds_per_block
            task.advance(size)


def test_without_a_terminal_a_long_task_writes_few_timestamped_labelled_lines():
    clock = FakeClock()
    reporter, out = lines_reporter(clock)
    long_task(reporter, clock, blocks=3600, seconds_per_block=0.5)  # 30 minutes of work, 3600 advances
    lines = out.getvalue().splitlines()
    parsed = [STAMP.match(line) for line in lines]
    assert all(parsed), lines
    texts = [m.group(4) for m in parsed if m]
    assert texts[0] == f"{LABEL}: loading all-MiniLM-L6-v2…"
    assert texts[1] == f"{LABEL}: 144000 texts to do"
    assert texts[-1] == f"{LABEL}: 144000/144000 texts (100%), 1800.0 s (+5.0 s loading) — done"
    middle = texts[2:-1]
    # at most one line per 10 s of work: 1800 s -> at most 180, not one per advance (3600)
    assert 170 <= len(middle) <= 180
    assert middle[0] == f"{LABEL}: 800/144000 texts (0%), 10.0 s"  # the first line 10 s into the work
    elapsed = [float(t.rsplit(", ", 1)[1].removesuffix(" s")) for t in middle]
    assert all(b - a >= 10 for a, b in zip(elapsed, elapsed[1:], strict=False))
    assert (parsed[0].group(1), parsed[0].group(2)) == ("12", "01")  # the clock's wall time, not the machine's


def test_a_short_task_writes_its_start_and_end_lines_only():
    clock = FakeClock()
    reporter, out = lines_reporter(clock)
    long_task(reporter, clock, blocks=5, seconds_per_block=1)
    assert [STAMP.match(line).group(4) for line in out.getvalue().splitlines()] == [
        f"{LABEL}: loading all-MiniLM-L6-v2…", f"{LABEL}: 200 texts to do",
        f"{LABEL}: 200/200 texts (100%), 5.0 s (+5.0 s loading) — done"]


def test_a_failing_task_says_where_it_stopped():
    clock = FakeClock()
    reporter, out = lines_reporter(clock)
    with pytest.raises(KeyError), reporter.task("s · classifier (c)", 80) as task:
        task.advance(40)
        raise KeyError("boom")
    assert out.getvalue().splitlines()[-1].endswith("s · classifier (c): 40/80 texts (50%), 0.0 s — stopped")


def test_groups_fold_each_task_and_step_and_open_before_their_lines():
    clock = FakeClock()
    events: list[str | None] = []
    out = io.StringIO()

    class Recording(io.StringIO):
        def write(self, text: str) -> int:
            events.append(f"line {text.strip()}")
            return out.write(text)

    reporter = Reporter(Mode.LINES, stream=Recording(), clock=clock, group=lambda t: events.append(t))
    with reporter.status("loading torch…"):
        pass
    long_task(reporter, clock, blocks=2, seconds_per_block=1)
    with reporter.step("feedback-drift", "scoring (drift)"):
        clock.now += 1
    assert events[0].endswith("loading torch…")  # a status is no group
    assert events[1] == LABEL and events[5] is None  # open, loading, to do, done, close
    assert events[6] == "feedback-drift" and events[7].endswith("feedback-drift: scoring (drift)")
    assert events[8].endswith("feedback-drift: done, 1.0 s") and events[9] is None
    assert len(events) == 10


def test_quiet_shows_nothing_and_opens_no_group():
    events: list[str | None] = []
    reporter = Reporter(Mode.OFF, stream=io.StringIO(), group=events.append)
    long_task(reporter, FakeClock(), blocks=3, seconds_per_block=20)
    with reporter.step("s", "scoring"), reporter.status("loading torch…"):
        pass
    assert events == [] and reporter._stream.getvalue() == ""


def test_on_a_terminal_the_bar_is_labelled_with_the_suite_and_the_engine():
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=140, color_system=None)
    reporter = Reporter(Mode.BARS, console=console)
    clock = FakeClock()
    with reporter.status("loading torch…"):
        pass
    long_task(reporter, clock, blocks=9, seconds_per_block=0)
    shown = screen.getvalue()
    assert LABEL in shown and "360/360 texts" in shown


def test_model_progress_stays_quiet_inside_a_task(capsys, monkeypatch):
    """An engine's own per-call bar inside a run's task would draw a second live display over the task's."""
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    monkeypatch.setattr(progress, "_enabled", True)  # the test session switches the engines' bars off
    with progress.model_progress("BERTScore: encoding", 4) as alone:  # outside a task: a bar of its own, as before
        assert isinstance(alone, progress._RichTask)
    console = Console(file=io.StringIO(), force_terminal=True)
    with Reporter(Mode.BARS, console=console).task(LABEL, 10) as task, \
            progress.model_progress("BERTScore: encoding", 4) as inner:
        assert isinstance(inner, progress._Silent) and progress.active() is task
        task.advance(10)
    assert not progress._live


def test_labels_say_which_suites_and_which_engine():
    assert engine_label("bertscore", "sentence-transformers/all-MiniLM-L6-v2", 6) == \
        "BERTScore (all-MiniLM-L6-v2, layer 6)"
    assert engine_label("classifier", "models/hearts-standin") == "classifier (hearts-standin)"
    assert suites_label(["a", "b"]) == "a, b" and suites_label(["a", "b", "c", "d", "e"]) == "a, b, c +2 more"


def test_for_run_picks_the_display_from_quiet_the_terminal_and_actions(monkeypatch):
    group = [].append
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert Reporter.for_run(quiet=True, in_actions=True, group=group).mode is Mode.OFF
    ci = Reporter.for_run(quiet=False, in_actions=True, group=group)
    assert ci.mode is Mode.LINES and ci._group is group
    assert Reporter.for_run(quiet=False, in_actions=False, group=group)._group is None
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert Reporter.for_run(quiet=False, in_actions=False).mode is Mode.BARS
