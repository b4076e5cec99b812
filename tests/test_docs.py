"""The documentation stays true: every YAML block validates, every command parses (a chosen few run), every
record example loads, the config reference is generated, the site builds with --strict, the screenshots exist."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gate.config.loader import load_config, parse_config
from gate.kinds import KINDS
from tests.support import docs

BIN = Path(sys.executable).parent
REPO = docs.REPO
# Complete gate.yml into which fragments (waivers:, history:, …) are merged before validation.
BASE_CONFIG = {"version": 1, "suites": {"feedback": {"kind": "drift", "baseline": "b/*.json",
                                                     "candidates": "c/*.jsonl"}}}


def load_script(name: str):
    """A script in scripts/ (no .py suffix) as a module."""
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), str(REPO / "scripts" / name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# ---------------------------------------------------------------- the site


def test_every_page_is_in_the_nav():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())

    def pages(entries):
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from pages(value) if isinstance(value, list) else [value]

    listed = set(pages(config["nav"]))
    on_disk = {str(p.relative_to(docs.DOCS)) for p in docs.DOCS.rglob("*.md")}
    assert listed == on_disk


def test_the_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -c constraints.txt -e '.[docs]'")
    pytest.importorskip("material", reason="mkdocs-material is not installed: pip install -e '.[docs]'")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={"PATH": str(BIN), "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    security = (tmp_path / "site" / "security" / "index.html").read_text()
    assert "Reporting a vulnerability" in security  # SECURITY.md is included, not linked


def test_the_configuration_reference_is_the_generator_output():
    from gate.config import json_schema

    expected = load_script("config-reference").render(json_schema())
    assert (docs.DOCS / "configuration-reference.md").read_text() == expected, (
        "docs/configuration-reference.md is stale: run `.venv/bin/python scripts/config-reference`")


def test_the_configuration_reference_lists_every_field():
    from gate.config import GateConfig, suite_configs
    from tests.test_readme import field_paths

    page = (docs.DOCS / "configuration-reference.md").read_text()
    for path in field_paths(GateConfig):
        if path != "suites":
            assert f"| `{path}` |" in page, path
    for suite_model in suite_configs():
        for name in suite_model.model_fields:
            assert f"| `suites.<name>.{name}` |" in page, name


def test_readme_is_a_landing_page():
    readme = docs.README.read_text()
    assert len(readme) <= 15_000, f"README.md is {len(readme)} characters; move detail into docs/"
    for image in ("docs/images/comment.png", "docs/images/dashboard.png"):
        assert f"]({image})" in readme


@pytest.mark.parametrize("name", ["comment.png", "dashboard.png"])
def test_the_screenshots_are_checked_in_and_small(name):
    image = docs.DOCS / "images" / name
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.stat().st_size < 400_000


def test_the_screenshot_script_is_valid_python():
    script = (REPO / "scripts" / "screenshots").read_text()
    compile(script, "scripts/screenshots", "exec")
    assert script.startswith("#!/usr/bin/env python3")
    assert "cmark-gfm" in script and "report.html" in script and '"comment"' in script


# ---------------------------------------------------------------- YAML blocks


def yaml_blocks() -> list[docs.Block]:
    found = docs.blocks("yaml")
    assert len(found) >= 15
    return found


def as_workflow(block: object) -> dict | None:
    """A workflow, a job's steps or a job's permissions as a complete workflow; None for anything else."""
    def job(**extra):
        return {"on": {"pull_request": {}}, "permissions": {"contents": "read"},
                "jobs": {"j": {"runs-on": "ubuntu-latest", **extra}}}

    if isinstance(block, dict) and "jobs" in block:
        return {"on": block.get(True, block.get("on", {"pull_request": {}})),
                **{k: v for k, v in block.items() if k not in (True, "on")}}
    if isinstance(block, list) and block and all(isinstance(s, dict) and ("uses" in s or "run" in s) for s in block):
        return job(steps=block)
    if isinstance(block, dict) and set(block) == {"permissions"}:
        return job(permissions=block["permissions"], steps=[{"run": "true"}])
    return None


def test_every_yaml_block_is_valid(tmp_path):
    from pydantic import TypeAdapter

    from gate.kinds.heuristic.rubric import Metric, Rule

    workflows, unclassified = [], []
    for block in yaml_blocks():
        data = yaml.safe_load(block.body)
        if isinstance(data, dict) and "suites" in data:  # a complete gate.yml
            parse_config(block.body, block.where, metrics=KINDS)
        elif (flow := as_workflow(data)) is not None:
            path = tmp_path / f"{len(workflows)}.yml"
            path.write_text(yaml.safe_dump(flow, sort_keys=False))
            workflows.append((block.where, path))
        elif isinstance(data, dict) and set(data) <= set(BASE_CONFIG) | {"waivers", "history", "alpha",
                                                                         "correction", "inconclusive"}:
            parse_config(yaml.safe_dump({**BASE_CONFIG, **data}), block.where, metrics=KINDS)
        elif isinstance(data, list) and all(isinstance(r, dict) and "label" in r for r in data):
            TypeAdapter(list[Rule]).validate_python(data)  # rubric indicators
        elif isinstance(data, dict) and all(isinstance(m, dict) and {"weight", "base"} <= set(m)
                                            for m in data.values()):
            TypeAdapter(dict[str, Metric]).validate_python(data)  # a rubric category's metrics
        else:
            unclassified.append(block.where)
    assert not unclassified, f"teach tests/test_docs.py to validate these YAML blocks: {unclassified}"
    assert len(workflows) >= 8
    done = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                           *(str(p) for _, p in workflows)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{[w for w, _ in workflows]}\n{done.stdout}{done.stderr}"


def test_the_workflow_validation_catches_a_broken_step(tmp_path):
    """The check above can fail: a step with a misspelt key is refused by the same schema."""
    path = tmp_path / "bad.yml"
    path.write_text(yaml.safe_dump(as_workflow([{"uses": "actions/checkout@v6", "wiht": {}}]), sort_keys=False))
    done = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0


# ---------------------------------------------------------------- record examples


def test_every_json_block_parses():
    for block in docs.blocks("json"):
        try:
            json.loads(block.body)
        except json.JSONDecodeError:
            for line in block.body.splitlines():  # JSON Lines
                assert not line.strip() or json.loads(line), block.where


def file_sets() -> dict[Path, list[docs.Block]]:
    """Per page, the blocks titled with a file name: a gate.yml and the input files it names."""
    found: dict[Path, list[docs.Block]] = {}
    for block in docs.blocks():
        if block.title:
            found.setdefault(block.file, []).append(block)
    return found


def test_the_readme_shows_one_record_per_suite_kind_and_they_load(tmp_path):
    sets = file_sets()
    assert docs.README in sets
    for page, titled in sets.items():
        work = tmp_path / page.stem
        for block in titled:
            (work / block.title).parent.mkdir(parents=True, exist_ok=True)
            (work / block.title).write_text(block.body)
        assert (work / "gate.yml").exists(), f"{page}: titled files without the gate.yml that reads them"
        config = load_config(work / "gate.yml", metrics=KINDS)
        if page == docs.README:
            assert sorted(s.kind for s in config.suites.values()) == sorted(KINDS)
        for name, suite in config.suites.items():
            data = KINDS[suite.kind].load(name, suite, work)  # raises a located InputError when invalid
            assert data is not None, name


# ---------------------------------------------------------------- commands


def invocations() -> list[tuple[str, list[str]]]:
    """Every `llm-gate …` command in a bash block, as argument lists (up to a shell operator or comment)."""
    found = []
    for block in docs.blocks("bash"):
        for line in block.body.replace("\\\n", " ").splitlines():  # continuation lines joined
            words = shlex.split(line, comments=True)
            for start in (i for i, w in enumerate(words) if w == "llm-gate"):
                args = []
                for word in words[start + 1:]:
                    if word in ("&&", "||", "|", ";", "then", "else", "fi", "done") or word.endswith(";"):
                        args.append(word.rstrip(";")) if word.endswith(";") and word != ";" else None
                        break
                    args.append(word)
                found.append((block.where, args))
    return found


def test_every_bash_block_is_valid_bash():
    for block in docs.blocks("bash"):
        done = subprocess.run(["bash", "-n"], input=block.body, capture_output=True, text=True)
        assert done.returncode == 0, f"{block.where}: {done.stderr}"


def parse(args: list[str]) -> str | None:
    """Parse `llm-gate ARGS` with the real command tree, invoking nothing: the error, or None when it parses.

    Typer vendors its own click, so errors are told apart by class name."""
    from typer.main import get_command

    from gate.cli import app

    command, rest, name = get_command(app), list(args), "llm-gate"
    while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
        sub = command.commands.get(rest[0])
        if sub is None:
            return f"no command {rest[0]!r}"
        command, name, rest = sub, f"{name} {rest[0]}", rest[1:]
    try:
        command.make_context(name, rest, resilient_parsing=False)
    except Exception as exc:  # noqa: BLE001 - sorted by kind below
        kinds = {cls.__name__ for cls in type(exc).__mro__}
        if "Exit" in kinds:
            return None  # --version, --help
        if "BadParameter" in kinds and "does not exist" in str(exc):
            return None  # a documented path that does not exist here, not a bad option
        return f"{type(exc).__name__}: {exc}"
    return None


def test_every_documented_command_and_option_exists():
    commands = invocations()
    assert len(commands) >= 10
    bad = [f"{where}: llm-gate {' '.join(args)}: {error}" for where, args in commands if (error := parse(args))]
    assert not bad, bad


@pytest.mark.parametrize("args", [["run", "--no-such-option"], ["baseline", "blesss"], ["sample"],
                                  ["run", "--fail-on"]])
def test_the_command_check_catches_wrong_commands_and_options(args):
    assert parse(args) is not None


def llm_gate(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "llm-gate"), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={"PATH": str(BIN), "HOME": str(cwd), "HF_HUB_OFFLINE": "1"})


def documented(*prefix: str) -> list[str]:
    """The documented argument lists of `llm-gate PREFIX…`; the test fails when the docs show none."""
    found = [args for _, args in invocations() if args[:len(prefix)] == list(prefix)]
    assert found, f"the docs no longer show `llm-gate {' '.join(prefix)}`"
    return found[0]


def test_the_getting_started_commands_run(tmp_path):
    """From an empty directory, as the getting-started page says: init, schema, validate; and models list."""
    init = llm_gate(*documented("init"), cwd=tmp_path)
    assert init.returncode == 0, init.stdout + init.stderr
    assert (tmp_path / "gate.yml").exists() and (tmp_path / ".github" / "workflows").is_dir()
    schema = llm_gate(*documented("schema"), cwd=tmp_path)
    assert schema.returncode == 0, schema.stderr
    assert json.loads((tmp_path / "gate.schema.json").read_text())["title"] == "llm-quality-gate gate.yml"
    validate = llm_gate(*documented("validate"), cwd=tmp_path)  # init's starter is valid and runs offline
    assert validate.returncode == 0, validate.stdout + validate.stderr
    models = llm_gate("models", "list", cwd=tmp_path)
    assert models.returncode == 0 and "sentence-transformers/all-MiniLM-L6-v2" in models.stdout, models.stdout


def test_the_version_command_runs():
    done = llm_gate("--version", cwd=REPO)
    assert done.returncode == 0 and done.stdout.startswith("llm-gate ")
    assert "`llm-gate --version`" in docs.text()


def test_the_readme_links_resolve():
    """GitHub renders the README outside the site, so mkdocs cannot check its links: every relative one must
    name a file of the repository."""
    import re

    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", docs.README.read_text())
    relative = [link for link in links if "://" not in link]
    assert len(relative) >= 15
    missing = [link for link in relative if not (REPO / link).exists()]
    assert not missing, missing
