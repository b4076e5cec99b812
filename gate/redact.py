"""Keep secrets out of everything the gate prints or writes.

The GitHub token (and any API key the environment hands the gate, such as the LLM judge's) must never
appear in a log line, an exception message, a report file, an annotation or the job summary — whatever
a server echoes back, a library logs or a model writes. Messages are built carefully where tokens are
handled (`gate.github` scrubs what a server returns), but one forgotten f-string would undo that, so
this module is the net under all of them:

- `register()` / `register_environment()` record the secret values of this process (the token, and
  every variable whose name says it holds a secret);
- `redact()` replaces each of them, and anything shaped like a GitHub token, with `***`;
- `guard()` (used by `gate.cli.main`) routes stdout, stderr and every log record through `redact()`
  for the whole command, and in GitHub Actions registers the secrets with the runner (`::add-mask::`)
  so the runner's log masks them as well (also what other steps print);
- `gate.io`'s writers and `gate.actions` pass what they write through `redact()`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
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
TOKEN_SHAPE = re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")

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


def register_environment(environ: Mapping[str, str]) -> None:
    """Register every variable whose name marks it as a secret (see SECRET_NAME)."""
    for name, value in environ.items():
        if SECRET_NAME.search(name):
            register(value)


def secrets() -> frozenset[str]:
    return _secrets


def forget_all() -> None:
    """For tests: start from an empty registry."""
    global _secrets
    with _lock:
        _secrets = frozenset()


def redact(text: str) -> str:
    """`text` with every registered secret and every GitHub-token-shaped string replaced by `***`."""
    if not isinstance(text, str) or not text:
        return text
    for secret in sorted(_secrets, key=len, reverse=True):  # longest first: a secret may contain another
        if secret in text:
            text = text.replace(secret, MASK)
    return TOKEN_SHAPE.sub(MASK, text)


class RedactingStream:
    """A text stream that redacts before writing to the stream it wraps.

    It deliberately has no `buffer`: libraries that write bytes to `sys.stdout.buffer` would bypass it,
    and click (under typer) falls back to text writes when there is none. With `inert_commands` (stderr,
    where the gate never means to issue one) no line can start a workflow command: the runner reads
    `::error::`, `::add-mask::` … from stderr too, and messages quote file names a PR chose.
    """

    def __init__(self, stream: TextIO, inert_commands: bool = False):
        self._stream = stream
        self._inert = inert_commands
        self._line_start = True

    def write(self, text: str) -> int:
        out = redact(text)
        if self._inert and out:
            lines = out.split("\n")
            for i, line in enumerate(lines):
                if (i > 0 or self._line_start) and line.lstrip().startswith("::"):
                    lines[i] = line.replace("::", ":\u200b:", 1)
            out = "\n".join(lines)
            self._line_start = out.endswith("\n")
        self._stream.write(out)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._stream, name)


def _redacting_factory(original):
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = original(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call: leave it to logging to report
            return record
        record.msg, record.args = redact(message), None
        return record
    return factory


@contextmanager
def guard(environ: Mapping[str, str], *, debug: bool = False) -> Iterator[None]:
    """For one CLI command: secrets from `environ` registered, stdout/stderr/logging redacted.

    In GitHub Actions the secrets are also announced to the runner with `::add-mask::`, on the real stderr:
    through a redacting stream they would arrive masked and mask nothing, and on stdout they would end up
    in `llm-gate schema > file` (the runner reads workflow commands from both streams). With `debug`,
    log records of every library (PyGithub, urllib3, ...) go to stderr at DEBUG level — redacted.
    """
    register_environment(environ)
    if environ.get("GITHUB_ACTIONS") == "true":
        for secret in sorted(_secrets):
            if "\n" not in secret:
                sys.stderr.write(f"::add-mask::{secret}\n")
        sys.stderr.flush()
    saved_out, saved_err, saved_factory = sys.stdout, sys.stderr, logging.getLogRecordFactory()
    sys.stdout, sys.stderr = RedactingStream(saved_out), RedactingStream(saved_err, inert_commands=True)
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
