"""Issue 17, item 1: a pull request's gate.yml must never send the GitHub token through the LLM judge.

gate.yml may choose the judge's `base_url` and `api_key_env`; the workflow decides which endpoints are
allowed (`judge_endpoints` / LLM_GATE_JUDGE_ENDPOINTS) and GitHub/Actions variables are never a key.
A real loopback HTTP server (pytest-httpserver) records every request that reaches it; each test scans
all of them, headers and bodies, for the secret: "secrets sent anywhere: 0".
"""

from __future__ import annotations

import json

import pytest
from werkzeug import Response

from gate.config import GraderAccess, GraderConfig
from gate.config.endpoints import parse_endpoint
from gate.config.settings import Settings
from gate.errors import ConfigError
from gate.kinds.rag.grader import GraderItem
from gate.kinds.rag.grader_client import run_grader
from tests.test_cli import run_cli

TOKEN = "ghs_GitHubTokenThatMustNeverLeave0123456789"
JUDGE_KEY = "sk-judge-own-key-0123456789"
ROWS = [{"id": f"q{i}", "query": f"How long is retention {i}?", "actual_answer": "Ninety days.",
         "expected_answer": "Logs are kept for 90 days.", "retrieved_ids": ["a"], "ground_truth_ids": ["a"],
         "retrieved_contexts": ["Logs are kept for 90 days."], "latency": 0.5} for i in range(2)]
KEY_LINE = 10  # the line of `api_key_env:` in the gate.yml below
URL_LINE = 8  # the line of `base_url:`


def sent(server, secret: str) -> int:
    """How many recorded requests carry `secret` anywhere: request line, any header, or the body."""
    count = 0
    for request, _ in server.log:
        text = request.url + "\n" + "\n".join(f"{k}: {v}" for k, v in request.headers.items())
        text += "\n" + request.get_data(as_text=True)
        count += secret in text
    return count


def reply(request):
    return Response(json.dumps({"choices": [{"message": {"content": "0.9"}}], "usage": {"total_tokens": 5}}),
                    content_type="application/json")


@pytest.fixture
def gate(tmp_path, httpserver, monkeypatch):
    """Writes gate.yml with the judge at `base_url` (default: the recording server) reading `api_key_env`."""
    httpserver.expect_request("/v1/chat/completions").respond_with_handler(reply)
    for name in ("INPUT_JUDGE_ENDPOINTS", "INPUT_JUDGE_API_KEY_ENV", "LLM_GATE_JUDGE_ENDPOINTS",
                 "LLM_GATE_JUDGE_API_KEY_ENV", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)  # as on every Actions runner
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    monkeypatch.chdir(tmp_path)

    def write(api_key_env: str | None = "OPENAI_API_KEY", base_url: str | None = None) -> None:
        key_line = f"api_key_env: {api_key_env}" if api_key_env else "model: judge-model"
        (tmp_path / "gate.yml").write_text(f"""\
version: 1
runtime: {{cache_dir: {tmp_path / 'cache'}}}
suites:
  qa:
    kind: rag
    records: c.jsonl
    judge:
      base_url: {base_url or httpserver.url_for('/v1')}
      enabled: true
      {key_line}
      criteria: [relevance]
      cache: false
    checks:
      judge_relevance: {{min: 0.5}}
""")
    return write


def run(monkeypatch) -> int:
    return run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q")


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "GH_TOKEN"])
def test_a_github_or_actions_variable_as_the_key_is_refused_at_its_line(gate, httpserver, monkeypatch, capsys,
                                                                        name):
    monkeypatch.setenv(name, TOKEN)
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))  # even to an allowed endpoint
    gate(api_key_env=name)
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"gate.yml:{KEY_LINE}" in err and "suites.qa.judge.api_key_env" in err and name in err
    assert len(httpserver.log) == 0 and sent(httpserver, TOKEN) == 0


def test_the_workflow_cannot_name_a_github_variable_either(gate, httpserver, monkeypatch, capsys):
    monkeypatch.setenv("INPUT_JUDGE_API_KEY_ENV", "GITHUB_TOKEN")
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))
    gate()
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert "judge_api_key_env" in err and "GITHUB_TOKEN is a GitHub" in err  # a name, so not masked as a secret
    assert len(httpserver.log) == 0


def test_an_endpoint_the_workflow_did_not_allow_is_refused_before_any_request(gate, httpserver, monkeypatch,
                                                                               capsys):
    monkeypatch.setenv("OPENAI_API_KEY", JUDGE_KEY)
    gate()  # the recording server is not on the default list (https://api.openai.com/v1 only)
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"gate.yml:{URL_LINE}" in err and "suites.qa.judge.base_url" in err
    assert httpserver.url_for("/v1") in err and "judge_endpoints" in err and "LLM_GATE_JUDGE_ENDPOINTS" in err
    assert len(httpserver.log) == 0 and sent(httpserver, JUDGE_KEY) == 0


def test_plain_http_to_a_host_off_this_machine_is_refused_even_when_listed(gate, httpserver, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", JUDGE_KEY)
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", "http://judge.example.com/v1")
    gate(base_url="https://api.openai.com/v1")
    assert run(monkeypatch) == 2
    assert "LLM_GATE_JUDGE_ENDPOINTS" in capsys.readouterr().err
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", "https://judge.example.com/v1")
    gate(base_url="http://judge.example.com/v1")  # the config cannot downgrade a listed https endpoint
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"gate.yml:{URL_LINE}" in err and "plain http" in err
    assert len(httpserver.log) == 0


def test_an_allowed_loopback_endpoint_with_the_judges_own_key_works(gate, httpserver, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", JUDGE_KEY)
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", f"https://api.openai.com/v1, {httpserver.url_for('/v1/')}")
    gate()
    assert run(monkeypatch) == 0
    assert len(httpserver.log) == 2  # 2 queries x 1 criterion
    assert all(r.headers["Authorization"] == f"Bearer {JUDGE_KEY}" for r, _ in httpserver.log)
    assert sent(httpserver, TOKEN) == 0
    report = json.loads(open("gate-report/report.json").read())
    [group] = [g for g in report["suites"][0]["groups"] if g["level"] == "group"]
    assert group["metrics"]["judge_relevance"] == pytest.approx(0.9)


def test_the_workflow_may_name_the_key_variable(gate, httpserver, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-this-one")
    monkeypatch.setenv("JUDGE_KEY", JUDGE_KEY)
    monkeypatch.setenv("INPUT_JUDGE_API_KEY_ENV", "JUDGE_KEY")
    monkeypatch.setenv("INPUT_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))
    gate(api_key_env=None)  # gate.yml names no variable
    assert run(monkeypatch) == 0
    gate(api_key_env="JUDGE_KEY")  # or repeats the workflow's choice
    assert run(monkeypatch) == 0
    assert [r.headers["Authorization"] for r, _ in httpserver.log] == [f"Bearer {JUDGE_KEY}"] * 4


AWS_SECRET = "aws-secret-access-key-that-must-stay-0123456789"


def test_gate_yml_cannot_choose_which_secret_goes_to_an_allowed_endpoint(gate, httpserver, monkeypatch, capsys):
    """Issue 31, item 6: the workflow allows the endpoint; gate.yml (from the pull request) names another secret."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", JUDGE_KEY)
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))
    gate(api_key_env="AWS_SECRET_ACCESS_KEY")
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"gate.yml:{KEY_LINE}" in err and "suites.qa.judge.api_key_env" in err
    assert "judge_api_key_env" in err and "OPENAI_API_KEY" in err and AWS_SECRET not in err
    assert len(httpserver.log) == 0 and sent(httpserver, AWS_SECRET) == 0
    monkeypatch.setenv("INPUT_JUDGE_API_KEY_ENV", "JUDGE_KEY")  # a workflow naming another variable: still refused
    monkeypatch.setenv("JUDGE_KEY", JUDGE_KEY)
    assert run(monkeypatch) == 2
    assert "JUDGE_KEY" in capsys.readouterr().err
    assert len(httpserver.log) == 0 and sent(httpserver, AWS_SECRET) == 0
    monkeypatch.setenv("INPUT_JUDGE_API_KEY_ENV", "AWS_SECRET_ACCESS_KEY")  # the workflow's own choice: it is sent
    assert run(monkeypatch) == 0
    assert sent(httpserver, AWS_SECRET) == 2


def test_without_the_workflow_naming_one_the_key_is_openai_api_key(gate, httpserver, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", JUDGE_KEY)
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))
    gate(api_key_env=None)
    assert run(monkeypatch) == 0
    assert [r.headers["Authorization"] for r, _ in httpserver.log] == [f"Bearer {JUDGE_KEY}"] * 2
    assert GraderAccess().key_env_for(GraderConfig(api_key_env="OTHER")) == "OPENAI_API_KEY"


@pytest.mark.parametrize("token_variable", ["GITHUB_TOKEN", "INPUT_GITHUB_TOKEN"])
def test_a_key_whose_value_is_the_github_token_is_refused(gate, httpserver, monkeypatch, capsys, token_variable):
    monkeypatch.setenv(token_variable, TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", TOKEN)  # `OPENAI_API_KEY: ${{ github.token }}`
    monkeypatch.setenv("LLM_GATE_JUDGE_ENDPOINTS", httpserver.url_for("/v1"))
    gate()
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"gate.yml:{KEY_LINE}" in err and "GitHub token" in err and TOKEN not in err
    assert len(httpserver.log) == 0 and sent(httpserver, TOKEN) == 0


def test_a_redirect_is_not_followed_so_the_key_is_sent_once(httpserver):
    elsewhere = httpserver.url_for("/collect/chat/completions")  # same origin: requests would keep the header
    httpserver.expect_request("/v1/chat/completions").respond_with_response(
        Response("", status=302, headers={"Location": elsewhere}))
    httpserver.expect_request("/collect/chat/completions").respond_with_handler(reply)
    config = GraderConfig(enabled=True, base_url=httpserver.url_for("/v1"), model="j", max_retries=3, cache=False)
    run = run_grader(config, JUDGE_KEY, [GraderItem("q1", "relevance", "q", "c", "a", "e")], cache_dir=None,
                    sleep=lambda seconds: None)
    [score] = run.scores
    assert score.score is None and score.failed and "302 redirect" in score.reason and "not followed" in score.reason
    assert [r.path for r, _ in httpserver.log] == ["/v1/chat/completions"]
    assert sent(httpserver, JUDGE_KEY) == 1


# ---------------------------------------------------------------- the comparison itself


ALLOWED = GraderAccess(endpoints=(parse_endpoint("https://api.openai.com/v1"),))


@pytest.mark.parametrize("url", [
    "https://api.openai.com/v1", "https://API.OpenAI.com./v1/", "https://api.openai.com:443/v1",
    "https://api.openai.com/v1/deep",
])
def test_spellings_of_an_allowed_endpoint_are_allowed(url):
    assert [p for p in ALLOWED.problems(GraderConfig(base_url=url)) if p[0] == "base_url"] == []


@pytest.mark.parametrize("url", [
    "https://api.openai.com.evil.example/v1", "https://api.openai.com/v1evil", "https://api.openai.com:8443/v1",
    "https://evil.example/v1", "https://api.openai.com/", "https://api.openai.com",
])
def test_lookalikes_of_an_allowed_endpoint_are_not(url):
    assert [p[0] for p in ALLOWED.problems(GraderConfig(base_url=url))][:1] == ["base_url"]


@pytest.mark.parametrize("url", [
    "https://api.openai.com@evil.example/v1", "https://evil.example#@api.openai.com/v1",
    "https://api.openai.com\\@evil.example/v1", "https://api.openai.com/v1/../../evil", "https://api.openai.com/%2e%2e",
    "http://api.openai.com/v1", "http://10.0.0.1/v1", "http://127.0.0.1.evil.example/v1", "ftp://api.openai.com/v1",
    "https://api.open\tai.com/v1", "https://api.openai.com/v1?x=1", "https://xn--pple-43d.com:99999/v1",
])
def test_ambiguous_or_unencrypted_urls_are_refused_when_gate_yml_is_loaded(url):
    with pytest.raises(ValueError):  # pydantic's ValidationError: a located ConfigError when loaded from gate.yml
        GraderConfig(base_url=url)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "http://[::1]:8080/v1", "http://localhost/v1",
                                 "http://127.9.9.9/v1"])
def test_plain_http_is_fine_to_loopback(url):
    assert parse_endpoint(url).scheme == "http"


def test_settings_hold_no_github_variable_among_the_judge_keys():
    settings = Settings.from_env({"GITHUB_TOKEN": TOKEN, "INPUT_GITHUB_TOKEN": TOKEN, "OPENAI_API_KEY": JUDGE_KEY,
                                  "ACTIONS_RUNTIME_TOKEN": TOKEN, "LLM_GATE_JUDGE_ENDPOINTS": "http://localhost:1/v1"})
    assert dict(settings.grader.keys) == {"OPENAI_API_KEY": JUDGE_KEY, "LLM_GATE_JUDGE_ENDPOINTS": "http://localhost:1/v1"}
    assert [e.url for e in settings.grader.endpoints] == ["http://localhost:1/v1"]
    assert TOKEN not in repr(settings)
    assert [e.url for e in Settings.from_env({}).grader.endpoints] == ["https://api.openai.com/v1"]
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"INPUT_JUDGE_ENDPOINTS": "https://ok.example/v1\nhttp://evil.example/v1"})
    assert refused.value.exit_code == 2 and "judge_endpoints" in str(refused.value)
