"""Shared fixtures. Every test runs offline: no model hub, ever."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from gate.runtime.engines import progress  # noqa: E402
from tests.support.fake_runtime import FakeRuntime  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"

progress.set_enabled(False)


@pytest.fixture
def fake_runtime() -> FakeRuntime:
    return FakeRuntime()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch) -> Path:
    """Run the test inside an empty working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def github_api(httpserver, monkeypatch):
    """A fake GitHub API on loopback, driven by the real PyGithub client, without request spacing."""
    import re

    from gate.publish.github import client as gate_github
    from tests.support.fake_github import FakeGitHub

    monkeypatch.setattr(gate_github, "REQUEST_SPACING", (0, 0))
    fake = FakeGitHub(base_url=httpserver.url_for("").rstrip("/"))
    httpserver.expect_request(re.compile(".*")).respond_with_handler(fake.handle)
    return fake


@pytest.fixture(autouse=True)
def _no_secrets_from_other_tests():
    """The redaction registry is process-wide (the CLI registers its environment's secrets): each test starts
    and ends with it empty, so what one test registered cannot mask or announce text in another."""
    from gate import redact

    redact.forget_all()
    yield
    redact.forget_all()
