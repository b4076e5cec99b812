"""The workflow's `model_dir` (action input): searched first, filled from the hub on a miss — the one download
HF_HUB_OFFLINE lets through — so with actions/cache on it a job pulls a model at most once per cache key.

The hub is a fake `snapshot_download` (no network in tests): it serves a tiny BERT built offline in the hub's
cache layout, counts downloads, refuses like the real client while `huggingface_hub.constants.HF_HUB_OFFLINE`
holds, and can be switched off (a runner without network). Cache look-ups (`local_files_only=True`) go to the
real function, which reads what the fake wrote.
"""

from __future__ import annotations

import fnmatch
import shutil
import sys
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import constants as hf_constants
from huggingface_hub.errors import LocalEntryNotFoundError

from gate.cli import main
from gate.config.settings import Settings
from gate.errors import ConfigError, ExitCode, ModelUnavailable
from gate.runtime.engines import models
from gate.runtime.engines.models import ModelSource
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.tiny_models import build_tiny_bert

REAL_SNAPSHOT_DOWNLOAD = huggingface_hub.snapshot_download
MODEL = "org/tiny-bert"
COMMIT = "4bc1e5d0c0ffee0123456789abcdef0123456789"


class FakeHub:
    def __init__(self, repos: dict[str, Path]):
        self.repos = repos
        self.up = True
        self.downloads: list[tuple[str, Path]] = []  # (repo id, cache dir) of every download it served

    def __call__(self, repo_id: str, *, cache_dir: str | None = None, local_files_only: bool = False,
                 allow_patterns: list[str] | None = None, **kwargs: object) -> str:
        if local_files_only:
            return REAL_SNAPSHOT_DOWNLOAD(repo_id, cache_dir=cache_dir, local_files_only=True,
                                          allow_patterns=allow_patterns, **kwargs)
        if hf_constants.HF_HUB_OFFLINE:  # what the real client raises when HF_HUB_OFFLINE is set
            raise LocalEntryNotFoundError("Cannot find an appropriate cached snapshot folder for the specified "
                                          "revision on the local disk and outgoing traffic has been disabled.")
        if not self.up:
            raise LocalEntryNotFoundError("Got: ConnectError: [Errno 101] Network is unreachable\nAn error happened "
                                          "while trying to locate the files on the Hub. Please check your internet "
                                          "connection and try again.")
        if repo_id not in self.repos:
            raise huggingface_hub.errors.RepositoryNotFoundError(f"404 Client Error: Repository Not Found ({repo_id})")
        assert cache_dir is not None
        root = Path(cache_dir).expanduser().resolve()  # as the real one: it returns an absolute path
        self.downloads.append((repo_id, root))
        repo = root / ("models--" + repo_id.replace("/", "--"))
        snapshot = repo / "snapshots" / COMMIT
        snapshot.mkdir(parents=True, exist_ok=True)
        for file in self.repos[repo_id].iterdir():
            if allow_patterns is None or any(fnmatch.fnmatch(file.name, p) for p in allow_patterns):
                shutil.copy(file, snapshot / file.name)
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(COMMIT)
        return str(snapshot)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    return Path(build_tiny_bert(tmp_path_factory.mktemp("hub") / "tiny-bert"))


@pytest.fixture
def hub(tiny_bert, tmp_path, monkeypatch) -> FakeHub:
    """The fake hub in place; the process as the image runs it: HF_HUB_OFFLINE on, an empty HF cache."""
    assert hf_constants.HF_HUB_OFFLINE, "tests run with HF_HUB_OFFLINE=1 (tests/conftest.py)"
    for name in ("LLM_GATE_MODEL_DIR", "INPUT_MODEL_DIR", "INPUT_CONFIG", "GITHUB_ACTIONS", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    fake = FakeHub({MODEL: tiny_bert})
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)
    return fake


def drift_gate(directory: Path) -> Path:
    """A drift gate whose BERTScore backbone is a hub model (the tiny BERT the fake hub serves)."""
    old = feedback(("Loop", "The loop runs in quadratic time, which is too slow.", 1.0))
    new = feedback(("Loop", "The loop is quadratic and too slow for large inputs.", 1.0))
    write_exercise(directory / "baselines", 1, [submission(1, old), submission(2, old)])
    write_candidates(directory / "outputs" / "m.jsonl", [candidate(1, 1, "m", new), candidate(1, 2, "m", old)])
    (directory / "gate.yml").write_text(
        "version: 1\n"
        f"models:\n  bertscore: {{model: {MODEL}, layer: 2}}\n"
        "suites:\n  fb: {kind: drift, baseline: baselines/*.json, candidates: outputs/*.jsonl}\n")
    return directory / "gate.yml"


def run_gate(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["llm-gate", *args])
    with pytest.raises(SystemExit) as caught:
        main()
    out, err = capsys.readouterr()
    return int(caught.value.code), out, err


# ---------------------------------------------------------------- the run, as the action runs it


def test_a_missing_model_is_pulled_once_and_a_filled_directory_needs_no_hub(in_tmp, hub, monkeypatch, capsys):
    drift_gate(in_tmp)
    monkeypatch.setenv("INPUT_MODEL_DIR", ".gate-models")
    code, out, err = run_gate(monkeypatch, capsys, "run", "--config", "gate.yml", "--no-publish")
    assert code in (ExitCode.PASSED, ExitCode.GATE_FAILED), err  # a verdict, not exit 3
    assert hub.downloads == [(MODEL, (in_tmp / ".gate-models").resolve())]
    assert (in_tmp / ".gate-models" / "models--org--tiny-bert" / "snapshots" / COMMIT / "config.json").is_file()
    assert f"llm-gate: {MODEL} is not in .gate-models: pulling it from the Hugging Face hub" in err
    assert hf_constants.HF_HUB_OFFLINE  # lifted for that one download only
    first = (in_tmp / "gate-report" / "report.json").read_text()

    hub.up = False  # the second job: its cache restored the directory, and the hub is out of reach
    shutil.rmtree(in_tmp / ".gate-cache", ignore_errors=True)  # the model is really loaded again
    code_again, _, err = run_gate(monkeypatch, capsys, "run", "--config", "gate.yml", "--no-publish")
    assert code_again == code, err
    assert len(hub.downloads) == 1 and "pulling" not in err
    assert _fingerprint_sources(first) == _fingerprint_sources((in_tmp / "gate-report" / "report.json").read_text())


def test_with_the_hub_out_of_reach_a_missing_model_exits_3_naming_it_the_directory_and_the_fix(
        in_tmp, hub, monkeypatch, capsys):
    drift_gate(in_tmp)
    hub.up = False
    monkeypatch.setenv("INPUT_MODEL_DIR", ".gate-models")
    code, _, err = run_gate(monkeypatch, capsys, "run", "--config", "gate.yml", "--no-publish")
    assert code == ExitCode.RUNTIME_FAILURE == 3, err
    assert f"could not download '{MODEL}' into .gate-models" in err and "Network is unreachable" in err
    assert f"llm-gate models pull {MODEL} --target .gate-models" in err and "actions/cache" in err
    assert "internal error" not in err and "Traceback" not in err
    assert hub.downloads == []


def test_without_a_model_dir_the_hub_stays_off(in_tmp, hub, monkeypatch, capsys):
    """No `model_dir`: nothing is pulled at run time, as before (exit 3 with `models pull` advice)."""
    drift_gate(in_tmp)
    code, _, err = run_gate(monkeypatch, capsys, "run", "--config", "gate.yml", "--no-publish")
    assert code == ExitCode.RUNTIME_FAILURE and f"llm-gate models pull {MODEL}" in err
    assert hub.downloads == []


def _fingerprint_sources(report: str) -> set[str]:
    """Where each model of a report was loaded from: a pulled and a cached model must fingerprint alike."""
    import json

    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("source"), str) and "model" in node:
                found.add(node["source"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(report))
    return found


# ---------------------------------------------------------------- resolution and the input itself


def test_the_model_dir_comes_first_and_the_hub_switch_returns(in_tmp, hub):
    settings = Settings.from_env({"INPUT_MODEL_DIR": ".gate-models", "LLM_GATE_MODEL_DIR": "/opt/baked",
                                  "HF_HUB_OFFLINE": "1"})
    assert settings.model_dir == Path(".gate-models") and settings.hub_offline
    assert settings.model_dirs == (Path(".gate-models"), Path("/opt/baked"))
    found = models.resolve(MODEL, base_dir=in_tmp, cache_dir=in_tmp / "cache", extra_dirs=settings.model_dirs,
                           hub_offline=True, pull_into=settings.model_dir)
    assert (found.source, found.revision) == (ModelSource.GATE_CACHE, COMMIT)
    again = models.resolve(MODEL, base_dir=in_tmp, cache_dir=in_tmp / "cache", extra_dirs=settings.model_dirs,
                           hub_offline=True, pull_into=settings.model_dir)
    assert again == found and len(hub.downloads) == 1 and hf_constants.HF_HUB_OFFLINE


def test_the_switch_is_restored_when_the_pull_fails(in_tmp, hub):
    hub.up = False
    with pytest.raises(ModelUnavailable) as caught:
        models.resolve(MODEL, base_dir=in_tmp, cache_dir=in_tmp / "cache", hub_offline=True,
                       pull_into=Path("m"))
    assert caught.value.exit_code == ExitCode.RUNTIME_FAILURE and hf_constants.HF_HUB_OFFLINE


@pytest.mark.parametrize("text", ["/github/workspace/models", "../models", "models/../../x", "~/models"])
def test_a_model_dir_that_is_absolute_or_climbs_out_is_invalid_input(text, in_tmp, hub, monkeypatch, capsys):
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"INPUT_MODEL_DIR": text})
    problem = caught.value.problems[0]
    assert (problem.field, problem.found) == ("model_dir", repr(text)) and "relative" in problem.expected
    drift_gate(in_tmp)
    monkeypatch.setenv("INPUT_MODEL_DIR", text)
    code, _, err = run_gate(monkeypatch, capsys, "run", "--config", "gate.yml", "--no-publish")
    assert code == ExitCode.INVALID_INPUT and "model_dir" in err and "Traceback" not in err
    assert hub.downloads == []


def test_a_model_dir_symlinked_out_of_the_workspace_is_refused_before_any_download(in_tmp, hub, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (in_tmp / ".gate-models").symlink_to(outside, target_is_directory=True)  # committed by a pull request
    with pytest.raises(ConfigError) as caught:
        models.resolve(MODEL, base_dir=in_tmp, cache_dir=in_tmp / "cache", pull_into=Path(".gate-models"))
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    assert caught.value.problems[0].field == "model_dir" and "outside it" in caught.value.problems[0].found
    assert hub.downloads == [] and not any(outside.iterdir())


def test_models_list_searches_the_model_dir(in_tmp, hub, monkeypatch, capsys):
    drift_gate(in_tmp)
    monkeypatch.setenv("INPUT_MODEL_DIR", ".gate-models")
    code, out, _ = run_gate(monkeypatch, capsys, "models", "list")
    assert code == ExitCode.RUNTIME_FAILURE and f"NOT AVAILABLE OFFLINE (llm-gate models pull {MODEL})" in out
    models.pull(MODEL, in_tmp / ".gate-models", online=True)
    code, out, _ = run_gate(monkeypatch, capsys, "models", "list")
    assert code == 0 and f"gate model cache: {in_tmp / '.gate-models'}" in out
