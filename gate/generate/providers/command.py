"""The command provider: the user's own program (a RAG application, an agent, anything) speaking JSON Lines.

The program is started from an argument list (never a shell) and kept running: each call writes one request line
to its stdin and reads one response line from its stdout.

    request:  {"id": "<key>", "model": "...", "messages": [...] | "prompt": "...", "parameters": {...}, "sample": 0}
    response: {"id": "<key>", "text": "...", "token_logprobs": [["tok", -0.1], ...], "usage": {"prompt_tokens": 3,
               "completion_tokens": 5}, "model_version": "...", "finish_reason": "stop", "cost_usd": 0.0001, ...}

Only `text` is required; every other field the program returns (a RAG application's `retrieved_ids`,
`retrieved_contexts`) passes through in `Response.extra`. A call that takes longer than `timeout`, a line that is
not such a JSON object or is longer than `max_line_bytes`, or a program that exits is a located `Failure`; the
program is then stopped and started afresh for the next call. Its stderr is kept, capped at `stderr_bytes` (the
last bytes), and quoted in failures. Its environment is the gate's without the GitHub and Actions variables (no
token reaches it); `concurrency` programs run side by side, one call in flight each.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import IO, Any

from gate.config.endpoints import FORBIDDEN_PREFIXES
from gate.generate.providers.types import Failure, Request, Response, Result, Usage

_KNOWN = {"text", "token_logprobs", "usage", "model_version", "finish_reason", "cost_usd", "latency_s"}


@dataclass(frozen=True)
class CommandSettings:
    argv: tuple[str, ...]
    name: str = "command"
    timeout: float = 120.0  # seconds per call
    concurrency: int = 1
    max_line_bytes: int = 1 << 20
    stderr_bytes: int = 16 * 1024
    cwd: str | None = None


class _Worker:
    """One running program: a reader thread per stream, so a read never blocks past the timeout."""

    def __init__(self, settings: CommandSettings, environ: Mapping[str, str]):
        self._settings = settings
        self.process = subprocess.Popen(  # noqa: S603 (an argument list from the workflow's config, no shell)
            list(settings.argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=settings.cwd, env=dict(environ), close_fds=True)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr = bytearray()
        self._lock = threading.Lock()
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        limit = self._settings.max_line_bytes
        while True:
            line = stream.readline(limit + 1)
            if not line:
                self.lines.put(None)
                return
            self.lines.put(line)
            if len(line) > limit and not line.endswith(b"\n"):
                self.lines.put(None)  # the rest of an overlong line is not read: the worker is replaced
                return

    def _drain(self, stream: IO[bytes]) -> None:
        cap = self._settings.stderr_bytes
        for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
            with self._lock:
                self._stderr += chunk
                del self._stderr[:-cap]

    def stderr(self) -> str:
        with self._lock:
            text = bytes(self._stderr).decode("utf-8", "replace").strip()
        return f"; its stderr ends: {text[-500:]!r}" if text else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:  # pragma: no cover
                    pass


class CommandProvider:
    def __init__(self, settings: CommandSettings, environ: Mapping[str, str] | None = None):
        self._settings = settings
        source = os.environ if environ is None else environ
        self._environ = {k: v for k, v in source.items() if not k.upper().startswith(FORBIDDEN_PREFIXES)}
        self._idle: queue.Queue[_Worker | None] = queue.Queue()
        for _ in range(settings.concurrency):
            self._idle.put(None)  # a slot: the program is started on its first call
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    @property
    def name(self) -> str:
        return self._settings.name

    @property
    def concurrency(self) -> int:
        return self._settings.concurrency

    def call(self, request: Request) -> Result:
        worker = self._idle.get()
        try:
            if worker is None or worker.process.poll() is not None:
                if worker is not None:
                    worker.stop()
                try:
                    worker = _Worker(self._settings, self._environ)
                except OSError as exc:
                    worker = None
                    return Failure(f"the command {self._settings.argv[0]!r} could not be started: {exc}")
                with self._lock:
                    self._all.append(worker)
            result = self._ask(worker, request)
            if isinstance(result, Failure):
                worker.stop()
                worker = None
            return result
        finally:
            self._idle.put(worker)

    def _ask(self, worker: _Worker, request: Request) -> Result:
        call_id = next(self._ids)
        line = json.dumps({"id": call_id, **_wire(request)}, ensure_ascii=False) + "\n"
        started = time.perf_counter()
        try:
            assert worker.process.stdin is not None
            worker.process.stdin.write(line.encode("utf-8"))
            worker.process.stdin.flush()
        except OSError as exc:
            return Failure(f"the command stopped reading its stdin ({exc}){worker.stderr()}")
        try:
            reply = worker.lines.get(timeout=self._settings.timeout)
        except queue.Empty:
            return Failure(f"the command gave no response line within {self._settings.timeout:g} s{worker.stderr()}")
        latency = time.perf_counter() - started
        if reply is None:  # its stdout closed: it is exiting; wait (briefly) for the code rather than race it
            try:
                code: int | None = worker.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            return Failure(f"the command exited (code {code}) without a response line{worker.stderr()}")
        if len(reply) > self._settings.max_line_bytes:
            return Failure(f"the command's response line is over {self._settings.max_line_bytes} bytes")
        result = parse_line(reply, latency)
        if isinstance(result, Response) and result.extra.get("id", call_id) != call_id:
            return Failure(f"the command answered request {result.extra.get('id')!r} when {call_id} was asked")
        if isinstance(result, Response) and "id" in result.extra:
            result = replace(result, extra=MappingProxyType({k: v for k, v in result.extra.items() if k != "id"}))
        return result

    def close(self) -> None:
        with self._lock:
            workers, self._all = self._all, []
        for worker in workers:
            worker.stop()


def _wire(request: Request) -> dict[str, Any]:
    return {"model": request.model, **request.input(), "parameters": request.parameters.canonical(),
            "sample": request.sample}


def parse_line(raw: bytes, latency: float) -> Result:
    """A response line as a Response, or a Failure saying what is wrong with it and where."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return Failure(f"the command's response line is not JSON ({exc}): {raw[:200]!r}")
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return Failure(f"the command's response line has no \"text\" string: {raw[:200]!r}")
    try:
        usage = value.get("usage") or {}
        logprobs = value.get("token_logprobs")
        pairs = _pairs(logprobs) if logprobs is not None else None
        reported = value.get("latency_s")
        return Response(
            text=value["text"], token_logprobs=pairs,
            usage=Usage(_int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))),
            latency_s=float(reported) if isinstance(reported, (int, float)) and reported >= 0 else latency,
            model_version=_text(value.get("model_version")), finish_reason=_text(value.get("finish_reason")),
            cost_usd=float(value["cost_usd"]) if isinstance(value.get("cost_usd"), (int, float)) else None,
            extra=MappingProxyType({k: v for k, v in value.items() if k not in _KNOWN}))
    except (TypeError, ValueError, AttributeError) as exc:
        return Failure(f"the command's response line has a malformed field ({exc}): {raw[:200]!r}")


def _pairs(value: Sequence[Any]) -> tuple[tuple[str, float], ...]:
    pairs = tuple((str(t), float(lp)) for t, lp in value)
    if any(not (math.isfinite(lp) and lp <= 0) for _, lp in pairs):
        raise ValueError("token_logprobs must be finite log-probabilities ≤ 0")
    return pairs


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
