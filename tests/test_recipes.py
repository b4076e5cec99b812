"""Every recipe we ship or tell people to copy keeps the base branch in charge of the verdict (SECURITY.md, the
trust boundary; issue 31): the ```yaml blocks of README.md and docs/, the workflows `llm-gate init` writes (both
recipes) and this repository's .github/workflows.

- every gate step that publishes pins `check_name` and `comment_title` (the name branch protection requires is the
  workflow's choice, never gate.yml's, which a pull request may edit);
- no recipe uses `command: publish` (a verdict the pull request's own run computed);
- every `workflow_run` recipe runs the gate itself on the downloaded candidates (`candidates_dir`) and checks out
  the default branch (no `ref:`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from gate.cli.commands.init import CANDIDATES_WORKFLOW, GATE_WORKFLOW, init_repository
from tests.conftest import REPO
from tests.support import docs

# The gate: the released action (and its gpu/ variant), the one built from this checkout, the local gpu action, or
# its image run directly.
GATE_USES = re.compile(r"llm-quality-gate/llm-quality-gate(/[\w./-]+)?@.+|\./\.github/actions/source|\./gpu/?|"
                       r"docker://ghcr\.io/llm-quality-gate/llm-quality-gate[@:].+")


def _workflow_like(data: object) -> list[dict]:
    """The steps of a ```yaml block: a whole workflow's, or a list of steps."""
    if isinstance(data, dict) and "jobs" in data:
        return [s for job in (data["jobs"] or {}).values() for s in (job.get("steps") or [])]
    if isinstance(data, list):
        return [s for s in data if isinstance(s, dict)]
    return []


def doc_recipes() -> list[tuple[str, object]]:
    """(where, parsed block) for every ```yaml block of README.md and docs/ that holds workflow steps."""
    found = []
    for block in docs.blocks("yaml"):
        data = yaml.safe_load(block.body)
        if _workflow_like(data):
            found.append((block.where, data))
    return found


def init_recipes(directory: Path) -> list[tuple[str, dict]]:
    """What `llm-gate init` writes, both recipes."""
    found = []
    for trusted in (True, False):
        target = directory / ("trusted" if trusted else "single-job")
        init_repository(target, kinds=("drift", "stability"), trusted=trusted)
        for path in sorted((target / ".github" / "workflows").glob("*.yml")):
            found.append((f"init {'--trusted' if trusted else '--single-job'}: {path.name}",
                          yaml.safe_load(path.read_text())))
    return found


def own_workflows() -> list[tuple[str, dict]]:
    return [(f".github/workflows/{p.name}", yaml.safe_load(p.read_text()))
            for p in sorted((REPO / ".github" / "workflows").glob("*.yml"))]


@pytest.fixture(scope="module")
def recipes(tmp_path_factory) -> list[tuple[str, object]]:
    return doc_recipes() + init_recipes(tmp_path_factory.mktemp("init")) + own_workflows()


def gate_steps(data: object) -> list[dict]:
    return [s for s in _workflow_like(data) if GATE_USES.fullmatch(str(s.get("uses", "")).strip())]


def inputs(step: dict) -> dict:
    """A gate step's inputs: `with:`, or for a `docker://` step the INPUT_<NAME> variables it reads."""
    given = {str(k): v for k, v in (step.get("with") or {}).items()}
    for name, value in (step.get("env") or {}).items():
        if str(name).startswith("INPUT_"):
            given[str(name)[len("INPUT_"):].lower()] = value
    return given


def publishes(step: dict) -> bool:
    """A gate step that posts: not `publish: false`, not a shard (shards compute only)."""
    given = inputs(step)
    return str(given.get("publish", "true")).strip().lower() != "false" and not given.get("shard")


def triggers(flow: object) -> dict:
    if not isinstance(flow, dict):
        return {}
    found = flow.get(True, flow.get("on")) or {}
    return {found: None} if isinstance(found, str) else dict(found)


# ---------------------------------------------------------------- what is scanned


def test_the_scan_finds_the_recipes(recipes):
    names = [where for where, _ in recipes]
    assert any(n.startswith("README.md") for n in names) and any(n.startswith("docs/github.md") for n in names)
    assert {"init --trusted: llm-quality-gate.yml", "init --trusted: llm-quality-gate-candidates.yml",
            "init --single-job: llm-quality-gate.yml"} <= set(names), names
    assert ".github/workflows/quality-gate-publish.yml" in names
    publishing = [where for where, data in recipes for s in gate_steps(data) if publishes(s)]
    assert len(publishing) >= 10, publishing
    workflow_runs = [where for where, data in recipes if "workflow_run" in triggers(data)]
    assert len(workflow_runs) >= 4, workflow_runs  # README, docs/github.md, init, this repository


# ---------------------------------------------------------------- the rules


def test_every_publishing_gate_step_pins_its_check_name_and_comment_title(recipes):
    unpinned = []
    for where, data in recipes:
        for step in gate_steps(data):
            given = inputs(step)
            if publishes(step) and not (str(given.get("check_name") or "").strip()
                                        and str(given.get("comment_title") or "").strip()):
                unpinned.append(f"{where}: {step.get('name') or step.get('uses')}")
    assert not unpinned, f"pin `check_name:` and `comment_title:` on these gate steps: {unpinned}"


def test_no_recipe_uses_the_removed_publish_command(recipes):
    using = [where for where, data in recipes for step in gate_steps(data)
             if str(inputs(step).get("command", "")).strip() == "publish" or "report_dir" in inputs(step)]
    assert not using, f"`command: publish` is removed (a self-reported verdict): {using}"


def test_every_workflow_run_recipe_judges_the_candidates_on_the_default_branch(recipes):
    bad = []
    for where, flow in recipes:
        if "workflow_run" not in triggers(flow):
            continue
        steps = _workflow_like(flow)
        gates = [s for s in gate_steps(flow) if publishes(s)]
        if not gates or not all(str(inputs(s).get("candidates_dir") or "").strip() for s in gates):
            bad.append(f"{where}: the gate step needs `candidates_dir:` (the downloaded candidates)")
        for step in steps:
            if str(step.get("uses", "")).startswith("actions/checkout") and "ref" in (step.get("with") or {}):
                bad.append(f"{where}: a checkout with `ref:` (the default branch only, never the pull request)")
        downloads = [s for s in steps if str(s.get("uses", "")).startswith("actions/download-artifact")]
        wanted = {str(inputs(s).get("candidates_dir")).strip().rstrip("/") for s in gates}
        if not any(str((d.get("with") or {}).get("path", "")).strip().rstrip("/") in wanted for d in downloads):
            bad.append(f"{where}: no download-artifact step fills `candidates_dir` {sorted(wanted)}")
        if "head_repository.full_name != github.repository" in str(flow):
            bad.append(f"{where}: the trusted job runs for every pull request, not only forks")
    assert not bad, bad


def test_every_candidates_upload_keeps_the_repository_layout(recipes):
    """The artifact the trusted job reads is uploaded from a folder that holds the repository's layout (copied with
    `--parents`), named as the trusted job downloads it, and short-lived."""
    uploads = [(where, s) for where, data in recipes for s in _workflow_like(data)
               if str(s.get("uses", "")).startswith("actions/upload-artifact")
               and (s.get("with") or {}).get("name") == "llm-quality-gate-candidates"]
    assert len(uploads) >= 4, uploads
    for where, step in uploads:
        given = step["with"]
        assert given.get("if-no-files-found") == "error" and given.get("retention-days") == 3, where
        folder = str(given["path"]).rstrip("/")
        assert not folder.startswith("."), f"{where}: upload-artifact skips hidden folders"
    for where, data in recipes:
        if any(w == where for w, _ in uploads):
            staged = " ".join(str(s.get("run", "")) for s in _workflow_like(data))
            assert "--parents" in staged, f"{where}: copy the candidate folders with their parents"


def test_the_single_job_recipes_read_the_gate_from_the_base_branch(recipes):
    for where, flow in recipes:
        steps = _workflow_like(flow)
        for step in gate_steps(flow):
            base = str(inputs(step).get("base_checkout") or "").strip()
            if not base:
                continue
            checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")
                         and (s.get("with") or {}).get("path") == base]
            assert checkouts, f"{where}: no checkout fills base_checkout {base!r}"
            assert "pull_request.base.sha" in str(checkouts[0]["with"].get("ref")), where
            assert steps.index(checkouts[0]) < steps.index(step), where


def test_what_init_writes_by_default_is_the_trusted_recipe(tmp_path, capsys):
    written = {p.relative_to(tmp_path).as_posix() for p in init_repository(tmp_path)}
    assert {GATE_WORKFLOW, CANDIDATES_WORKFLOW} <= written
    candidates = yaml.safe_load((tmp_path / CANDIDATES_WORKFLOW).read_text())
    gate = yaml.safe_load((tmp_path / GATE_WORKFLOW).read_text())
    assert candidates["name"] in triggers(gate)["workflow_run"]["workflows"]  # the workflow_run names it exactly
    job = candidates["jobs"]["candidates"]
    assert job["permissions"] == {"contents": "read"} and not gate_steps(candidates)  # posts nothing, no token
    assert "secrets." not in (tmp_path / CANDIDATES_WORKFLOW).read_text()
    assert "concurrency" in candidates and "concurrency" in gate


# ---------------------------------------------------------------- the checks can fail


@pytest.mark.parametrize("step, pinned", [
    ({"uses": "llm-quality-gate/llm-quality-gate@v0.1.0"}, False),
    ({"uses": "llm-quality-gate/llm-quality-gate@v0.1.0", "with": {"check_name": "x"}}, False),
    ({"uses": "./.github/actions/source", "with": {"check_name": "x", "comment_title": "x"}}, True),
    ({"uses": "llm-quality-gate/llm-quality-gate/gpu@v0.1.0", "with": {"publish": False}}, True),
    ({"uses": "./gpu", "with": {"shard": "1/3"}}, True),
    ({"uses": "docker://ghcr.io/llm-quality-gate/llm-quality-gate@sha256:" + "0" * 64,
      "env": {"INPUT_CHECK_NAME": "x", "INPUT_COMMENT_TITLE": "x"}}, True),
    ({"uses": "docker://ghcr.io/llm-quality-gate/llm-quality-gate:0.1.0"}, False),
])
def test_the_pin_rule_knows_a_pinned_step(step, pinned):
    assert gate_steps([step]) == [step]
    given = inputs(step)
    assert (not publishes(step) or bool(given.get("check_name") and given.get("comment_title"))) is pinned
