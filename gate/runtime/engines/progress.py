"""How a run shows that it is working, on stderr so that stdout stays the summary.

Three ways, chosen once per run (`Reporter.mode`):
- BARS on a terminal: a rich spinner while torch and a model load, then one bar per unit of work labelled with
  what it is for ("feedback-drift · BERTScore (MiniLM-L6, layer 6)"), left on screen when done;
- LINES in CI logs, which a bar would fill with carriage returns: plain timestamped lines
  (`[12:01:03] feedback-drift · BERTScore (…): 1200/3600 texts (33%), 4.1 s`: seconds of work, the model's
  loading told apart in the end line), a start and an end line per unit and in between at most one line every
  `interval` seconds, so a long run writes a bounded log; `group` (given in GitHub Actions) folds each unit
  into a `::group::` of the log;
- OFF (`--quiet`).

The model work (`gate.runtime.work.execute`) opens one `task` per engine; its block loop advances the innermost
open task (`active()`), which keeps the engines' own per-call bars (`model_progress`) quiet meanwhile: rich can
show only one live display at a time.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from enum import Enum
from typing import Any, Protocol, TextIO

INTERVAL_S = 10.0  # LINES: at most one progress line per unit of work this often (plus its start and end lines)
MAX_SUITES_NAMED = 3  # a label names this many suites, then "+N more"


class Mode(Enum):
    OFF = "off"
    BARS = "bars"
    LINES = "lines"


class Progress(Protocol):
    def advance(self, steps: int = 1) -> None: ...


class Task(Progress, Protocol):
    def loaded(self) -> None: ...


class _Silent:
    def advance(self, steps: int = 1) -> None:
        return None

    def loaded(self) -> None:
        return None

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *_: Any) -> None:
        return None


Group = Callable[[str | None], None]  # open a log group titled so; None closes it


def engine_label(kind: str, model: str, layer: int | None = None) -> str:
    """What an engine is, for people: `BERTScore (roberta-large, layer 17)`, `embeddings (all-MiniLM-L6-v2)`."""
    name = model.rstrip("/").rsplit("/", 1)[-1] or model
    what = {"bertscore": "BERTScore", "embedding": "embeddings", "classifier": "classifier",
            "nli": "NLI"}.get(kind, kind)
    return f"{what} ({name}{f', layer {layer}' if layer is not None else ''})"


def suites_label(suites: list[str] | tuple[str, ...]) -> str:
    """The suites a unit of work serves, at most MAX_SUITES_NAMED of them by name."""
    named = ", ".join(suites[:MAX_SUITES_NAMED])
    return named + (f" +{len(suites) - MAX_SUITES_NAMED} more" if len(suites) > MAX_SUITES_NAMED else "")


class Reporter:
    """The run's progress display (see the module). `clock` (seconds since the epoch) drives both the timestamps
    and the rate limit, so a test replays an hour-long run in no time; `console` is rich's, for BARS."""

    def __init__(self, mode: Mode, *, stream: TextIO | None = None, console: Any = None, group: Group | None = None,
                 clock: Callable[[], float] = time.time, interval: float = INTERVAL_S):
        self.mode, self._stream, self._console, self._group = mode, stream, console, group
        self._clock, self._interval = clock, interval

    @classmethod
    def for_run(cls, *, quiet: bool, in_actions: bool, group: Group | None = None) -> Reporter:
        """--quiet: OFF; an interactive stderr: BARS; else LINES, folded into groups in GitHub Actions."""
        if quiet:
            return cls(Mode.OFF)
        if sys.stderr.isatty():
            return cls(Mode.BARS)
        return cls(Mode.LINES, group=group if in_actions else None)

    @contextmanager
    def status(self, text: str) -> Iterator[None]:
        """A spinner (BARS) or one line (LINES) while something without a count runs: imports, loading."""
        if self.mode is Mode.BARS:
            with self.console().status(text):
                yield
            return
        self._line(text)
        yield

    @contextmanager
    def step(self, label: str, detail: str) -> Iterator[None]:
        """A unit of work without a count (a suite scored from the model work): its group, start and end lines."""
        start = self._clock()
        with self._grouped(label):
            if self.mode is Mode.BARS:
                with self.console().status(f"{label}: {detail}"):
                    yield
                return
            self._line(f"{label}: {detail}")
            yield
            self._line(f"{label}: done, {self._clock() - start:.1f} s")

    @contextmanager
    def task(self, label: str, total: int, unit: str = "texts", loading: str | None = None) -> Iterator[Task]:
        """A unit of work over `total` steps; `loading` names what loads before the first step (a model)."""
        with self._grouped(label):
            if self.mode is Mode.OFF:
                shown: Any = _Silent()
            elif self.mode is Mode.BARS:
                shown = _Bar(self.console(), label, total, unit, loading)
            else:
                shown = _Lines(self._line, self._clock, self._interval, label, total, unit, loading)
            _live.append(shown)
            try:
                with shown:
                    yield shown
            finally:
                _live.remove(shown)

    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        return self._console

    @contextmanager
    def _grouped(self, title: str) -> Iterator[None]:
        if self._group is None or self.mode is Mode.OFF:
            yield
            return
        self._flush()
        self._group(title)
        try:
            yield
        finally:
            self._flush()
            self._group(None)

    def _line(self, text: str) -> None:
        if self.mode is not Mode.LINES:
            return
        stream = self._stream or sys.stderr
        stamp = datetime.fromtimestamp(self._clock()).strftime("%H:%M:%S")
        stream.write(f"[{stamp}] {text}\n")
        stream.flush()

    def _flush(self) -> None:  # the groups go to stdout, the lines to stderr: keep the log in order
        for stream in (self._stream or sys.stderr, sys.stdout):
            stream.flush()


class _Lines:
    """LINES: a start line when the work starts, then at most one line per interval, and the end line."""

    def __init__(self, line: Callable[[str], None], clock: Callable[[], float], interval: float, label: str,
                 total: int, unit: str, loading: str | None):
        self._line, self._clock, self._interval = line, clock, interval
        self._label, self._total, self._unit, self._done = label, total, unit, 0
        self._start = self._last = clock()
        self._started = False
        self._loading_s: float | None = 0.0 if loading else None  # how long the model took, once it has loaded
        if loading:
            self._line(f"{label}: loading {loading}…")

    def loaded(self) -> None:
        """The work starts: its time counts from here, the loading's is told apart in the end line."""
        if not self._started:
            self._started = True
            now = self._clock()
            if self._loading_s is not None:
                self._loading_s, self._start = now - self._start, now
            self._last = now
            self._line(f"{self._label}: {self._total} {self._unit} to do")

    def advance(self, steps: int = 1) -> None:
        self.loaded()
        self._done += steps
        now = self._clock()
        if now - self._last >= self._interval and self._done < self._total:
            self._last = now
            self._line(self._count(now))

    def __enter__(self) -> _Lines:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        now = self._clock()
        loading = f" (+{self._loading_s:.1f} s loading)" if self._started and self._loading_s is not None else ""
        self._line(self._count(now) + loading + (" — done" if kind is None else " — stopped"))

    def _count(self, now: float) -> str:
        share = f" ({100 * self._done // self._total}%)" if self._total else ""
        return f"{self._label}: {self._done}/{self._total} {self._unit}{share}, {now - self._start:.1f} s"


class _Bar:
    """BARS: a spinner and the label while the model loads, then the bar; left on screen when done."""

    def __init__(self, console: Any, label: str, total: int, unit: str, loading: str | None):
        from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        self._label, self._total = label, total
        self._progress = RichProgress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TextColumn(unit), TimeElapsedColumn(), console=console)
        waiting = f"{label}: loading {loading}…" if loading else label
        self._task = self._progress.add_task(waiting, total=None if loading else total)

    def loaded(self) -> None:
        self._progress.update(self._task, description=self._label, total=self._total)

    def advance(self, steps: int = 1) -> None:
        self._progress.update(self._task, description=self._label, total=self._total, advance=steps)

    def __enter__(self) -> _Bar:
        self._progress.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._progress.stop()


_enabled = True
_live: list[Any] = []  # the open tasks, innermost last


def set_enabled(enabled: bool) -> None:
    """Quiet mode (`--quiet`) and tests switch the engines' own bars off."""
    global _enabled
    _enabled = enabled


def active() -> Task:
    """The innermost open task (a silent one when none is open): what the model work's block loop advances."""
    return _live[-1] if _live else _Silent()


@contextmanager
def model_progress(description: str, total: int) -> Iterator[Progress]:
    """A bar over `total` steps of one engine call, for engines used outside a run's model work.

    Silent inside a `Reporter.task` (which shows that work, and rich shows one live display at a time), when
    switched off, and on a stderr that is not a terminal.
    """
    if not _enabled or _live or total <= 0 or not sys.stderr.isatty():
        yield _Silent()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as RichProgress

    with RichProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        yield _RichTask(progress, progress.add_task(description, total=total))


class _RichTask:
    def __init__(self, progress: Any, task_id: Any) -> None:
        self._progress = progress
        self._task_id = task_id

    def advance(self, steps: int = 1) -> None:
        self._progress.advance(self._task_id, steps)
