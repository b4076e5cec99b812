"""The LLM judge endpoint failing mid-run — 500s, malformed JSON, connections reset, stalls — after some good
answers: the run finishes, the items it could not judge are unmeasured with the reason, a dead endpoint stops
being asked, and the suite's judge metrics are unmeasured (a warning, never a pass, never 0).

The endpoint is a raw socket server speaking just enough HTTP/1.1, so it can also reset and stall.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from gate.config import GraderConfig
from gate.kinds.rag.grader import GraderItem
from gate.kinds.rag.grader_client import GIVE_UP_AFTER, run_grader
from tests.test_cli import run_cli

KEY = "sk-fault-0123456789abcdef"
OK = {"choices": [{"message": {"role": "assistant", "content": "0.9"}}], "usage": {"total_tokens": 10}}


class FlakyLLM:
    """Answers the first `good` requests with a score, then the next `bad` (None: all later ones) as `mode` says:
    "500", "garbage" (a 200 whose body is not JSON), "reset" (RST, no reply) or "stall" (no reply for 3 s)."""

    def __init__(self, good: int, mode: str, bad: int | None = None):
        self.good, self.mode, self.bad, self.requests = good, mode, bad, 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"
        threading.Thread(target=self._serve, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += connection.recv(65536)
            with self._lock:
                self.requests += 1
                healthy = self.requests <= self.good or (self.bad is not None and
                                                         self.requests > self.good + self.bad)
            if healthy:
                return self._send(connection, 200, json.dumps(OK))
            if self.mode == "500":
                return self._send(connection, 500, json.dumps({"error": {"message": "upstream exploded"}}))
            if self.mode == "garbage":
                return self._send(connection, 200, '{"choices": [{"message": ')
            if self.mode == "stall":
                time.sleep(3)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")

    @staticmethod
    def _send(connection: socket.socket, status: int, body: str) -> None:
        payload = body.encode()
        connection.sendall(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: "
                           f"{len(payload)}\r\nConnection: close\r\n\r\n".encode() + payload)


@pytest.fixture
def flaky(request):
    servers = []

    def make(good: int, mode: str, bad: int | None = None) -> FlakyLLM:
        servers.append(FlakyLLM(good, mode, bad))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


class Waits(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def items(n: int) -> list[GraderItem]:
    return [GraderItem(f"q{i}", "relevance", f"question {i}?", "context", "answer", "expected") for i in range(n)]


FAILURES = {"500": "request failed: 500 upstream exploded (after 3 attempts)",
            "garbage": "request failed: 200 with a body that is not JSON",
            "reset": "request failed: connection error",
            "stall": "request failed: timed out after 0.5 s (after 3 attempts)"}


@pytest.mark.parametrize("mode", list(FAILURES))
def test_an_endpoint_failing_after_some_answers_leaves_the_rest_unmeasured_and_stops_asking(flaky, mode):
    llm = flaky(good=2, mode=mode)
    config = GraderConfig(enabled=True, base_url=llm.base_url, model="j", max_retries=2, max_concurrency=1,
                         timeout=0.5, cache=False)
    waits = Waits()
    started = time.monotonic()
    run = run_grader(config, KEY, items(12), cache_dir=None, sleep=waits)
    assert time.monotonic() - started < 15  # 3 failing items at most, each its retries, then nothing is sent
    scores = run.scores
    assert [s.score for s in scores[:2]] == [0.9, 0.9] and not any(s.failed for s in scores[:2])
    assert all(s.score is None and s.failed for s in scores[2:])  # unmeasured: never 0, never a pass
    assert all(s.reason.startswith(FAILURES[mode]) for s in scores[2:2 + GIVE_UP_AFTER])
    assert all(s.reason.startswith(f"not sent: the endpoint failed {GIVE_UP_AFTER} items in a row (last: "
                                   f"{FAILURES[mode]}") for s in scores[2 + GIVE_UP_AFTER:])
    attempts = 1 if mode == "garbage" else 3  # a 200 that is not JSON is not retried: it was answered
    assert llm.requests == 2 + GIVE_UP_AFTER * attempts and run.requests == llm.requests
    assert all(KEY not in s.reason for s in scores[2:])


def test_an_endpoint_that_recovers_is_not_given_up_on(flaky):
    llm = flaky(good=1, mode="500", bad=GIVE_UP_AFTER - 1)  # a blip: fewer failed items than give up
    config = GraderConfig(enabled=True, base_url=llm.base_url, model="j", max_retries=0, max_concurrency=1,
                         cache=False)
    run = run_grader(config, KEY, items(6), cache_dir=None, sleep=Waits())
    assert [s.score for s in run.scores] == [0.9] + [None] * (GIVE_UP_AFTER - 1) + [0.9] * (6 - GIVE_UP_AFTER)
    assert llm.requests == 6


# ---------------------------------------------------------------- through `llm-gate run` (the RAG suite)

ROWS = [{"id": f"q{i}", "query": f"How long are logs kept {i}?", "actual_answer": "Ninety days.",
         "expected_answer": "Logs are kept for 90 days.", "retrieved_ids": ["a"], "ground_truth_ids": ["a"],
         "retrieved_contexts": ["Logs are kept for 90 days."], "latency": 0.5} for i in range(6)]


def test_llm_gate_run_reports_the_judge_metric_unmeasured_when_the_endpoint_dies_mid_run(flaky, tmp_path,
                                                                                        monkeypatch, capsys):
    llm = flaky(good=3, mode="500")
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (tmp_path / "gate.yml").write_text(f"""\
version: 1
runtime: {{cache_dir: {tmp_path / 'cache'}}}
suites:
  qa:
    kind: rag
    records: c.jsonl
    judge: {{enabled: true, base_url: {llm.base_url}, model: judge-model, api_key_env: FAULT_JUDGE_KEY,
             criteria: [relevance], max_retries: 0, max_concurrency: 1}}
    checks:
      judge_relevance: {{min: 0.5}}
""")
    monkeypatch.setenv("FAULT_JUDGE_KEY", KEY)
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", llm.base_url)  # the workflow allows this endpoint
    monkeypatch.setenv("LLM_GATE_JUDGE_API_KEY_ENV", "FAULT_JUDGE_KEY")  # and names the key
    monkeypatch.chdir(tmp_path)
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == 0  # warn: unmeasured
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q", "--fail-on", "warn") == 1
    report = json.loads((tmp_path / "gate-report" / "report.json").read_text())
    [suite] = report["suites"]
    [check] = [c for c in suite["checks"] if c["metric"] == "judge_relevance"]
    assert check["verdict"] == "unmeasured" and check["value"] is None  # the 3 good answers (0.9) do not pass it
    [group] = [g for g in suite["groups"] if g["level"] == "group"]
    assert group["metrics"]["judge_relevance"] is None
    [gap] = [u for u in suite["unmeasured"] if u["metric"] == "judge_relevance" and "id" not in u["key"]]
    assert gap["reason"].startswith("the LLM judge did not judge 3 of 6 queries (request failed: 500 upstream "
                                    "exploded)")
    unjudged = {u["key"]["id"]: u["reason"] for u in suite["unmeasured"] if "id" in u["key"]}
    assert sorted(unjudged) == ["q3", "q4", "q5"]  # every query it could not judge, with its reason
    assert any("the endpoint failed: request failed: 500 upstream exploded" in n for n in suite["notes"])
    assert suite["verdict"] == "warn" and report["verdict"] == "warn"
    assert KEY not in capsys.readouterr().out
