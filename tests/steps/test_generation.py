"""The generation step end to end, through the CLI, on a kind defined outside the package (tests/kinds/wordcount/,
whose recipe asks one prompt per dataset line): `generate --cassettes record-missing` calls a loopback
OpenAI-compatible server and records; `run` then replays with no live call (the server counts them), reports what
it replayed, fails loudly on a miss with the command that records it, refuses a fork anything but replay, leaves
the trusted job's candidates alone, and sends nothing to an endpoint the workflow did not allow."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from tests.generate import fake_openai
from tests.kinds.test_plugin import wordcount  # noqa: F401  (the fixture registering the kind)
from tests.support.cli import run_main

KEY = "sk-generation-key-0123456789"
PROMPTS = ["Say hello.", "Name a colour.", "Count to three."]


@pytest.fixture
def server():
    fake = fake_openai.start()
    try:
        yield fake
    finally:
        fake.server.clear()
        fake.server.stop()


def gate_yml(base_url: str, *, samples: int = 1, retries: int = 2, models: str = "[gpt-a, gpt-b]") -> str:
    return f"""version: 1
providers:
  chat: {{type: openai, base_url: "{base_url}", max_retries: {retries}, timeout: 5}}
suites:
  lengths:
    kind: wordcount
    records: answers.jsonl
    max_words: 50
    generate:
      provider: chat
      models: {models}
      dataset: prompts.jsonl
      prompt: "Please answer briefly. {{prompt}}"
      samples: {samples}
      output: answers.jsonl
"""


def setup(root, base_url, **options):
    (root / "gate.yml").write_text(gate_yml(base_url, **options))
    (root / "prompts.jsonl").write_text("".join(json.dumps({"prompt": p}) + "\n" for p in PROMPTS))


@dataclass
class Done:
    exit_code: int
    output: str


@pytest.fixture
def invoke(monkeypatch, capsys):
    """`llm-gate ARGS --config <root>/gate.yml` through the real entry point (errors become exit codes), with the
    workflow's allow-list and key, and optionally a pull request's event."""
    def call(root, *args, event=None, allowed=None, base_url=""):
        env = {"LLM_GATE_JUDGE_ENDPOINTS": allowed if allowed is not None else base_url, "OPENAI_API_KEY": KEY,
               "HF_HUB_OFFLINE": "1"}
        for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "INPUT_CASSETTES"):
            monkeypatch.delenv(name, raising=False)
        if event is not None:
            (root / "event.json").write_text(json.dumps(event))
            env.update(GITHUB_EVENT_PATH=str(root / "event.json"), GITHUB_EVENT_NAME="pull_request")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        code, out, err = run_main(monkeypatch, capsys, *args, "--config", str(root / "gate.yml"))
        return Done(code, out + err)
    return call


def test_record_then_replay_with_no_live_call(wordcount, server, monkeypatch, invoke):  # noqa: F811
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url)
    done = invoke(root, "generate", "--cassettes", "record-missing", base_url=server.base_url)
    assert done.exit_code == 0, done.output
    assert server.count == len(PROMPTS) * 2
    answers = [json.loads(line) for line in (root / "answers.jsonl").read_text().splitlines()]
    assert sorted((a["model"], a["response"]) for a in answers) == sorted(
        (m, f"echo: Please answer briefly. {p}") for m in ("gpt-a", "gpt-b") for p in PROMPTS)
    cassettes = sorted(p.relative_to(root).as_posix() for p in (root / "cassettes").rglob("*.jsonl"))
    assert cassettes == ["cassettes/lengths/chat__gpt-a.jsonl", "cassettes/lengths/chat__gpt-b.jsonl"]

    (root / "answers.jsonl").unlink()  # the run writes them again, from the cassettes alone
    ran = invoke(root, "run", "--no-publish", "--output-dir", str(root / "report"), base_url=server.base_url)
    assert ran.exit_code == 0, ran.output
    assert server.count == len(PROMPTS) * 2  # not one more call
    report = json.loads((root / "report" / "report.json").read_text())
    models = report["generation"]["suites"][0]["models"]
    assert [(m["model"], m["calls"], m["replayed"], m["recorded"]) for m in models] == [
        ("gpt-a", 3, 3, 0), ("gpt-b", 3, 3, 0)]
    assert models[0]["model_versions"] == [fake_openai.MODEL_VERSION]
    shown = (root / "report" / "report.md").read_text()
    assert "generation: 6 calls, 6 replayed from the cassettes, 0 recorded" in shown
    assert report["suites"][0]["groups"][0]["n"] == 3
    assert report["suites"][0]["fingerprint"]["generated_by"] == [fake_openai.MODEL_VERSION]


def test_a_miss_in_replay_fails_loudly_with_the_command_that_records_it(wordcount, server, monkeypatch, invoke):  # noqa: F811
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url)
    assert invoke(root, "generate", "--cassettes", "record-missing", base_url=server.base_url).exit_code == 0
    with (root / "prompts.jsonl").open("a") as file:
        file.write(json.dumps({"prompt": "A new prompt."}) + "\n")
    calls = server.count
    ran = invoke(root, "run", "--no-publish", "--output-dir", str(root / "report"), base_url=server.base_url)
    assert ran.exit_code == 2
    assert "llm-gate generate --config" in ran.output and "--suite lengths --cassettes record-missing" in ran.output
    assert "A new prompt." in ran.output
    assert server.count == calls  # replay never calls out


def test_a_fork_replays_only_and_the_trusted_job_generates_nothing(wordcount, server, monkeypatch, invoke):  # noqa: F811
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url)
    fork = {"pull_request": {"number": 7, "head": {"repo": {"full_name": "mallory/repo", "fork": True}, "sha": "a"},
                             "base": {"repo": {"full_name": "owner/repo"}}}}
    refused = invoke(root, "generate", "--cassettes", "record-missing", event=fork, base_url=server.base_url)
    assert refused.exit_code == 2 and "a pull request from a fork replays only" in refused.output
    assert server.count == 0
    assert invoke(root, "generate", "--cassettes", "record-missing", base_url=server.base_url).exit_code == 0
    calls = server.count
    replayed = invoke(root, "generate", event=fork, base_url=server.base_url)
    assert replayed.exit_code == 0 and "replay only (a pull request from mallory/repo)" in replayed.output
    assert server.count == calls

    before = (root / "answers.jsonl").read_bytes()
    data = root / "artifact"  # the trusted job: the candidates come from the pull request's run, as they are
    data.mkdir()
    (data / "answers.jsonl").write_text(json.dumps({"model": "gpt-a", "response": "one two"}) + "\n")
    ran = invoke(root, "run", "--no-publish", "--candidates-dir", str(data), "--output-dir", str(root / "report"),
                 "--cassettes", "record-missing", base_url=server.base_url)
    assert ran.exit_code == 0, ran.output
    assert server.count == calls
    report = json.loads((root / "report" / "report.json").read_text())
    assert report["generation"]["suites"] == [] and "not run here (the trusted job)" in report["generation"]["notes"][0]
    assert (root / "answers.jsonl").read_bytes() == before  # nothing generated, nothing written


def test_nothing_is_sent_where_the_workflow_does_not_allow(wordcount, server, monkeypatch, invoke):  # noqa: F811
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url)
    refused = invoke(root, "generate", "--cassettes", "record-missing", allowed="https://api.openai.com/v1")
    assert refused.exit_code == 2
    assert "providers.chat.base_url" in refused.output and "an endpoint the workflow allows" in refused.output
    assert server.count == 0
    assert not (root / "answers.jsonl").exists()


def test_dry_run_prints_the_plan_and_calls_nothing(wordcount, server, monkeypatch, invoke):  # noqa: F811
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url, samples=2)
    planned = invoke(root, "generate", "--cassettes", "record-missing", "--dry-run", base_url=server.base_url)
    assert planned.exit_code == 0, planned.output
    assert "lengths: 6 calls to chat / gpt-a: 0 from the cassette, 6 live" in planned.output
    assert server.count == 0 and not (root / "answers.jsonl").exists() and not (root / "cassettes").exists()


def test_a_call_that_fails_after_its_retries_leaves_its_item_unmeasured(wordcount, server, monkeypatch, invoke):  # noqa: F811
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url, retries=0, models="[gpt-a]")
    server.script.append(("500",))
    done = invoke(root, "generate", "--cassettes", "record-missing", base_url=server.base_url)
    assert done.exit_code == 0, done.output
    assert "1 unanswered" in done.output
    assert len((root / "answers.jsonl").read_text().splitlines()) == 2
    cassette = (root / "cassettes" / "lengths" / "chat__gpt-a.jsonl").read_text().splitlines()
    assert len(cassette) == 1 + 2  # the header and the two answers: a failure is never recorded
    server.script.clear()
    resumed = invoke(root, "generate", "--cassettes", "record-missing", base_url=server.base_url)
    assert resumed.exit_code == 0 and "3 calls, 2 replayed, 1 recorded" in resumed.output


def test_a_new_model_version_makes_the_snapshot_not_comparable(wordcount, server, monkeypatch, invoke):  # noqa: F811
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url, models="[gpt-a]")
    assert invoke(root, "generate", "--cassettes", "record-missing", base_url=server.base_url).exit_code == 0
    blessed = invoke(root, "baseline", "bless", base_url=server.base_url)
    assert blessed.exit_code == 0, blessed.output
    same = invoke(root, "run", "--no-publish", "--output-dir", str(root / "same"), base_url=server.base_url)
    assert same.exit_code == 0, same.output
    assert json.loads((root / "same" / "report.json").read_text())["suites"][0]["baseline"]["comparable"] is True
    cassette = root / "cassettes" / "lengths" / "chat__gpt-a.jsonl"
    cassette.write_text(cassette.read_text().replace(fake_openai.MODEL_VERSION, "fake-model-2025-01-01"))
    ran = invoke(root, "run", "--no-publish", "--output-dir", str(root / "new"), base_url=server.base_url)
    assert ran.exit_code == 0, ran.output
    baseline = json.loads((root / "new" / "report.json").read_text())["suites"][0]["baseline"]
    assert baseline["comparable"] is False
    assert baseline["differences"] == [f"generated_by: ['{fake_openai.MODEL_VERSION}'] → ['fake-model-2025-01-01']"]


def test_with_a_base_checkout_the_pull_request_supplies_the_data(wordcount, server, monkeypatch, invoke):  # noqa: F811
    """The single-job recipe: gate.yml (providers, models, template) from the base branch; the dataset, the cassettes
    and the generated records are the pull request's data, read and written in its tree."""
    pr, base = wordcount / "pr", wordcount / "base"
    for tree in (pr, base):
        tree.mkdir()
        setup(tree, server.base_url, models="[gpt-a]")
    (pr / "prompts.jsonl").write_text(json.dumps({"prompt": "The pull request's prompt."}) + "\n")
    monkeypatch.chdir(pr)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pr))
    ran = invoke(base, "run", "--no-publish", "--base-checkout", str(base), "--output-dir", str(pr / "report"),
                 "--cassettes", "record-missing", base_url=server.base_url)
    assert ran.exit_code == 0, ran.output
    assert [c["body"]["messages"][-1]["content"] for c in server.calls] == [
        "Please answer briefly. The pull request's prompt."]
    assert (pr / "cassettes" / "lengths" / "chat__gpt-a.jsonl").exists() and not (base / "cassettes").exists()
    assert json.loads((pr / "answers.jsonl").read_text())["response"].endswith("The pull request's prompt.")
    assert not (base / "answers.jsonl").exists()


def test_a_shard_generates_its_records_before_planning(wordcount, server, monkeypatch, invoke):  # noqa: F811
    """`run --shard i/N` plans the whole run's model work from the records, so it replays them first too."""
    root = wordcount
    monkeypatch.chdir(root)
    setup(root, server.base_url, models="[gpt-a]")
    assert invoke(root, "generate", "--cassettes", "record-missing", base_url=server.base_url).exit_code == 0
    (root / "answers.jsonl").unlink()
    calls = server.count
    sharded = invoke(root, "run", "--shard", "1/2", "--output-dir", str(root / "report"), base_url=server.base_url)
    assert sharded.exit_code == 0, sharded.output
    assert (root / "answers.jsonl").exists() and server.count == calls
