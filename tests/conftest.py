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
    yield fake
    # Every request any scenario made must be a route GitHub documents (its REST description): issue 32 found
    # PyGithub's legacy `GET /repos/{o}/{r}/statuses/{sha}`, which only the plain run's check had caught.
    from tests.support.github_routes import documented

    undocumented = sorted({f"{c.method} {c.path}" for c in fake.calls if not documented(c.method, c.path)})
    _CONFORMANCE["requests"] += len(fake.calls)
    _CONFORMANCE["scenarios"] += 1
    _CONFORMANCE["undocumented"] += len(undocumented)
    assert not undocumented, f"requests GitHub's REST API does not document: {undocumented}"


_CONFORMANCE = {"requests": 0, "scenarios": 0, "undocumented": 0}


def pytest_sessionfinish(session, exitstatus):
    """Under xdist each worker counts its own scenarios: hand the counts to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["github_conformance"] = dict(_CONFORMANCE)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller adds up what each xdist worker counted (an xdist hook; unused without xdist)."""
    for key, value in getattr(node, "workeroutput", {}).get("github_conformance", {}).items():
        _CONFORMANCE[key] += value


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line for the record: how many requests the loopback GitHub answered, and that each is documented."""
    if _CONFORMANCE["scenarios"]:
        terminalreporter.write_line(
            f"loopback GitHub: {_CONFORMANCE['requests']} requests in {_CONFORMANCE['scenarios']} scenarios, "
            f"{_CONFORMANCE['undocumented']} not in GitHub's REST description")


@pytest.fixture(autouse=True)
def _no_secrets_from_other_tests():
    """The redaction registry is process-wide (the CLI registers its environment's secrets): each test starts
    and ends with it empty, so what one test registered cannot mask or announce text in another."""
    from gate.io import redact

    redact.forget_all()
    yield
    redact.forget_all()


@pytest.fixture(autouse=True)
def _recursion_limit_as_found():
    """A test that raises the recursion limit and keeps it raised changes what later tests on its worker see: json's
    parser then reads JSON nested 5,000 deep, and a test of the gate's "nested too deep" error failed, but only
    where the suite's order put it after tests/test_import_graph.py."""
    import sys

    limit = sys.getrecursionlimit()
    yield
    assert sys.getrecursionlimit() == limit, "this test changed sys.getrecursionlimit() and did not restore it"


# The suite runs in parallel (`pytest -n auto --dist loadgroup`, pytest-xdist: README's command 2, .ci/run). Each
# worker is its own process, so chdir, os.environ and process-wide registries stay per worker, every test writes
# under its own tmp_path and every server listens on a free port. What must not share the machine with itself
# runs in one group, one test after another on one worker:
#   timing: tests that bound a wall time (signals, retries, timeouts, fail-fast paths) and would be measuring
#           each other's load rather than the code.
SERIAL_GROUPS = {
    "timing": ("tests/faults/test_interrupt_timing.py", "tests/faults/test_interrupts.py",
               "tests/faults/test_grader_faults.py", "tests/publish/test_flow_faults.py",
               "tests/publish/github/test_client_faults.py", "tests/runtime/engines/test_models.py",
               "tests/test_vcs.py"),
}


def pytest_collection_modifyitems(config, items):
    """Puts the SERIAL_GROUPS' modules in their xdist group (nothing changes without xdist)."""
    group_of = {module: group for group, modules in SERIAL_GROUPS.items() for module in modules}
    for item in items:
        group = group_of.get(Path(str(item.fspath)).relative_to(REPO).as_posix())
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
