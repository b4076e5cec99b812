"""Keep secrets out of everything the gate prints or writes.

The GitHub token (and any API key the environment hands the gate, such as the LLM judge's) must never
appear in a log line, an exception message, a report file, an annotation or the job summary — whatever
a server echoes back, a library logs or a model writes. Messages are built carefully where tokens are
handled (`gate.publish.github` scrubs what a server returns), but one forgotten f-string would undo that, so
this module is the net under all of them:

- `register()` / `register_environment()` record the secret values of this process (the token, and
  every variable whose name says it holds a secret);
- `redact()` replaces each of them, and anything shaped like a GitHub token, with `***`;
- `guard()` (used by `gate.cli.main`) routes stdout, stderr and every log record through `redact()`
  for the whole command, and in GitHub Actions registers the secrets with the runner (`::add-mask::`)
  so the runner's log masks them as well (also what other steps print);
- `gate.io`'s writers and `gate.publish.actions` pass what they write through `redact()`.

The same net keeps text out of the runner's command channel: the runner obeys a workflow command on any
line of stdout or stderr that starts with `::` (after whitespace) or holds `##[` (the legacy form), and
the gate prints names, paths and values a PR chose. `neutralise()` makes such text inert on both streams;
the gate's own commands (`gate.publish.actions.issue`, `::add-mask::`) are the only writes that bypass it, through
`emit_command()`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TextIO

MASK = "***"
# Shorter values would mask ordinary words and numbers all over a report; real tokens are far longer.
MIN_SECRET_LENGTH = 8
# Variables whose value is a secret by name: GITHUB_TOKEN, INPUT_GITHUB_TOKEN, OPENAI_API_KEY, HF_TOKEN,
# ACTIONS_RUNTIME_TOKEN, *_SECRET, *_PASSWORD ...
SECRET_NAME = re.compile(r"(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|KEY|APIKEY|PAT|CREDENTIALS?)(?:_|$)",
                         re.IGNORECASE)
# GitHub's token formats (classic and fine-grained PATs, app, user-to-server, refresh tokens): masked even
# when nobody registered them, e.g. a token a model printed into its output.
# No word boundary before the prefix: a token glued to the text before it ("xghp_…", "key_ghp_…", "1ghp_…") is
# masked too -- a longer match than the token itself costs a few shown letters, never the secret.
TOKEN_SHAPE = re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")

_lock = threading.Lock()
_secrets: frozenset[str] = frozenset()  # replaced, never mutated: readers need no lock


def register(value: str | None) -> bool:
    """Treat `value` as a secret from now on; False when it is too short to be one."""
    global _secrets
    text = (value or "").strip()
    if len(text) < MIN_SECRET_LENGTH:
        return False
    with _lock:
        _secrets = _secrets | {text, *(line.strip() for line in text.splitlines()
                                        if len(line.strip()) >= MIN_SECRET_LENGTH)}
    return True


# They match SECRET_NAME but hold the NAME of the judge's key variable (e.g. OPENAI_API_KEY), not a secret:
# masked, that name would vanish from every message telling the user what to set (gate.config.grader_access).
NAMES_NOT_SECRETS = frozenset({"INPUT_JUDGE_API_KEY_ENV", "LLM_GATE_JUDGE_API_KEY_ENV"})


def register_environment(environ: Mapping[str, str]) -> None:
    """Register every variable whose name marks it as a secret (see SECRET_NAME)."""
    for name, value in environ.items():
        if SECRET_NAME.search(name) and name.upper() not in NAMES_NOT_SECRETS:
            register(value)


def secrets() -> frozenset[str]:
    return _secrets


def forget_all() -> None:
    """For tests: start from an empty registry."""
    global _secrets
    with _lock:
        _secrets = frozenset()


def escape_data(text: str) -> str:
    """A workflow command's data as the runner unescapes it: `%`, CR and LF encoded, so one line."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def redact(text: str) -> str:
    """`text` with every registered secret and every GitHub-token-shaped string replaced by `***`."""
    if not isinstance(text, str) or not text:
        return text
    for secret in sorted(_secrets, key=len, reverse=True):  # longest first: a secret may contain another
        if secret in text:
            text = text.replace(secret, MASK)
    # every token shape holds "_" and starts "gh" or "github_pat_": most texts (a report's cells, by the hundred
    # thousand) are passed by substring tests, not a regular expression
    return TOKEN_SHAPE.sub(MASK, text) if "_" in text and ("gh" in text or "github_pat_" in text) else text


ZWSP = "\u200b"  # invisible in the log, and not whitespace to the runner (.NET) or to Python
LINE_BREAKS = re.compile(r"([\r\n])")  # the runner reads lines with .NET's ReadLine: \n, \r and \r\n
LEGACY_COMMAND = "##["


@dataclass(frozen=True)
class LineState:
    """Where a stream stands in its current line, so that a command split over two writes is still seen.

    `head` is "blank" while the line holds only whitespace, "colon" after whitespace and one colon, and
    "text" once the line cannot start a command any more; `tail` is its last two characters (for `##[`).
    """

    head: str = "blank"
    tail: str = ""


LINE_START = LineState()


def neutralise(text: str, state: LineState = LINE_START) -> tuple[str, LineState]:
    """`text` with no line the runner would take as a workflow command, and the state after it.

    A zero-width space goes before the character that would complete a command: the second colon of a
    line's leading `::`, the `[` of `##[`. Inserting only (never removing) keeps it idempotent and the
    text readable; `state` carries the line's start across writes, so `:` + `:error::x` is caught too.
    """
    parts = LINE_BREAKS.split(text)
    for index in range(0, len(parts), 2):  # even items are line contents, odd ones the breaks between
        if index:
            state = LINE_START
        parts[index], state = _neutralise_line(parts[index], state)
    return "".join(parts), state


def _neutralise_line(segment: str, state: LineState) -> tuple[str, LineState]:
    if not segment:
        return segment, state
    cuts = []
    head = state.head
    if head == "colon":
        head = "text"
        if segment[0] == ":":
            cuts.append(0)
    elif head == "blank":
        body = segment.lstrip()
        first = len(segment) - len(body)
        if body.startswith("::"):
            cuts.append(first + 1)
        head = "blank" if not body else "colon" if body == ":" else "text"
    joined = state.tail + segment
    cuts += [m.end() - 1 - len(state.tail) for m in re.finditer(re.escape(LEGACY_COMMAND), joined)]
    for cut in sorted(set(cuts), reverse=True):
        segment = segment[:cut] + ZWSP + segment[cut:]
    return segment, LineState(head, (state.tail + segment)[-2:])


class RedactingStream:
    """A text stream that redacts and neutralises workflow commands before writing to the stream it wraps.

    It deliberately has no `buffer`: libraries that write bytes to `sys.stdout.buffer` would bypass it,
    and click (under typer) falls back to text writes when there is none. Every write goes through
    `neutralise()`, on stdout as on stderr (the runner reads commands from both, and both quote file
    names and values a PR chose); `write_command` is the one way around it, for the gate's own commands.
    """

    def __init__(self, stream: TextIO):
        self._stream = stream
        self._state = LINE_START
        self._lock = threading.RLock()

    def write(self, text: str) -> int:
        with self._lock:
            out, self._state = neutralise(redact(text), self._state)
            self._stream.write(out)
        return len(text)

    def write_command(self, line: str) -> None:
        """Write the gate's own workflow command, on a line of its own, past the neutraliser."""
        with self._lock:
            if self._state != LINE_START:
                self._stream.write("\n")
            self._stream.write(line + "\n")
            self._state = LINE_START
        self._stream.flush()

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._stream, name)


# What the gate may say to the runner: a v2 command name and its escaped properties and data.
TRUSTED_COMMAND = re.compile(r"::(?:error|warning|notice|debug|group|endgroup|add-mask)(?: [^:\r\n]*)?::[^\r\n]*")


def emit_command(line: str, *, stderr: bool = False) -> None:
    """The single trusted channel for the gate's own workflow commands (see `gate.publish.actions.issue`).

    The line must be finished: escaped, redacted, one line. It is written to the stream under the
    neutralising wrapper, starting a line of its own; anything else raises, as a bug of the gate's.
    """
    if not TRUSTED_COMMAND.fullmatch(line):
        raise ValueError(f"not a well-formed workflow command: {line[:80]!r}")
    stream = sys.stderr if stderr else sys.stdout
    if isinstance(stream, RedactingStream):
        stream.write_command(line)
    else:  # outside guard(): nothing neutralises this stream, so nothing needs bypassing
        stream.write(line + "\n")
        stream.flush()


def _redacting_factory(original):
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = original(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call: leave it to logging to report
            return record
        record.msg, record.args = neutralise(redact(message))[0], None  # a handler may hold the raw stream
        return record
    return factory


@contextmanager
def guard(environ: Mapping[str, str], *, debug: bool = False) -> Iterator[None]:
    """For one CLI command: secrets from `environ` registered, stdout/stderr/logging redacted.

    In GitHub Actions the secrets are also announced to the runner with `::add-mask::`, past the redacting
    stream (through it they would arrive masked and mask nothing), on stderr: on stdout they would end up
    in `llm-gate schema > file` (the runner reads workflow commands from both streams). With `debug`,
    log records of every library (PyGithub, urllib3, ...) go to stderr at DEBUG level — redacted.
    """
    register_environment(environ)
    saved_out, saved_err, saved_factory = sys.stdout, sys.stderr, logging.getLogRecordFactory()
    sys.stdout, sys.stderr = RedactingStream(saved_out), RedactingStream(saved_err)
    if environ.get("GITHUB_ACTIONS") == "true":
        for secret in sorted(_secrets):
            if "\n" not in secret and "\r" not in secret:  # each of its lines is registered on its own
                emit_command(f"::add-mask::{escape_data(secret)}", stderr=True)
    logging.setLogRecordFactory(_redacting_factory(saved_factory))
    handler = None
    if debug:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logging.getLogger().addHandler(handler)
        saved_level = logging.getLogger().level
        logging.getLogger().setLevel(logging.DEBUG)
    try:
        yield
    finally:
        if handler is not None:
            logging.getLogger().removeHandler(handler)
            logging.getLogger().setLevel(saved_level)
        logging.setLogRecordFactory(saved_factory)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = saved_out, saved_err


def debug_enabled(environ: Mapping[str, str] = os.environ) -> bool:
    return bool(environ.get("LLM_GATE_DEBUG", "").strip())
