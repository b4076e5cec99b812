"""The action and the workflows: valid, linted, documented, versioned like the package."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gate import __version__
from gate.cli.commands.init import ACTION, init_repository
from gate.errors import InputError
from tests.conftest import REPO
from tests.support import docs

ACTION_YML = yaml.safe_load((REPO / "action.yml").read_text())
README = docs.text()  # README.md and docs/**/*.md: the inputs table lives in docs/github.md
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent


def check_jsonschema(schema: str, *files: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True, timeout=120)


def test_action_yml_is_valid():
    done = check_jsonschema("vendor.github-actions", REPO / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflows_are_valid_and_lint_clean(tmp_path):
    init_repository(tmp_path)
    files = [*WORKFLOWS, *sorted((tmp_path / ".github" / "workflows").glob("*.yml"))]
    assert len(files) >= 5
    done = check_jsonschema("vendor.github-workflows", *files)
    assert done.returncode == 0, done.stdout + done.stderr
    lint = subprocess.run([str(BIN / "actionlint"), *map(str, files)], capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_inputs_are_snake_case_and_documented():
    for name, spec in ACTION_YML["inputs"].items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name), name
        assert spec.get("description"), name
        assert f"`{name}`" in README, f"document input {name} in docs/github.md"
    for name in ACTION_YML["outputs"]:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name) and f"`{name}`" in README, name


def test_every_input_reaches_the_gate():
    """Each input arrives as INPUT_<NAME>; the code must read every one (or take it as the command)."""
    sources = "\n".join(p.read_text() for p in (REPO / "gate").rglob("*.py"))
    for name in ACTION_YML["inputs"]:
        if name == "command":
            assert ACTION_YML["runs"]["args"] == ["${{ inputs.command }}"]
            continue
        assert f'value("{name}")' in sources or f"INPUT_{name.upper()}" in sources, name


def test_outputs_are_the_ones_the_gate_writes():
    source = (REPO / "gate" / "publish" / "flow.py").read_text()
    written = set(re.findall(r'^\s+"([a-z_]+)": ', source[source.index("write_outputs"):], flags=re.MULTILINE))
    assert set(ACTION_YML["outputs"]) == written


def test_the_source_action_is_the_action_built_from_this_checkout():
    """The repository's own workflows gate pull requests with the pull request's code: an action identical to
    action.yml (inputs, outputs, arguments: what a user's workflow gets) but for the image, the root Dockerfile."""
    source = yaml.safe_load((REPO / ".github" / "actions" / "source" / "action.yml").read_text())
    assert source["inputs"] == ACTION_YML["inputs"] and source["outputs"] == ACTION_YML["outputs"]
    assert {**source["runs"], "image": None} == {**ACTION_YML["runs"], "image": None}
    assert source["runs"]["image"] == "../../../Dockerfile"
    assert (REPO / ".github" / "actions" / "source" / source["runs"]["image"]).resolve() == REPO / "Dockerfile"
    done = check_jsonschema("vendor.github-actions", REPO / ".github" / "actions" / "source" / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    for path in WORKFLOWS:
        uses = [str(s.get("uses")) for job in yaml.safe_load(path.read_text())["jobs"].values()
                for s in job.get("steps", [])]
        assert "./" not in uses, f"{path.name}: `uses: ./` would run the released image, not this checkout"


def test_versions_match_the_package():
    assert ACTION == f"llm-quality-gate/llm-quality-gate@v{__version__}"
    assert f'org.opencontainers.image.version="{__version__}"' in (REPO / "Dockerfile").read_text()
    for used in re.findall(r"uses: llm-quality-gate/llm-quality-gate@(v[0-9.]+)", README):
        assert used == f"v{__version__}", used
    # The prebuilt release image (tests/test_release.py checks it against every other place the version is named).
    assert ACTION_YML["runs"]["image"] == f"docker://ghcr.io/llm-quality-gate/llm-quality-gate:{__version__}"


def test_example_workflow_is_least_privilege_and_never_runs_fork_code_with_write_access():
    for path in WORKFLOWS:
        flow = yaml.safe_load(path.read_text())
        triggers = flow.get(True, flow.get("on"))  # PyYAML reads the key `on` as True
        assert "pull_request_target" not in (triggers or {}), path
        permissions = flow.get("permissions")
        assert isinstance(permissions, dict), f"{path.name} must set top-level permissions"
        assert set(permissions.values()) <= {"read", "write", "none"}
        assert permissions.get("contents") == "read"
    gate_flow = yaml.safe_load((REPO / ".github" / "workflows" / "quality-gate.yml").read_text())
    steps = gate_flow["jobs"]["quality-gate"]["steps"]
    assert any(s.get("uses") == "./.github/actions/source" for s in steps)  # this checkout's code, not a release
    assert gate_flow["permissions"] == {"contents": "read"}  # writes are granted per job
    assert gate_flow["jobs"]["quality-gate"]["permissions"] == {"contents": "read", "pull-requests": "write",
                                                                "checks": "write"}
    publish_flow = yaml.safe_load((REPO / ".github" / "workflows" / "quality-gate-publish.yml").read_text())
    assert "workflow_run" in publish_flow[True]
    checkout = [s for s in publish_flow["jobs"]["publish"]["steps"] if "checkout" in str(s.get("uses"))]
    assert all("ref" not in (s.get("with") or {}) for s in checkout)  # the default branch, never the fork's head


def test_init_writes_starter_files_and_refuses_to_overwrite(tmp_path, capsys):
    written = init_repository(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        "gate.yml", ".github/workflows/llm-quality-gate.yml", ".github/workflows/llm-quality-gate-candidates.yml",
        "baselines/feedback/example-exercise.json", "outputs/feedback/example.jsonl", ".gitignore"]
    from gate.run import read_config

    config = read_config(tmp_path / "gate.yml")  # the starter config is valid
    assert config.suites["feedback-drift"].kind == "drift"
    assert ACTION in (tmp_path / ".github" / "workflows" / "llm-quality-gate.yml").read_text()
    with pytest.raises(InputError) as caught:
        init_repository(tmp_path)
    assert len(caught.value.problems) == 5 and "--force" in caught.value.problems[0].fix  # .gitignore: appended
    init_repository(tmp_path, force=True, trusted=False)


def test_dockerfile_takes_the_base_image_as_an_argument():
    text = (REPO / "Dockerfile").read_text()
    assert re.search(r"^ARG BASE_IMAGE=python:3\.11\.\d+-slim", text, flags=re.MULTILINE)
    assert "FROM ${BASE_IMAGE} AS base" in text


@pytest.mark.parametrize("script", ["docker-smoke", "build-wheelhouse", "image-layer"])
def test_scripts_are_valid_bash(script):
    path = REPO / "scripts" / script
    assert path.stat().st_mode & 0o111, f"{script} must be executable"
    done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


GPU_ACTION = yaml.safe_load((REPO / "gpu" / "action.yml").read_text())


def test_gpu_action_is_valid_and_takes_the_same_inputs():
    done = check_jsonschema("vendor.github-actions", REPO / "gpu" / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(GPU_ACTION["inputs"]) == set(ACTION_YML["inputs"]) - {"command", "shards"} | {
        "torch_index_url", "python"}
    assert set(GPU_ACTION["outputs"]) == set(ACTION_YML["outputs"])
    run_env = GPU_ACTION["runs"]["steps"][1]["env"]
    for name in set(GPU_ACTION["inputs"]) - {"torch_index_url", "python"}:
        assert run_env[f"INPUT_{name.upper()}"] == f"${{{{ inputs.{name} }}}}", name
    for name in ("torch_index_url", "python"):
        assert f"`{name}`" in README


def _gate_imports(module: Path) -> set[Path]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(module.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gate"):
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("gate")]
        for name in names:
            path = REPO / Path(*name.split("."))
            for candidate in (path.with_suffix(".py"), path / "__init__.py"):
                if candidate.is_file():
                    found.add(candidate)
    return found


def test_dockerfile_model_layer_copies_everything_the_model_module_imports():
    """The model layer runs gate.runtime.engines.models alone; a new import there must be copied in too."""
    text = (REPO / "Dockerfile").read_text()
    copied = set()
    for line in re.findall(r"^COPY (gate/[^\n]+) /tmp/pull/", text, flags=re.MULTILINE):
        for source in map(REPO.joinpath, line.split()):
            copied |= set(source.rglob("*.py")) if source.is_dir() else {source}
    todo, closure = [REPO / "gate" / "runtime" / "engines" / "models.py"], set()
    while todo:
        module = todo.pop()
        if module in closure:
            continue
        closure.add(module)
        todo += list(_gate_imports(module))
        for parent in module.relative_to(REPO).parents:  # packages run their __init__ on import
            init = REPO / parent / "__init__.py"
            if parent.parts and init.is_file() and init not in closure:
                todo.append(init)
    assert closure <= copied, sorted(str(p.relative_to(REPO)) for p in closure - copied)


def test_dockerignore_lets_in_everything_the_dockerfile_copies():
    allowed = {line[1:].strip() for line in (REPO / ".dockerignore").read_text().splitlines() if line.startswith("!")}
    text = (REPO / "Dockerfile").read_text()
    for line in re.findall(r"^COPY (?!--from)([^\n]+)", text, flags=re.MULTILINE):
        for source in line.split()[:-1]:  # a top-level entry lets in all below it; scripts/ only the named files
            assert source.split("/")[0] in allowed or source in allowed, \
                f"{source} is copied but .dockerignore leaves it out"
    assert not re.search(r"^USER\b", text, flags=re.MULTILINE)  # any uid: the runner's choice
    assert 'ENTRYPOINT ["llm-gate"]' in text
    assert "HF_HUB_OFFLINE=1" in text
