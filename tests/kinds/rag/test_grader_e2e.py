"""`llm-gate run` with the LLM judge on, against a local OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import re

import pytest
from werkzeug import Response

from tests.test_cli import run_cli

ROWS = [{"id": f"q{i}", "query": f"How long is retention {i}?", "actual_answer": "Ninety days.",
         "expected_answer": "Logs are kept for 90 days.", "retrieved_ids": ["a"], "ground_truth_ids": ["a"],
         "retrieved_contexts": ["Logs are kept for 90 days."], "latency": 0.5} for i in range(3)]


@pytest.fixture
def judged(tmp_path, httpserver, monkeypatch):
    seen = []

    def handler(request):
        body = request.get_json()
        seen.append(body["messages"][0]["content"])
        score = "0.9" if "relevance" in body["messages"][0]["content"].split("\n")[0] else "0.6"
        return Response(json.dumps({"choices": [{"message": {"content": score}}], "usage": {"total_tokens": 50}}),
                        content_type="application/json")

    httpserver.expect_request(re.compile(r"/v1/chat/completions")).respond_with_handler(handler)
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (tmp_path / "gate.yml").write_text(f"""\
version: 1
runtime: {{cache_dir: {tmp_path / 'cache'}}}
suites:
  qa:
    kind: rag
    records: c.jsonl
    judge:
      enabled: true
      base_url: {httpserver.url_for('/v1')}
      model: judge-model
      api_key_env: TEST_JUDGE_KEY
      criteria: [relevance, accuracy]
    checks:
      judge_relevance: {{min: 0.8}}
""")
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))  # the workflow allows this endpoint
    monkeypatch.setenv("LLM_GATE_JUDGE_API_KEY_ENV", "TEST_JUDGE_KEY")  # and names the key (gate.yml only repeats it)
    monkeypatch.chdir(tmp_path)
    return tmp_path, seen


def test_judge_scores_reach_the_report_and_the_cache_saves_a_second_run(judged, monkeypatch, capsys):
    tmp_path, seen = judged
    monkeypatch.setenv("TEST_JUDGE_KEY", "sk-test-123")
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == 0
    assert len(seen) == 6  # 3 queries x 2 criteria
    report = json.loads((tmp_path / "gate-report" / "report.json").read_text())
    [group] = [g for g in report["suites"][0]["groups"] if g["level"] == "group"]
    assert group["metrics"]["judge_relevance"] == pytest.approx(0.9)
    assert group["metrics"]["judge_accuracy"] == pytest.approx(0.6)
    assert any("LLM judge judge-model: 6 requests, 0 from cache, 300 tokens" in n
               for n in report["suites"][0]["notes"])
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == 0
    assert len(seen) == 6  # all from the cache
    assert "sk-test-123" not in capsys.readouterr().out


def test_a_missing_api_key_is_a_config_error_naming_the_variable(judged, monkeypatch, capsys):
    monkeypatch.delenv("TEST_JUDGE_KEY", raising=False)
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == 2
    assert "TEST_JUDGE_KEY" in capsys.readouterr().err


def _mixed_run(tmp_path, httpserver, monkeypatch, replies: dict[int, str | int]):
    """20 queries judged for relevance: 0.8 unless `replies` gives query i a text or an HTTP status."""

    def handler(request):
        prompt = request.get_json()["messages"][0]["content"]
        index = int(re.search(r"Query: How long is retention (\d+)\?", prompt).group(1))
        reply = replies.get(index, "0.8")
        if isinstance(reply, int):
            return Response(json.dumps({"error": {"message": "upstream exploded"}}), status=reply,
                            content_type="application/json")
        return Response(json.dumps({"choices": [{"message": {"content": reply}}], "usage": {"total_tokens": 5}}),
                        content_type="application/json")

    httpserver.expect_request(re.compile(r"/v1/chat/completions")).respond_with_handler(handler)
    rows = [{**ROWS[0], "id": f"q{i}", "query": f"How long is retention {i}?"} for i in range(20)]
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "gate.yml").write_text(f"""\
version: 1
suites:
  qa:
    kind: rag
    records: c.jsonl
    judge: {{enabled: true, base_url: {httpserver.url_for('/v1')}, model: judge-model, api_key_env: TEST_JUDGE_KEY,
             criteria: [relevance], max_retries: 0, cache: false}}
""")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TEST_JUDGE_KEY", "sk-test-123")
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))  # the workflow allows this endpoint
    monkeypatch.setenv("LLM_GATE_JUDGE_API_KEY_ENV", "TEST_JUDGE_KEY")  # and names the key (gate.yml only repeats it)
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") in (0, 1)  # 1: overall_score < 0.75
    [suite] = json.loads((tmp_path / "gate-report" / "report.json").read_text())["suites"]
    [group] = [g for g in suite["groups"] if g["level"] == "group"]
    items = {u["key"]["id"]: u["reason"] for u in suite["unmeasured"]
             if u["metric"] == "judge_relevance" and "id" in u["key"]}
    return group["metrics"]["judge_relevance"], items, suite


@pytest.mark.parametrize("failure", ["great answer", 500], ids=["unparseable", "http-500"])
def test_one_unscored_query_of_20_is_listed_and_the_mean_is_over_the_rest(tmp_path, httpserver, monkeypatch,
                                                                          failure):
    score, items, suite = _mixed_run(tmp_path, httpserver, monkeypatch, {7: failure})
    assert score == pytest.approx(0.8)  # 19 scored queries at 0.8; 1 of 20 = 5% may go unscored
    expected = "unparseable answer: 'great answer'" if failure == "great answer" else "request failed: 500"
    assert list(items) == ["q7"] and items["q7"].startswith(expected)
    assert any("judge_relevance is the mean over 19 of 20 queries; 1 the judge could not score" in n
               for n in suite["notes"])


def test_two_unscored_queries_of_20_leave_the_metric_unmeasured_whatever_the_failure(tmp_path, httpserver,
                                                                                     monkeypatch):
    score, items, suite = _mixed_run(tmp_path, httpserver, monkeypatch, {3: "great answer", 11: 500})
    assert score is None  # 2 of 20 = 10% unscored: more than 5%
    assert items["q3"].startswith("unparseable answer: 'great answer'")
    assert items["q11"].startswith("request failed: 500")
    assert len(items) == 2
    [gap] = [u for u in suite["unmeasured"] if u["metric"] == "judge_relevance" and "id" not in u["key"]]
    assert gap["reason"].startswith("the LLM judge did not judge 2 of 20 queries (")
