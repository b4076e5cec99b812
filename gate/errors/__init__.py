"""Errors a user can act on, and the exit codes they map to (DESIGN.md §5).

A failed gate is a *result* (exit 1), never an exception. Exceptions here are for input the user
must fix (exit 2) and for runtime failures such as a model that cannot be loaded (exit 3). Every
problem names where it is (file, line, record, field), what was expected, what was found and how
to fix it, and all problems of one kind are collected before anything is raised. `interrupt` is the other way
a run ends early: a signal, turned into its exit code at a safe point (standard library only, so the console
script installs it before anything slow is imported).
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from enum import IntEnum

# Messages quote what was found, but a found value can be a 1 MB string, a structure nested
# thousands deep, or a YAML alias bomb whose full repr would never finish: repr it with bounds.
_BOUNDED = reprlib.Repr()
_BOUNDED.maxlevel, _BOUNDED.maxdict, _BOUNDED.maxlist, _BOUNDED.maxtuple = 3, 4, 6, 6
_BOUNDED.maxset = _BOUNDED.maxfrozenset = _BOUNDED.maxdeque = _BOUNDED.maxarray = 6
_BOUNDED.maxstring = _BOUNDED.maxother = _BOUNDED.maxlong = 80
MAX_SHOWN_PROBLEMS = 100  # a file with 100,000 bad lines must not print 100,000 lines


class ExitCode(IntEnum):
    PASSED = 0
    GATE_FAILED = 1
    INVALID_INPUT = 2
    RUNTIME_FAILURE = 3


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the user's input, located as precisely as we can."""

    expected: str
    found: str | None = None
    file: str | None = None
    line: int | None = None
    record: str | None = None
    field: str | None = None
    fix: str | None = None

    @property
    def where(self) -> str:
        place = self.file or ""
        if self.file and self.line is not None:
            place = f"{self.file}:{self.line}"
        parts = [p for p in (place, self.record) if p]
        if self.field:
            parts.append(f"field '{self.field}'")
        return ", ".join(parts)

    def render(self) -> str:
        text = f"{self.where}: " if self.where else ""
        text += f"expected {self.expected}"
        if self.found is not None:
            text += f", found {self.found}"
        if self.fix:
            text += f". Fix: {self.fix}"
        return text


def describe(value: object, limit: int = 60) -> str:
    """A short, unambiguous rendering of a received value for error messages."""
    try:
        text = repr(value[: limit + 1]) if isinstance(value, str) else _BOUNDED.repr(value)
    except ValueError:  # an integer past Python's 4300-digit str() limit
        text = f"a {type(value).__name__} too large to show"
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{text} ({type(value).__name__})" if not isinstance(value, str) else text


class GateError(Exception):
    exit_code: ExitCode = ExitCode.RUNTIME_FAILURE


class InputError(GateError):
    """Input files or config the user must fix; carries every problem found at once."""

    exit_code = ExitCode.INVALID_INPUT

    def __init__(self, title: str, problems: list[Problem] | tuple[Problem, ...]):
        self.title = title
        self.problems = tuple(problems)
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.problems)
        head = f"{self.title} ({count} problem{'s' if count != 1 else ''})"
        lines = [head, *(f"  - {p.render()}" for p in self.problems[:MAX_SHOWN_PROBLEMS])]
        if count > MAX_SHOWN_PROBLEMS:
            lines.append(f"  … and {count - MAX_SHOWN_PROBLEMS} more problems (fix these and run again)")
        return "\n".join(lines)


class ConfigError(InputError):
    """gate.yml is invalid."""


class RuntimeFailure(GateError):
    """The gate could not run (a model cannot be loaded, a device is missing, ...)."""

    exit_code = ExitCode.RUNTIME_FAILURE

    def __init__(self, message: str, fix: str | None = None):
        self.message = message
        self.fix = fix
        super().__init__(self.render())

    def render(self) -> str:
        return self.message + (f"\nFix: {self.fix}" if self.fix else "")


class PublishError(Exception):
    """A call to GitHub failed (scrubbed of the token). Not a GateError: publishing, and the history kept on a
    branch, never change the verdict or the exit code; callers turn it into a note. Here, below both, so that the
    history (`gate.baselines.flow`) can catch what the GitHub client (`gate.publish.github`) raises."""

    def __init__(self, message: str, status: int | None = None, rate_limited: bool = False):
        super().__init__(message)
        self.status = status
        self.rate_limited = rate_limited  # GitHub's rate limit, not a permission: the 403 means "later"


class ModelUnavailable(RuntimeFailure):
    """A configured model is not available offline (DESIGN.md §7)."""
