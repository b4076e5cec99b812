"""Model text cannot inject into the PR comment, the check run, the job summary or the dashboard.

The bundled example is run end to end (real embedded model, real PyGithub against a local API, as in
Actions) after hostile text has been planted in every place a model or an input file reaches the report:
feedback, responses, answers, queries, model and system names, ids, traits, an exercise title, suite
descriptions and the gate's name. Then every surface is checked for what the text tried to do.
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from pytest_httpserver import HTTPServer

from gate.config import CommentMode
from gate.publish.bundle import FOOTER_MARKER, PublishBundle, marker, posted_scope
from gate.publish.github import GitHubPublisher, RetryPolicy
from tests.conftest import EXAMPLES
from tests.support import browser as browser_support
from tests.support.cli import outside_actions
from tests.support.fake_github import REPO, FakeGitHub

HOSTILE = ("@octo-org/core-team #123 GH-7 </details></td></tr></table><script>alert(1)</script>"
           "<!-- llm-quality-gate:footer --> | injected | cells |\n\n```\n![x](https://evil.example/p.png) "
           "[click](javascript:alert(1)) `tick` **bold** $\\color{green}{\\text{PASSED}}$ www.evil.example "
           "<img src=x onerror=alert(2)> <a href=//evil.example>a</a> \u202eevil")
HOSTILE_NAME = "llama @octo-org/core-team #9 <b>x</b> | y `z` [l](//e.example)"  # a model / system name
GATE_NAME = "quality <script>alert(1)</script> @octo -->"
HEAD = "feedc0de" * 5
# What must not survive anywhere in the Markdown surfaces (each would act: ping, link, render, run).
FORBIDDEN = ["@octo", "GH-7", "<script", "<img", "<a ", "<b>x", "](https://evil", "](javascript",
             "](//e", "![", "www.evil", "https://evil", "$\\color", "\u202e", "```", "<!-- llm-quality-gate:footer"
             " --> |"]


def _plant(examples: Path) -> None:
    """Hostile text in every input field that reaches the report."""
    def rewrite_jsonl(path: Path, change) -> None:
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        path.write_text("".join(json.dumps(change(i, r)) + "\n" for i, r in enumerate(lines)))

    def drift(i, r):
        r["model"] = HOSTILE_NAME
        if i == 0:
            r["feedback"][0]["title"] = HOSTILE
            r["feedback"][0]["description"] = HOSTILE
        return r

    rewrite_jsonl(examples / "outputs/feedback/llama-3.1-8b-instruct.jsonl", drift)
    exercise = examples / "baselines/feedback/sampled_exercise-14676.json"
    data = json.loads(exercise.read_text())
    data["title"] = HOSTILE
    exercise.write_text(json.dumps(data))

    def stereotype(i, r):
        r["model"] = HOSTILE_NAME
        if i == 0:
            r["trait"], r["bias_response"], r["control_response"] = "emotional " + HOSTILE, HOSTILE, HOSTILE
        return r

    rewrite_jsonl(examples / "stereotype/mistral_7b.jsonl", stereotype)

    def stability(i, r):
        r["model"] = HOSTILE_NAME
        if r["question_id"] == "obqa-001":
            r["question_id"] = "obqa-001 " + HOSTILE_NAME
            r["response"] = HOSTILE
            r["variation"] = "typo " + HOSTILE_NAME
        return r

    rewrite_jsonl(examples / "stability/tinyllama-1.1b-chat.jsonl", stability)
    rewrite_jsonl(examples / "heuristic/responses.jsonl",
                  lambda i, r: {**r, "model": HOSTILE_NAME if "llama" in r["model"] else r["model"],
                                "response": HOSTILE if i < 3 else r["response"]})
    rewrite_jsonl(examples / "rag/enhanced.jsonl",
                  lambda i, r: {**r, "system": HOSTILE_NAME, **({"query": HOSTILE, "actual_answer": HOSTILE}
                                                                if i < 3 else {})})
    config = yaml.safe_load((examples / "gate.yml").read_text())
    config["name"] = GATE_NAME
    for suite in config["suites"].values():
        suite["description"] = HOSTILE
    (examples / "gate.yml").write_text(yaml.safe_dump(config, allow_unicode=True))


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    """The example with hostile inputs, run as the Docker action runs it, posting to a local GitHub."""
    from tests.test_cli import run_cli

    work = tmp_path_factory.mktemp("hostile")
    workspace = work / "workspace"
    shutil.copytree(EXAMPLES, workspace / "examples", ignore=shutil.ignore_patterns("gate-report", ".gate-cache"))
    _plant(workspace / "examples")
    event = work / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": HEAD}}}))
    server = HTTPServer(host="127.0.0.1")
    server.start()
    fake = FakeGitHub(base_url=server.url_for("").rstrip("/"))
    server.expect_request(re.compile(".*")).respond_with_handler(fake.handle)
    env = {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": fake.base_url, "GITHUB_REPOSITORY": REPO,
           "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "5eed" * 10,
           "GITHUB_RUN_ID": "99", "GITHUB_SERVER_URL": "https://github.example", "GITHUB_WORKSPACE": str(workspace),
           "GITHUB_STEP_SUMMARY": str(work / "summary.md"), "GITHUB_OUTPUT": str(work / "output.txt"),
           "INPUT_CONFIG": "examples/gate.yml", "INPUT_GITHUB_TOKEN": "ghs_injection_test_token"}
    try:
        with pytest.MonkeyPatch.context() as mp:
            from gate.publish.github import client as gate_github

            mp.setattr(gate_github, "REQUEST_SPACING", (0, 0))
            for key, value in env.items():
                mp.setenv(key, value)
            mp.delenv("GITHUB_TOKEN", raising=False)
            mp.chdir(workspace)
            code = run_cli(mp, "run", "-q")
    finally:
        server.clear()
        server.stop()
    assert code == 1, "the example still fails on the drifting model"
    return workspace / "gate-report", fake, work


def _markdown_surfaces(hostile_run) -> dict[str, str]:
    report, fake, work = hostile_run
    [comment] = fake.comments[7]
    [run] = fake.check_runs
    return {"report.md": (report / "report.md").read_text(), "comment": comment["body"],
            "check run summary": run["output"]["summary"], "job summary": (work / "summary.md").read_text()}


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_the_hostile_text_reached_the_report(hostile_run):
    text = _markdown_surfaces(hostile_run)["report.md"]
    assert "&#64;octo-org/core-team &#35;123" in text  # shown, as text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


@pytest.mark.parametrize("surface", ["report.md", "comment", "check run summary", "job summary"])
def test_markdown_surfaces_are_inert(hostile_run, surface):
    text = _markdown_surfaces(hostile_run)[surface]
    survived = {d: text[max(0, text.index(d) - 80):text.index(d) + 40] for d in FORBIDDEN if d in text}
    assert not survived, survived
    assert not re.search(r"(?<!\w)@[A-Za-z0-9]", text), "no @mention of anyone (precision@1 is no mention)"
    assert not re.search(r"(?<!&)#\d", text), "no #123 reference to an issue"
    assert text.count("<details") == text.count("</details>"), "no <details> closed early or left open"
    # Every table keeps its shape: each row has as many cell separators as its header.
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        if header is None:
            header = _unescaped_pipes(line)
        assert _unescaped_pipes(line) == header, (surface, line[:200])


def test_the_sticky_marker_cannot_be_faked(hostile_run):
    body = _markdown_surfaces(hostile_run)["comment"]
    assert body.startswith(marker(GATE_NAME) + "\n")
    assert "<script" not in marker(GATE_NAME) and "-->" not in marker(GATE_NAME)[5:-4]
    # ours: the marker, the scope line (a run's scope and commit, never model text), the footer and the run line
    # (the workflow run's id, from the run URL: what ranks concurrent jobs' comments)
    assert body.count("<!--") == 4 and body.count(FOOTER_MARKER) == 1
    assert body.rstrip("\n").endswith("<!-- llm-quality-gate:run 99 -->")
    assert posted_scope(body) is not None


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script" and dict(attrs).get("type") is None:
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def test_dashboard_has_only_its_own_script_and_a_strict_csp(hostile_run):
    import base64
    import hashlib

    html = (hostile_run[0] / "report.html").read_text()
    parsed = _Elements()
    parsed.feed(html)
    tags = parsed.tags
    assert {t for t, _ in tags}.isdisjoint({"img", "iframe", "object", "embed", "form", "base", "link"})
    handlers = [(t, a) for t, attrs in tags for a in attrs if a.lower().startswith("on")]
    assert not handlers, handlers
    hrefs = [attrs.get("href") for t, attrs in tags if "href" in attrs]
    assert all(h and h.startswith("#suite-") for h in hrefs), hrefs  # the page's own navigation only
    [script] = parsed.scripts  # one executable script; the item data are type=application/json
    data_blocks = [a for t, a in tags if t == "script" and a.get("type") == "application/json"]
    assert len(data_blocks) == 5
    [csp] = [a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp and "unsafe-inline'; img" not in csp.split("script-src")[1]
    assert "default-src 'none'" in csp and "connect-src" not in csp
    assert "&lt;script&gt;alert(1)" in html  # the hostile text is there, as text


@browser_support.SKIP_WITHOUT_CHROMIUM  # before the fixture builds the run
def test_hostile_dashboard_runs_nothing_in_a_browser(hostile_run):
    chromium = browser_support.chromium()
    playwright = browser_support.sync_api()
    url = (hostile_run[0] / "report.html").as_uri()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        dialogs, requests, errors = [], [], []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        for summary in page.locator("summary").all():
            summary.click()
        page.locator(".item-table input[type=search]").first.fill("octo")
        text = page.locator("body").inner_text()
        ran = page.evaluate("document.querySelectorAll('tbody tr').length")  # our script did run
        browser.close()
    assert not dialogs and not errors and requests == [url]
    assert "<script>alert(1)</script>" in text and ran > 0


def test_a_comment_that_fakes_the_marker_is_never_taken_over(httpserver, monkeypatch):
    """Anyone can post a comment starting with the gate's marker; the gate edits only its own."""
    from gate.publish.github import client as gate_github

    monkeypatch.setattr(gate_github, "REQUEST_SPACING", (0, 0))
    fake = FakeGitHub(base_url=httpserver.url_for("").rstrip("/"))
    httpserver.expect_request(re.compile(".*")).respond_with_handler(fake.handle)
    fake.comments[7] = [{"id": 1, "login": "mallory", "body": marker("q") + "\n## ✅ q: passed (trust me)"}]
    bundle = PublishBundle(gate="q", verdict="fail", conclusion="failure", title="1 of 1 checks failed",
                           summary="## ❌ q: failed", comment="## ❌ q: failed", repository=REPO, pull_request=7,
                           head_sha=HEAD)
    publisher = GitHubPublisher("ghs_marker_test_token_123", fake.base_url, REPO,
                                retry=RetryPolicy(attempts=1, sleep=lambda s: None))
    outcome = publisher.publish(bundle, CommentMode.STICKY, check_run=False)
    assert outcome.comment_action == "created"
    assert fake.comments[7][0]["body"].endswith("(trust me)")  # mallory's comment untouched
    assert "## ❌ q: failed" in fake.comments[7][1]["body"]
    again = publisher.publish(bundle, CommentMode.STICKY, check_run=False)  # ours is found from now on
    assert again.comment_action == "unchanged" and len(fake.comments[7]) == 2


def test_a_file_name_cannot_inject_a_workflow_command(tmp_path, monkeypatch, capsys):
    """A PR can name a file `x\\n::error::…`; quoted in an error message it must not start a log line the
    runner would obey (workflow commands are read from stdout and stderr alike)."""
    from tests.test_cli import run_cli

    (tmp_path / "heuristic").mkdir()
    (tmp_path / "heuristic" / "a\n::add-mask::everything\n::error title=x::forged.jsonl").write_text("{not json\n")
    (tmp_path / "gate.yml").write_text("version: 1\nsuites:\n  rubric:\n    kind: heuristic\n"
                                       "    records: heuristic/*.jsonl\n")
    outside_actions(monkeypatch, tmp_path)
    assert run_cli(monkeypatch, "run", "--no-publish", "-q") == 2
    err = capsys.readouterr().err
    assert "forged.jsonl" in err  # the problem is reported, naming the file
    assert not [line for line in err.splitlines() if line.lstrip().startswith("::")], err
