"""A loopback OpenAI-compatible chat-completions server (pytest-httpserver, threaded) that counts every request.

It answers "echo: <last message>" with usage, the model version `fake-model-2024-06-01` and, when asked, token
log-probabilities; `script` makes the next requests fail, in order: ("429", retry_after), ("500",), ("sleep",
seconds), ("malformed",), ("truncated",), ("redirect",), ("bad-logprobs",). `delay` slows every normal answer
(the benchmark's 200 ms server).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

MODEL_VERSION = "fake-model-2024-06-01"


@dataclass
class FakeOpenAI:
    server: HTTPServer
    script: list[tuple[Any, ...]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    delay: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return self.server.url_for("/v1").rstrip("/")

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.calls)

    def handle(self, request: Request) -> Response:
        body = json.loads(request.get_data() or b"{}")
        with self.lock:
            self.calls.append({"path": request.path, "body": body, "headers": dict(request.headers)})
            action = self.script.pop(0) if self.script else ("ok",)
        kind = action[0]
        if kind == "429":
            return Response('{"error": {"message": "rate limited"}}', 429, {"Retry-After": str(action[1])})
        if kind == "500":
            return Response('{"error": {"message": "boom"}}', 500)
        if kind == "redirect":
            return Response("", 307, {"Location": "http://127.0.0.1:1/steal"})
        if kind == "sleep":
            time.sleep(action[1])
        if kind == "malformed":
            return Response('{"choices": [{"message": {"content": "cut', 200, content_type="application/json")
        if kind == "truncated":
            return Response(_truncated(), 200, {"Content-Length": "4096"}, content_type="application/json")
        if self.delay:
            time.sleep(self.delay)
        return Response(json.dumps(answer(body, bad_logprobs=kind == "bad-logprobs")), 200,
                        content_type="application/json")


def _truncated():
    yield b'{"choices": [{"message": {"content": "partial'
    raise ConnectionError("the server dropped the connection")  # werkzeug closes it mid-body


def answer(body: dict[str, Any], bad_logprobs: bool = False) -> dict[str, Any]:
    last = body["messages"][-1]["content"]
    text = f"echo: {last}"
    tokens = text.split(" ")
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    if body.get("logprobs"):
        choice["logprobs"] = {"content": [{"token": t, "logprob": 0.5 if bad_logprobs else -0.125 * (i + 1)}
                                          for i, t in enumerate(tokens)]}
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": MODEL_VERSION, "choices": [choice],
            "usage": {"prompt_tokens": len(last.split()) + 4, "completion_tokens": len(tokens),
                      "total_tokens": len(last.split()) + 4 + len(tokens)}}


def start(delay: float = 0.0) -> FakeOpenAI:
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    fake = FakeOpenAI(server, delay=delay)
    server.expect_request("/v1/chat/completions", method="POST").respond_with_handler(fake.handle)
    return fake
