"""Cassettes: every model call recorded in committed, reviewable files, replayed in CI without a network call.

One file per (suite, provider, model): `<dir>/<suite>/<provider>__<model>.jsonl` (`cassette_path`). Line 1 is a
header naming the format, provider and model; then one entry per line, sorted by key:

    {"key": "…32 hex…", "sample": 0, "input": {"messages": [...]}, "parameters": {...}, "response": {...}}

- The key is the sha256 (first 128 bits) of the canonical JSON of provider, model, parameters, input and sample
  index (`call_key`): a changed prompt is one line removed and one added; nothing else in the file moves.
- Text is stored as data: JSON with non-ASCII kept readable, but control, format (bidi) and line-separator
  characters escaped (`\\uXXXX`), so a diff shows what is there and no line can be hidden or reordered on screen.
  It is model output: escaped only where it is rendered (the report), never trusted.
- An entry is at most `ENTRY_BYTES`; a response that would exceed it is a failure of that call, never recorded.
- Canonical: write → read → write gives the same bytes (entries re-serialised in a fixed field order).
- `model_versions()` (what the servers reported) goes into the suite's fingerprint: a changed model version is
  "not comparable", as a changed scorer is.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gate.errors import InputError, Problem
from gate.generate.providers.types import Message, Parameters, Request, Response, Usage
from gate.io.cassette_files import read_cassette_lines, write_cassette

FORMAT, VERSION = "llm-gate-cassette", 1
ENTRY_BYTES = 1 << 20  # one entry (one line), its newline excluded
# Escaped even though JSON allows them raw: C0/C1 controls, soft hyphen, bidi and zero-width format characters,
# line/paragraph separators, BOM, interlinear annotations, and lone surrogates (which UTF-8 cannot hold).
_ESCAPE = re.compile("[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
                     "\ufff9-\ufffb\ud800-\udfff]")
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


class Mode(str, Enum):
    REPLAY = "replay"  # CI's default: a miss is an error naming the command that records it; never a live call
    RECORD_MISSING = "record-missing"  # replay what is there, call and record the rest
    REFRESH = "refresh"  # call everything again; entries no longer asked for are dropped


def dumps(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    return _ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def call_key(provider: str, request: Request) -> str:
    canonical = json.dumps({"provider": provider, "model": request.model, "parameters": request.parameters.canonical(),
                            "input": request.input(), "sample": request.sample},
                           sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()[:32]


def cassette_path(directory: Path, suite: str, provider: str, model: str) -> Path:
    """A file name any filesystem takes; a name that had to change gets a short digest, so two never collide."""
    def slug(text: str) -> str:
        clean = _SLUG.sub("-", text).strip(".-") or "x"
        return clean if clean == text else f"{clean[:60]}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return directory / slug(suite) / f"{slug(provider)}__{slug(model)}.jsonl"


@dataclass(frozen=True)
class Entry:
    key: str
    request: Request
    response: Response


@dataclass(frozen=True)
class CassetteFingerprint:
    """What a suite's generated records came from: part of the suite's fingerprint."""

    provider: str
    model: str
    model_versions: tuple[str, ...]  # sorted; what the server reported for the calls replayed
    entries: int


class Cassette:
    """The entries of one cassette file, in memory; `save` writes it back canonically."""

    def __init__(self, path: Path, provider: str, model: str, entries: Mapping[str, Entry] | None = None):
        self.path, self.provider, self.model = path, provider, model
        self._entries: dict[str, Entry] = dict(entries or {})

    @classmethod
    def load(cls, path: Path, provider: str, model: str) -> Cassette:
        lines = read_cassette_lines(path, ENTRY_BYTES)
        if not lines:
            return cls(path, provider, model)
        problems: list[Problem] = []
        entries: dict[str, Entry] = {}
        header = _object(lines[0][1])
        if header != _header(provider, model):
            problems.append(Problem(file=str(path), line=lines[0][0], expected=dumps(_header(provider, model)),
                                    found=lines[0][1][:200], fix="this file belongs to another provider or model: "
                                    "move it, or record this suite again"))
        for number, line in lines[1:]:
            try:
                entry = _entry(_object(line), provider, model)
            except (ValueError, TypeError, KeyError) as exc:
                problems.append(Problem(file=str(path), line=number, expected="a cassette entry", found=str(exc)[:200],
                                        fix="restore it from git, or record it again"))
                continue
            if entry.key in entries:
                problems.append(Problem(file=str(path), line=number, expected="one entry per key",
                                        found=f"key {entry.key} again", fix="remove the duplicate"))
            entries[entry.key] = entry
        if problems:
            raise InputError("a cassette cannot be replayed", problems)
        return cls(path, provider, model, entries)

    def __len__(self) -> int:
        return len(self._entries)

    def keys(self) -> frozenset[str]:
        return frozenset(self._entries)

    def get(self, request: Request) -> Response | None:
        entry = self._entries.get(call_key(self.provider, request))
        return entry.response if entry is not None else None

    def entry_line(self, request: Request, response: Response) -> str:
        key = call_key(self.provider, request)
        return dumps(_entry_value(Entry(key, request, response)))

    def put(self, request: Request, response: Response) -> None:
        key = call_key(self.provider, request)
        self._entries[key] = Entry(key, request, response)

    def keep_only(self, keys: Iterable[str]) -> None:
        wanted = set(keys)
        self._entries = {k: e for k, e in self._entries.items() if k in wanted}

    def model_versions(self) -> tuple[str, ...]:
        return tuple(sorted({e.response.model_version for e in self._entries.values() if e.response.model_version}))

    def fingerprint(self) -> CassetteFingerprint:
        return CassetteFingerprint(self.provider, self.model, self.model_versions(), len(self._entries))

    def render(self) -> str:
        lines = [dumps(_header(self.provider, self.model))]
        lines += [dumps(_entry_value(self._entries[k])) for k in sorted(self._entries)]
        return "\n".join(lines) + "\n"

    def save(self) -> None:
        write_cassette(self.path, self.render())


def _header(provider: str, model: str) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "provider": provider, "model": model}


def _object(line: str) -> dict[str, Any]:
    value = json.loads(line)
    if not isinstance(value, dict):
        raise ValueError(f"a JSON {type(value).__name__}, not an object")
    return value


def _entry_value(entry: Entry) -> dict[str, Any]:
    r = entry.response
    response: dict[str, Any] = {"text": r.text, "finish_reason": r.finish_reason, "model_version": r.model_version,
                                "usage": {"prompt_tokens": r.usage.prompt_tokens,
                                          "completion_tokens": r.usage.completion_tokens},
                                "latency_s": r.latency_s, "cost_usd": r.cost_usd}
    if r.token_logprobs is not None:
        response["token_logprobs"] = [[t, lp] for t, lp in r.token_logprobs]
    if r.extra:
        response["extra"] = dict(r.extra)
    return {"key": entry.key, "sample": entry.request.sample, "input": entry.request.input(),
            "parameters": entry.request.parameters.canonical(), "response": response}


def _entry(value: dict[str, Any], provider: str, model: str) -> Entry:
    source = value["input"]
    messages = tuple(Message(str(m["role"]), _str(m["content"])) for m in source.get("messages", ()))
    p = value["parameters"]
    parameters = Parameters(temperature=float(p["temperature"]), max_tokens=int(p["max_tokens"]),
                            top_p=_opt(p.get("top_p"), float), seed=_opt(p.get("seed"), int),
                            stop=tuple(_str(s) for s in p.get("stop", ())), logprobs=bool(p.get("logprobs", False)),
                            top_logprobs=_opt(p.get("top_logprobs"), int),
                            response_format=_opt(p.get("response_format"), _str))
    prompt = source.get("prompt")
    request = Request(model, messages, _str(prompt) if prompt is not None else None, parameters, int(value["sample"]))
    key = call_key(provider, request)
    if value["key"] != key:
        raise ValueError(f"key {value['key']!r} is not the key of this entry's request ({key}): was it edited by hand?")
    r = value["response"]
    logprobs = r.get("token_logprobs")
    usage = r.get("usage") or {}
    response = Response(
        text=_str(r["text"]),
        token_logprobs=tuple((_str(t), float(lp)) for t, lp in logprobs) if logprobs is not None else None,
        usage=Usage(_opt(usage.get("prompt_tokens"), int), _opt(usage.get("completion_tokens"), int)),
        latency_s=float(r.get("latency_s") or 0.0), model_version=_opt(r.get("model_version"), _str),
        finish_reason=_opt(r.get("finish_reason"), _str), cost_usd=_opt(r.get("cost_usd"), float),
        extra=MappingProxyType(dict(r.get("extra") or {})))
    return Entry(key, request, response)


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, found {type(value).__name__}")
    return value


def _opt(value: Any, kind: Any) -> Any:
    return None if value is None else kind(value)
