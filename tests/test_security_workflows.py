"""Every workflow we ship or tell people to copy is least-privilege and never runs fork code with a
write token: this repository's workflows, the ones `llm-gate init` writes, and every workflow in the
README's and docs/' ```yaml blocks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gate.cli.commands.init import init_repository
from tests.conftest import REPO
from tests.support import docs

BIN = Path(sys.executable).parent
LEVELS = {"read", "write", "none"}
# Contexts whose value a pull request's author controls: never the ref of a checkout in a privileged run.
UNTRUSTED_REFS = re.compile(r"github\.event\.(pull_request|workflow_run)\.head|github\.head_ref|"
                            r"refs/pull/|merge_commit_sha")


def readme_workflows() -> list[tuple[str, dict]]:
    """The workflows in the ```yaml blocks of README.md and docs/**/*.md (`README.md:LINE`, `docs/x.md:LINE`)."""
    found = []
    for block in docs.blocks("yaml"):
        data = yaml.safe_load(block.body)
        if isinstance(data, dict) and "jobs" in data:
            found.append((block.where, data))
    return found


def shipped_workflows(tmp_path: Path) -> list[tuple[str, dict]]:
    init_repository(tmp_path)
    files = sorted((REPO / ".github" / "workflows").glob("*.yml")) + sorted(
        (tmp_path / ".github" / "workflows").glob("*.yml"))
    return [(p.name, yaml.safe_load(p.read_text())) for p in files] + readme_workflows()


def problems(flow: dict) -> list[str]:
    """What is wrong with a workflow, security-wise (empty when nothing)."""
    found = []
    triggers = flow.get(True, flow.get("on")) or {}
    triggers = {triggers: None} if isinstance(triggers, str) else triggers
    top = flow.get("permissions")
    if top is not None:
        if not isinstance(top, dict):
            found.append(f"top-level permissions {top!r}: name each scope (no read-all/write-all)")
        elif any(v == "write" for v in top.values()):
            found.append("top-level permissions grant write: grant it on the jobs that need it")
    for name, job in (flow.get("jobs") or {}).items():
        permissions = job.get("permissions", top)
        if permissions is None:
            found.append(f"job {name}: no explicit permissions (the repository default may be write-all)")
        elif not isinstance(permissions, dict) or not set(permissions.values()) <= LEVELS:
            found.append(f"job {name}: permissions {permissions!r} must map scopes to read/write/none")
        for step in job.get("steps") or []:
            uses, with_ = str(step.get("uses", "")), step.get("with") or {}
            if uses.startswith("actions/checkout") and UNTRUSTED_REFS.search(str(with_.get("ref", "")) +
                                                                          str(with_.get("repository", ""))):
                if "pull_request_target" in triggers or "workflow_run" in triggers:
                    found.append(f"job {name}: checks out the pull request's code in a privileged workflow")
            if "${{" in str(step.get("run", "")):
                found.append(f"job {name}: an expression spliced into a run script (pass it through env:)")
    if "write-all" in yaml.safe_dump(flow) or "read-all" in yaml.safe_dump(flow):
        found.append("read-all/write-all")
    return found


def test_there_are_workflows_to_check(tmp_path):
    names = [n for n, _ in shipped_workflows(tmp_path)]
    assert len(names) >= 9 and sum(n.startswith(("README.md", "docs/")) for n in names) >= 4, names
    assert any(n.startswith("README.md") for n in names), names


def test_every_workflow_is_least_privilege_and_safe_with_forks(tmp_path):
    bad = {name: found for name, flow in shipped_workflows(tmp_path) if (found := problems(flow))}
    assert not bad, bad


def test_no_workflow_uses_pull_request_target(tmp_path):
    for name, flow in shipped_workflows(tmp_path):
        triggers = flow.get(True, flow.get("on")) or {}
        assert "pull_request_target" not in triggers, name


def test_checkouts_leave_no_credentials_behind(tmp_path):
    for name, flow in shipped_workflows(tmp_path):
        for job in flow["jobs"].values():
            for step in job.get("steps") or []:
                if str(step.get("uses", "")).startswith("actions/checkout"):
                    assert (step.get("with") or {}).get("persist-credentials") is False, name


@pytest.mark.parametrize("flow, expected", [
    ({"on": "pull_request_target", "permissions": "write-all", "jobs": {"j": {"steps": []}}}, "read-all/write-all"),
    ({"on": "pull_request", "jobs": {"j": {"steps": []}}}, "no explicit permissions"),
    ({"on": "push", "permissions": {"contents": "write"}, "jobs": {"j": {}}}, "top-level permissions grant write"),
    ({"on": {"pull_request_target": {}}, "permissions": {"contents": "read"}, "jobs": {"j": {"steps": [
        {"uses": "actions/checkout@v6", "with": {"ref": "${{ github.event.pull_request.head.sha }}"}}]}}},
     "checks out the pull request's code"),
    ({"on": "pull_request", "permissions": {}, "jobs": {"j": {"steps": [
        {"run": "echo ${{ github.event.pull_request.title }}"}]}}}, "spliced into a run script"),
])
def test_the_checker_catches_the_classic_mistakes(flow, expected):
    assert any(expected in p for p in problems(flow)), problems(flow)


def test_readme_workflows_are_valid_and_lint_clean(tmp_path):
    files = []
    for index, (_, flow) in enumerate(readme_workflows()):
        if (True in flow or "on" in flow) and all("runs-on" in job for job in flow["jobs"].values()):
            path = tmp_path / f"readme-{index}.yml"
            path.write_text(yaml.safe_dump({"on" if k is True else k: v for k, v in flow.items()}, sort_keys=False))
            files.append(path)
    assert len(files) >= 2
    schema = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                             *map(str, files)], capture_output=True, text=True, timeout=120)
    assert schema.returncode == 0, schema.stdout + schema.stderr
    lint = subprocess.run([str(BIN / "actionlint"), *map(str, files)], capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr


# A third-party action runs with the job's token and secrets: this repository's own workflows and composite
# actions name each by the commit it is (a tag can be moved to other code), with its release in a comment.
# The recipes users copy (README, docs/, `llm-gate init`) keep readable tags and are not checked here.
PINNED_USES = re.compile(r"\./.*|docker://[^@\s]+@sha256:[0-9a-f]{64}|[\w.-]+/[\w./-]+@[0-9a-f]{40}")


def own_uses() -> list[tuple[str, str, str]]:
    """(file, uses, its source line) for every `uses:` of a job or step in .github/ (workflows and actions)."""
    found = []
    github = REPO / ".github"
    for path in sorted([*github.glob("workflows/*.y*ml"), *github.glob("actions/**/action.y*ml")]):
        text, data = path.read_text(), yaml.safe_load(path.read_text()) or {}
        jobs = list((data.get("jobs") or {}).values()) + [data.get("runs") or {}]
        for job in jobs:
            for item in [job, *(job.get("steps") or [])]:
                if "uses" in item:
                    line = next((x for x in text.splitlines()
                                 if re.search(rf"uses:\s*{re.escape(item['uses'])}(\s|$)", x)), "")
                    found.append((str(path.relative_to(REPO)), str(item["uses"]), line))
    return found


def test_own_workflows_pin_every_third_party_action_by_commit():
    uses = own_uses()
    assert len(uses) >= 20 and any(u.startswith("./") for _, u, _ in uses), uses
    unpinned = [(f, u) for f, u, _ in uses if not PINNED_USES.fullmatch(u)]
    assert not unpinned, f"pin these by their 40-hex commit SHA (`owner/repo@<sha> # vX.Y.Z`): {unpinned}"
    unnamed = [(f, line.strip()) for f, u, line in uses
               if not u.startswith(("./", "docker://")) and not re.search(r"#\s*v\d+(\.\d+)*\b", line)]
    assert not unnamed, f"say which release a pinned SHA is (`# vX.Y.Z`): {unnamed}"


@pytest.mark.parametrize("uses, pinned", [
    ("actions/checkout@v6", False), ("actions/checkout@main", False), ("actions/checkout@d23441a", False),
    ("actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803", True),
    ("github/codeql-action/upload-sarif@" + "a" * 40, True),
    ("docker://alpine:3", False), ("docker://alpine@sha256:" + "0" * 64, True), ("./.github/actions/source", True),
])
def test_the_pin_check_knows_a_pin(uses, pinned):
    assert bool(PINNED_USES.fullmatch(uses)) is pinned
