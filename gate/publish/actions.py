"""The GitHub Actions runtime: step outputs, the job summary and workflow commands.

Only file appends and stdout lines: no network (that is `gate/publish/github/`). The gate's own workflow
commands go out through `issue()` alone: every other byte of stdout and stderr passes the neutraliser
(`gate.io.redact.neutralise`), which would, rightly, defuse a command printed any other way.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path

from gate import io
from gate.io import redact as _redact
from gate.io.redact import LineState, escape_data, neutralise, redact


def write_outputs(path: Path | None, outputs: Mapping[str, str]) -> None:
    """Append `name=value` pairs to GITHUB_OUTPUT; multi-line values use a random heredoc delimiter."""
    if path is None:
        return
    lines = []
    for name, value in outputs.items():
        if "\n" in value:
            delimiter = f"ghadelimiter_{uuid.uuid4().hex}"
            lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            lines.append(f"{name}={value}\n")
    io.append_text(path, "".join(lines))


def write_summary(path: Path | None, markdown: str) -> None:
    """Append the report to the job summary (GitHub caps it at 1 MiB per step)."""
    if path is None:
        return
    io.append_text(path, markdown if markdown.endswith("\n") else markdown + "\n")


def _escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, *, file: str | None = None, line: int | None = None,
            title: str | None = None) -> str:
    """A workflow command line such as `::error file=a.jsonl,line=3::...`, escaped and redacted (see `issue`).

    Escaping keeps it one line whatever the message holds; `##[` inside is defused too, so that no line of
    the log carries the legacy command form even where the runner would not read it."""
    props = []
    if file:
        props.append(f"file={_escape_property(file)}")
    if line is not None:
        props.append(f"line={line}")
    if title:
        props.append(f"title={_escape_property(title)}")
    head = f"::{kind} {','.join(props)}::" if props else f"::{kind}::"
    return neutralise(redact(head + escape_data(message)), LineState("text"))[0]


def issue(kind: str, message: str, *, file: str | None = None, line: int | None = None,
          title: str | None = None) -> None:
    """Issue the gate's own workflow command (`error`, `warning`, `notice`, `group`...) on stdout.

    The one trusted channel (`gate.io.redact.emit_command`): the finished, escaped line is the only text
    that passes the stream's neutraliser, and a message cannot end it early to start another command."""
    _redact.emit_command(command(kind, message, file=file, line=line, title=title))


def group(title: str | None) -> None:
    """Open a folded group of the log titled `title` (`::group::`), or close the open one (None: `::endgroup::`).

    Through `issue`: a title from gate.yml (a suite's name) is escaped into the one line, so that it can
    neither end the command early nor start one of its own."""
    if title is None:
        issue("endgroup", "")
    else:
        issue("group", title)


def inert_commands(text: str) -> str:
    """`text` for the log with no line the runner would take as a workflow command (`::set-output`,
    `::add-mask::`, `::stop-commands::`): an input file's name or value quoted in an error message could
    otherwise start such a line. The streams do the same to everything (`gate.io.redact.neutralise`)."""
    return neutralise(text)[0]
