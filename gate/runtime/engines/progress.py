"""Progress bars for model work (rich), written to stderr so stdout stays machine-readable."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Progress(Protocol):
    def advance(self, steps: int = 1) -> None: ...


class _Silent:
    def advance(self, steps: int = 1) -> None:
        return None


class _RichTask:
    def __init__(self, progress, task_id) -> None:
        self._progress = progress
        self._task_id = task_id

    def advance(self, steps: int = 1) -> None:
        self._progress.advance(self._task_id, steps)


_enabled = True


def set_enabled(enabled: bool) -> None:
    """Quiet mode (`--quiet`) and tests switch progress bars off."""
    global _enabled
    _enabled = enabled


@contextmanager
def model_progress(description: str, total: int) -> Iterator[Progress]:
    """A progress bar over `total` steps (usually batches) of model work.

    Shown only on an interactive stderr; in CI logs a bar would be noise, so it stays silent there.
    """
    if not _enabled or total <= 0 or not sys.stderr.isatty():
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
