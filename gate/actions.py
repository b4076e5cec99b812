"""The GitHub Actions runtime: step outputs, the job summary and workflow commands.

Only file appends and stdout lines: no network (that is `gate/github.py`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path

from gate import io
from gate.redact import redact


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


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, *, file: str | None = None, line: int | None = None,
            title: str | None = None) -> str:
    """A workflow command line such as `::error file=a.jsonl,line=3::...` (print it to stdout)."""
    props = []
    if file:
        props.append(f"file={_escape_property(file)}")
    if line is not None:
        props.append(f"line={line}")
    if title:
        props.append(f"title={_escape_property(title)}")
    head = f"::{kind} {','.join(props)}::" if props else f"::{kind}::"
    return redact(head + _escape_data(message))


def inert_commands(text: str) -> str:
    """`text` for the log with no line the runner would take as a workflow command (`::set-output`,
    `::add-mask::`, `::stop-commands::`): an input file's name or value quoted in an error message could
    otherwise start such a line. A zero-width space after the first colon keeps the text readable."""
    return "\n".join(line.replace("::", ":\u200b:", 1) if line.lstrip().startswith("::") else line
                     for line in text.split("\n"))
