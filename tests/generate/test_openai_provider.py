"""The OpenAI-compatible client against a loopback server that injects 429, 500, timeouts, malformed and truncated
bodies, redirects, and counts every request."""

from __future__ import annotations

import pytest

from gate.errors import ConfigError
from gate.generate.providers.access import authorise
from gate.generate.providers.retry import RetryPolicy, retry_after_seconds
from gate.generate.providers.types import Failure, Response
from tests.generate.fake_openai import MODEL_VERSION
from tests.generate.helpers import GITHUB_TOKEN, KEY, access, ask, provider


def test_an_answer_carries_text_usage_version_finish_and_logprobs(openai_server):
    result = provider(openai_server).call(ask("hello there", logprobs=True, top_logprobs=2))
    assert isinstance(result, Response)
    assert result.text == "echo: hello there"
    assert result.token_logprobs == (("echo:", -0.125), ("hello", -0.25), ("there", -0.375))
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (6, 3)
    assert result.model_version == MODEL_VERSION and result.finish_reason == "stop" and result.latency_s > 0
    sent = openai_server.calls[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["logprobs"] is True and sent["body"]["top_logprobs"] == 2
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"


def test_logprobs_and_json_mode_are_absent_unless_asked(openai_server):
    result = provider(openai_server).call(ask("hi"))
    assert isinstance(result, Response) and result.token_logprobs is None
    assert "logprobs" not in openai_server.calls[0]["body"] and "response_format" not in openai_server.calls[0]["body"]
    provider(openai_server).call(ask("hi, in JSON", response_format="json_object"))
    assert openai_server.calls[1]["body"]["response_format"] == {"type": "json_object"}


def test_429_honours_retry_after(openai_server):
    openai_server.script += [("429", 7), ("429", 99)]
    sleeps: list[float] = []
    result = provider(openai_server, sleeps=sleeps).call(ask("x"))
    assert isinstance(result, Response)
    assert sleeps == [7.0, 30.0]  # a server's wait is obeyed, capped at max_delay
    assert openai_server.count == 3


def test_500_backs_off_exponentially_with_jitter_and_gives_up_after_its_retries(openai_server):
    openai_server.script += [("500",)] * 10
    sleeps: list[float] = []
    result = provider(openai_server, retries=3, sleeps=sleeps).call(ask("x"))
    assert isinstance(result, Failure) and result.attempts == 4
    assert "500" in result.reason and "after 4 attempts" in result.reason
    assert sleeps == [1.0, 2.0, 4.0]  # rng() = 1: the jitter's upper bound
    assert openai_server.count == 4


def test_the_jitter_is_drawn_below_the_exponential_bound():
    policy = RetryPolicy(base_delay=1.0, max_delay=30.0)
    assert policy.delay(3, None, lambda: 0.5) == 2.0
    assert policy.delay(10, None, lambda: 1.0) == 30.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds("nan") is None


def test_a_timeout_is_retried(openai_server):
    openai_server.script += [("sleep", 1.0)]
    sleeps: list[float] = []
    result = provider(openai_server, timeout=0.3, sleeps=sleeps).call(ask("slow"))
    assert isinstance(result, Response) and sleeps == [1.0]
    assert openai_server.count == 2


def test_a_timeout_every_time_is_a_failure(openai_server):
    openai_server.script += [("sleep", 0.6)] * 2
    result = provider(openai_server, timeout=0.2, retries=1).call(ask("slow"))
    assert isinstance(result, Failure) and "timed out after 0.2 s" in result.reason


def test_a_malformed_body_is_a_located_failure_not_a_crash(openai_server):
    openai_server.script += [("malformed",)]
    result = provider(openai_server).call(ask("x"))
    assert isinstance(result, Failure) and "not JSON" in result.reason and result.attempts == 1


def test_a_truncated_body_is_retried_as_a_connection_failure(openai_server):
    openai_server.script += [("truncated",)]
    sleeps: list[float] = []
    result = provider(openai_server, sleeps=sleeps).call(ask("x"))
    assert isinstance(result, Response) and len(sleeps) == 1


def test_logprobs_that_are_not_log_probabilities_are_a_located_failure(openai_server):
    openai_server.script += [("bad-logprobs",)]
    result = provider(openai_server).call(ask("x", logprobs=True))
    assert isinstance(result, Failure) and "choices[0].logprobs.content[0]" in result.reason


def test_a_redirect_is_never_followed(openai_server):
    openai_server.script += [("redirect",)]
    result = provider(openai_server).call(ask("x"))
    assert isinstance(result, Failure) and "307 redirect" in result.reason and "not followed" in result.reason
    assert openai_server.count == 1


def test_an_endpoint_the_workflow_did_not_allow_is_refused_before_any_request(openai_server):
    other = "https://api.example.com/v1"
    with pytest.raises(ConfigError) as caught:
        authorise(openai_server.base_url, access(other))
    assert "an endpoint the workflow allows: https://api.example.com/v1" in str(caught.value)
    for bad in ("http://example.com/v1", "https://user@api.example.com/v1", "https://api.example.com/v1/../x"):
        with pytest.raises(ConfigError):
            authorise(bad, access(other))
    assert openai_server.count == 0


def test_gate_yml_cannot_choose_the_key_variable_and_no_github_token_is_ever_sent(openai_server):
    allowed = access(openai_server.base_url, OPENAI_API_KEY=GITHUB_TOKEN)
    with pytest.raises(ConfigError, match="GitHub/Actions token"):
        authorise(openai_server.base_url, allowed)
    with pytest.raises(ConfigError, match="may not choose which secret"):
        authorise(openai_server.base_url, access(openai_server.base_url), key_env="GITHUB_TOKEN")
    with pytest.raises(ConfigError, match="unset or empty"):
        authorise(openai_server.base_url, access(openai_server.base_url, OTHER="x"))
    keyless = authorise(openai_server.base_url, access(openai_server.base_url), keyless=True)
    assert keyless.api_key is None and "sk-" not in repr(keyless)
    assert openai_server.count == 0
    provider(openai_server).call(ask("x"))
    for call in openai_server.calls:
        assert GITHUB_TOKEN not in str(call["headers"]) + str(call["body"])


def test_the_key_is_scrubbed_from_failure_reasons(openai_server):
    openai_server.server.clear()
    openai_server.server.expect_request("/v1/chat/completions").respond_with_data(f"bad key {KEY}", status=401)
    result = provider(openai_server).call(ask("x"))
    assert isinstance(result, Failure) and KEY not in result.reason and "***" in result.reason
