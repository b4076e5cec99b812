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
