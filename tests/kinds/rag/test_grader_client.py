"""The LLM judge: real `requests` over HTTP against an OpenAI-compatible fake on loopback (pytest-httpserver)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from gate.config import GraderConfig
from gate.kinds.rag.grader import DEFAULT_TEMPLATE, GraderItem, parse_score, render_prompt
from gate.kinds.rag.grader_client import run_grader

KEY = "sk-test-secret-0123456789"


@pytest.fixture(scope="module")
def make_httpserver():
    """This module's `httpserver` is threaded (the plugin's session server is not): concurrency is under test."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


class FakeLLM:
    """An OpenAI-compatible /v1/chat/completions: records requests and the most seen in flight at once,
    answers `reply(prompt)` with `tokens` of usage, or the scripted responses first."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.calls: list[tuple[Request, dict]] = []
        self.script: list[Response] = []
        self.reply: Callable[[str], str] = lambda prompt: "0.8"
        self.tokens: int | None = 100
        self.delay = 0.0
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()

    def fail_next(self, status: int, message: str = "boom", headers: dict[str, str] | None = None) -> None:
        body = json.dumps({"error": {"message": message, "type": "server_error"}})
        self.script.append(Response(body, status=status, headers=headers or {}, content_type="application/json"))

    def prompts(self) -> list[str]:
        return [body["messages"][0]["content"] for _, body in self.calls]

    def handle(self, request: Request) -> Response:
        body = request.get_json()
        with self._lock:
            self.calls.append((request, body))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            scripted = self.script.pop(0) if self.script else None
        try:
            time.sleep(self.delay)
            if scripted is not None:
                return scripted
            content = self.reply(body["messages"][0]["content"])
            reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
            if self.tokens is not None:
                reply["usage"] = {"prompt_tokens": self.tokens - 1, "completion_tokens": 1,
                                  "total_tokens": self.tokens}
            return Response(json.dumps(reply), content_type="application/json")
        finally:
            with self._lock:
                self.in_flight -= 1


@pytest.fixture
def llm(httpserver):
    fake = FakeLLM(httpserver.url_for("/v1"))
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(fake.handle)
    yield fake
    httpserver.check_handler_errors()


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def config(llm: FakeLLM | None = None, **overrides) -> GraderConfig:
    settings = {"enabled": True, "base_url": llm.base_url if llm else "http://127.0.0.1:9/v1", "model": "judge-1",
                "max_retries": 3, "max_concurrency": 4, **overrides}
    return GraderConfig(**settings)


def items(n: int, criterion: str = "accuracy") -> list[GraderItem]:
    return [GraderItem(f"q{i}", criterion, f"question {i}?", f"context {i}a\n\ncontext {i}b", f"answer {i}",
                      f"expected {i}") for i in range(n)]


def judge(llm: FakeLLM | None, batch, cache_dir=None, sleep=None, **overrides):
    sleep = Sleeps() if sleep is None else sleep  # an empty Sleeps is falsy: no `or`
    return run_grader(config(llm, **overrides), KEY, batch, cache_dir=cache_dir, sleep=sleep)


# ---------------------------------------------------------------- the request and the prompt


def test_the_request_is_an_openai_chat_completion_with_the_seed_prompt(llm):
    item = GraderItem("q1", "relevance", "What is RAG?", "RAG retrieves.\n\nThen it generates.",
                     "Retrieval-augmented generation.", "Retrieval augmented generation")
    run = judge(llm, [item])
    [(request, body)] = llm.calls
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert body["model"] == "judge-1" and body["temperature"] == 0
    assert body["messages"] == [{"role": "user", "content": (
        "Evaluate the following answer based on relevance.\n\n"
        "Query: What is RAG?\n"
        "Context: RAG retrieves.\n\nThen it generates.\n"
        "Answer: Retrieval-augmented generation.\n"
        "Expected: Retrieval augmented generation\n\n"
        "Rate the relevance on a scale of 0.0 to 1.0.\n"
        "Consider:\n"
        "- For relevance: Does the answer address the question?\n"
        "- For accuracy: Is the information correct?\n"
        "- For completeness: Are all aspects covered?\n"
        "- For coherence: Is the answer well-structured?\n\n"
        "Return only the numeric score.")}]
    assert run.scores[0].score == 0.8 and run.requests == 1 and run.tokens == 100
    assert run.cost_usd == pytest.approx(100 * 0.002 / 1000) and not run.stopped_by_budget


def test_a_custom_template_keeps_other_braces_and_never_expands_placeholders_inside_values(llm):
    item = GraderItem("q", "accuracy", "q?", "", "I say {expected}", "")
    template = 'Judge {criterion}: {answer} / {expected}. Reply as {"score": x}.'
    assert render_prompt(template, item) == 'Judge accuracy: I say {expected} / . Reply as {"score": x}.'
    judge(llm, [item], prompt_template=template)
    assert llm.prompts() == [render_prompt(template, item)]
    assert render_prompt(DEFAULT_TEMPLATE, item).startswith("Evaluate the following answer based on accuracy.")


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(("text", "score"), [
    ("0.75", 0.75), ("Score: 1", 1.0), ("0", 0.0), (".5", 0.5), ("1.0/1.0", 1.0), ("0.9\n\nIt is accurate.", 0.9),
    ("1e-1", 0.1), ("8/10", None), ("-0.2", None), ("1.01", None), ("excellent", None), ("", None),
])
def test_parse_score_takes_the_first_number_when_it_lies_in_the_unit_interval(text, score):
    assert parse_score(text) == score


def test_replies_are_scored_and_unparseable_ones_are_unmeasured_with_the_reply_quoted(llm):
    replies = {"question 0?": "0.75", "question 1?": "8/10", "question 2?": "excellent!",
               "question 3?": "x" * 200, "question 4?": f"I cannot; your key {KEY} is fine though"}
    llm.reply = lambda prompt: next(r for q, r in replies.items() if f"Query: {q}\n" in prompt)
    run = judge(llm, items(5))
    assert [s.key for s in run.scores] == ["q0", "q1", "q2", "q3", "q4"]
    assert [s.score for s in run.scores] == [0.75, None, None, None, None]
    assert run.scores[0].reason is None and run.scores[0].tokens == 100 and not run.scores[0].cached
    assert run.scores[1].reason == "unparseable answer: '8/10'"
    assert run.scores[2].reason == "unparseable answer: 'excellent!'"
    assert run.scores[3].reason == "unparseable answer: '" + "x" * 80 + "…'"
    assert KEY not in run.scores[4].reason and "***" in run.scores[4].reason
    assert run.tokens == 500  # an unparseable reply was still paid for


def test_a_reply_without_usage_counts_no_tokens(llm):
    llm.tokens = None
    run = judge(llm, items(2))
    assert [s.score for s in run.scores] == [0.8, 0.8] and run.tokens == 0 and run.cost_usd == 0


# ---------------------------------------------------------------- the cache


def test_a_second_run_is_served_from_the_cache_and_sends_nothing(llm, tmp_path):
    first = judge(llm, items(4), cache_dir=tmp_path)
    assert first.requests == 4 and first.cache_hits == 0 and len(list(tmp_path.glob("*.json"))) == 4
    second = judge(llm, items(4), cache_dir=tmp_path)
    assert len(llm.calls) == 4 and second.requests == 0 and second.cache_hits == 4
    assert second.tokens == 0 and second.cost_usd == 0
    assert [s.score for s in second.scores] == [s.score for s in first.scores]
    assert all(s.cached and s.tokens == 0 for s in second.scores)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".json")) == []  # no temp files left
    entry = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert entry["reply"] == "0.8" and entry["tokens"] == 100


@pytest.mark.parametrize("corrupt", [b"{not json", b"\xff\xfe\x00", b"[]", b'{"reply": "0.1"}',
                                     b'{"key": "other", "reply": "0.1", "tokens": 1}'])
def test_a_corrupt_cache_file_is_ignored_and_rewritten(llm, tmp_path, corrupt):
    judge(llm, items(3), cache_dir=tmp_path)
    victim = sorted(tmp_path.glob("*.json"))[0]
    victim.write_bytes(corrupt)
    run = judge(llm, items(3), cache_dir=tmp_path)
    assert run.requests == 1 and run.cache_hits == 2 and len(llm.calls) == 4
    assert all(s.score == 0.8 for s in run.scores)
    assert json.loads(victim.read_text()) == {"key": victim.stem, "reply": "0.8", "tokens": 100}


def test_without_the_cache_every_run_asks_again(llm, tmp_path):
    judge(llm, items(3), cache_dir=tmp_path)
    run = judge(llm, items(3), cache_dir=tmp_path, cache=False)
    assert run.requests == 3 and run.cache_hits == 0 and len(llm.calls) == 6
    assert not any(s.cached for s in run.scores)
    other_model = judge(llm, items(3), cache_dir=tmp_path, model="judge-2")  # the model is part of the key
    assert other_model.requests == 3 and len(list(tmp_path.glob("*.json"))) == 6


def test_an_unwritable_cache_costs_requests_never_the_run(llm, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    run = judge(llm, items(2), cache_dir=blocker)
    assert [s.score for s in run.scores] == [0.8, 0.8] and run.requests == 2 and run.cache_hits == 0


def test_identical_prompts_in_one_run_are_sent_once(llm, tmp_path):
    run = judge(llm, items(1) * 6, cache_dir=tmp_path, max_concurrency=3)
    assert len(llm.calls) == 1 and run.cache_hits == 5 and all(s.score == 0.8 for s in run.scores)


# ---------------------------------------------------------------- retries


def test_a_503_is_retried_honouring_retry_after(llm):
    llm.fail_next(503, "overloaded", headers={"Retry-After": "7"})
    sleeps = Sleeps()
    run = judge(llm, items(1), sleep=sleeps)
    assert run.scores[0].score == 0.8 and run.scores[0].reason is None
    assert sleeps == [7.0] and len(llm.calls) == 2 and run.requests == 2


def test_429_and_5xx_back_off_exponentially_up_to_30_seconds(llm):
    llm.fail_next(429, "slow down")
    llm.fail_next(502)
    run = judge(llm, items(1), sleep=(sleeps := Sleeps()))
    assert sleeps == [1.0, 2.0] and run.scores[0].score == 0.8
    for _ in range(8):
        llm.fail_next(500)
    run = judge(llm, items(1), sleep=(sleeps := Sleeps()), max_retries=7)
    assert sleeps == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    llm.script.clear()
    llm.fail_next(429, headers={"Retry-After": "3600"})
    judge(llm, items(1), sleep=(sleeps := Sleeps()))
    assert sleeps == [30.0]


def test_a_400_is_not_retried(llm):
    llm.fail_next(400, "Invalid 'model': judge-1")
    run = judge(llm, items(1), sleep=(sleeps := Sleeps()))
    assert sleeps == [] and len(llm.calls) == 1
    assert run.scores[0].score is None and run.scores[0].reason == "request failed: 400 Invalid 'model': judge-1"


def test_a_persistent_500_is_unmeasured_with_the_status_and_never_the_key(llm):
    for _ in range(4):
        llm.fail_next(500, f"internal error for Bearer {KEY}")
    run = judge(llm, items(1), sleep=(sleeps := Sleeps()))
    [score] = run.scores
    assert score.score is None and sleeps == [1.0, 2.0, 4.0] and len(llm.calls) == 4
    assert score.reason == "request failed: 500 internal error for Bearer *** (after 4 attempts)"
    assert KEY not in repr(run)


def test_a_timeout_is_retried_then_reported(llm):
    llm.delay = 0.3
    run = judge(llm, items(1), sleep=(sleeps := Sleeps()), timeout=0.05, max_retries=1)
    assert run.scores[0].score is None and run.scores[0].reason.startswith("request failed: timed out after 0.05 s")
    assert sleeps == [1.0] and run.requests == 2


def test_a_server_that_is_down_leaves_every_item_unmeasured(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = run_grader(config(base_url=f"http://127.0.0.1:{port}/v1", max_retries=2), KEY, items(3),
                    cache_dir=tmp_path, sleep=(sleeps := Sleeps()))
    assert [s.score for s in run.scores] == [None, None, None]
    assert all(s.reason.startswith("request failed: connection error") for s in run.scores)
    assert run.requests == 9 and sorted(sleeps) == [1.0] * 3 + [2.0] * 3 and list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- budget and concurrency


@pytest.mark.parametrize("concurrency", [1, 3])
@pytest.mark.parametrize("budget", [{"budget_tokens": 250}, {"budget_usd": 0.0005}])
def test_the_budget_stops_spending(llm, budget, concurrency):
    llm.delay = 0.01  # 100 tokens a reply: 3 replies reach either budget (300 tokens, $0.0006)
    run = judge(llm, items(10), max_concurrency=concurrency, **budget)
    sent = len(llm.calls)
    assert 3 <= sent <= 3 + concurrency - 1 and run.requests == sent and run.tokens == 100 * sent
    assert run.stopped_by_budget
    measured = [s for s in run.scores if s.score is not None]
    assert len(measured) == sent
    assert all(s.reason == "budget exhausted" and s.tokens == 0 for s in run.scores if s.score is None)
    if concurrency == 1:
        assert [s.score is not None for s in run.scores] == [True] * 3 + [False] * 7


def test_cached_answers_are_served_after_the_budget_is_spent(llm, tmp_path):
    judge(llm, items(5), cache_dir=tmp_path)
    run = judge(llm, items(10), cache_dir=tmp_path, budget_tokens=150, max_concurrency=1)
    assert run.cache_hits == 5 and run.requests == 2 and run.tokens == 200 and run.stopped_by_budget
    assert [s.score is not None for s in run.scores] == [True] * 7 + [False] * 3


def test_no_more_than_max_concurrency_requests_are_in_flight(llm):
    llm.delay = 0.05
    run = judge(llm, items(8), max_concurrency=2)
    assert llm.max_in_flight == 2 and run.requests == 8 and all(s.score == 0.8 for s in run.scores)


def test_no_items_no_requests(llm):
    run = judge(llm, [])
    assert run.scores == () and run.requests == 0 and llm.calls == []
