"""Where a run reads and writes (SECURITY.md, the trust boundary): the trusted tree its gate comes from, the root
its candidate data are read under, and the folders whose files it hands back to the workspace's owner."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gate.config.loader import load_config
from gate.config.settings import Settings
from gate.errors import GateError
from gate.io import paths
from gate.kinds import KINDS


def trusted_root(settings: Settings, config_path: Path) -> Path:
    """The root of the tree the gate comes from: the base checkout, else the workspace holding gate.yml."""
    if settings.base_checkout is not None:
        return settings.base_checkout.resolve()
    return paths.workspace_for(config_path.resolve().parent)


def workspace(settings: Settings) -> Path:
    """The workflow's workspace (GITHUB_WORKSPACE), else the working directory: the pull request's tree."""
    return (settings.github.workspace or Path.cwd()).resolve()


def data_root(settings: Settings, config_path: Path) -> paths.DataRoot | None:
    """Where the candidate data are read when that is not the trusted tree (None: beside gate.yml)."""
    if settings.candidates_dir is not None:
        return paths.DataRoot(trusted_root(settings, config_path), settings.candidates_dir.resolve())
    if settings.base_checkout is not None:
        return paths.DataRoot(settings.base_checkout.resolve(), workspace(settings))
    return None


@contextmanager
def reading_data(data: paths.DataRoot | None) -> Iterator[None]:
    """Inside the block, the suites' candidate data are read from `data` (None: beside gate.yml, as ever)."""
    with paths.use(paths.current().reading_data_from(data)):
        yield


def written_folders(settings: Settings) -> list[Path]:
    """Where a run writes: the report and shard directory, the cache, the model directory, the history's folder
    (from gate.yml where it loads; else what the workflow named)."""
    try:
        config = load_config(settings.config_path, metrics=KINDS, output_dir_given=settings.output_dir is not None)
    except GateError:
        return [p for p in (settings.output_dir, settings.model_dir) if p is not None]
    history = [settings.config_path.resolve().parent / config.history.file_name(config.name)] \
        if config.history else []
    return [settings.output_dir or Path(config.report.output_dir), Path(config.runtime.cache_dir),
            *([settings.model_dir] if settings.model_dir else []), *[h.parent for h in history]]
