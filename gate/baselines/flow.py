"""Around a run: the default branch's history (read from the history branch or the file, recorded on
default-branch runs) and the files a pull request changes (to flag changed baselines).

Nothing here changes a verdict: a history that cannot be read or written becomes a note in the report
and a warning in the log. The GitHub client comes in as a parameter (`HistoryRemote`, which the publishing
layer's `GitHubPublisher` satisfies), so this layer never imports the publishing layer above it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import gate.baselines.history as history
from gate import io
from gate.baselines.history import ALREADY, Entry
from gate.config import GateConfig
from gate.config.settings import Settings
from gate.errors import PublishError
from gate.io import paths, vcs

RECORDED_EVENTS = frozenset({"push", "workflow_dispatch", "schedule"})


class HistoryRemote(Protocol):
    """What the history needs from GitHub (the publishing layer's `GitHubPublisher`); failures raise
    `gate.errors.PublishError`."""

    def read_branch_file(self, branch: str, path: str) -> bytes | None: ...

    def append_line_to_branch_file(self, branch: str, path: str, line: str, message: str,
                                   unless: Callable[[bytes], bool] | None = None) -> str: ...

    def pull_request_files(self, number: int) -> list[str] | None: ...

    def compared_files(self, base: str, head: str) -> list[str] | None: ...


@dataclass(frozen=True)
class HistoryRead:
    entries: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def history_file(config: GateConfig, base_dir: Path) -> Path:
    assert config.history is not None
    name = config.history.file_name(config.name)
    return paths.confine(base_dir / name, base_dir, "history.path", name)


def read_history(config: GateConfig, base_dir: Path, publisher: HistoryRemote | None) -> HistoryRead:
    if config.history is None:
        return HistoryRead()
    path = history_file(config, base_dir)
    branch = config.history.branch
    notes: list[str] = []
    if branch and publisher is not None:
        name = config.history.file_name(config.name)
        try:
            raw = publisher.read_branch_file(branch, name)
        except PublishError as exc:
            notes.append(f"history: could not read `{name}` on branch `{branch}` ({exc}); "
                         f"using {io.display_path(path)}")
        else:
            entries, warnings = history.parse(raw or b"", f"{branch}:{name}")
            return HistoryRead(_ours(entries, config), notes + warnings)
    entries, warnings = history.read(path)
    return HistoryRead(_ours(entries, config), notes + warnings)


def _ours(entries: list[Entry], config: GateConfig) -> list[Entry]:
    """This gate's entries, each suite's metrics under the names its kind uses now (`SuiteBase.renamed`)."""
    names = {name: type(suite).renamed for name, suite in config.suites.items() if type(suite).renamed}
    return [e.renamed(names) for e in entries if e.gate == config.name]


def should_record(config: GateConfig, settings: Settings, event: dict[str, Any] | None,
                  force: bool | None) -> tuple[bool, str | None]:
    """Record this run? Default: only a push (or dispatch/schedule) to the default branch, in Actions."""
    if config.history is None:
        return False, None
    if force is not None:
        return force, None
    github = settings.github
    if not github.in_actions or github.event_name not in RECORDED_EVENTS:
        return False, None
    default = config.history.default_branch or ((event or {}).get("repository") or {}).get("default_branch")
    if not default:
        return False, "history: the default branch is unknown (set history.default_branch); this run is not recorded"
    return github.ref == f"refs/heads/{default}", None


def revision(settings: Settings, base_dir: Path, commit: str | None) -> tuple[str | None, str | None]:
    """(commit, ref) a history entry records: the run's (Actions: GITHUB_SHA, GITHUB_REF), else git's HEAD and
    branch, so that `--record-history` outside Actions records a re-run of one commit once, like Actions does."""
    return commit or vcs.head_commit(base_dir), settings.github.ref or vcs.head_ref(base_dir)


def record(config: GateConfig, base_dir: Path, entry: Entry, publisher: HistoryRemote | None,
           push: bool, known: list[Entry]) -> list[str]:
    """Append the run to the history file, and to the history branch when one is configured.

    `known` (read at the start of the run) only saves work: each store re-checks "already recorded" where it
    appends — the file under its lock, the branch on every compare-and-swap attempt — so concurrent jobs
    recording one commit add one line."""
    assert config.history is not None
    twice = f"history: commit {(entry.commit or '')[:7]} is already recorded; not recorded twice"
    if entry.commit and any(e.commit == entry.commit for e in known):
        return [twice]
    path = history_file(config, base_dir)
    notes = []
    try:
        appended = history.append(path, entry)
        notes.append(f"history: recorded this run in {io.display_path(path)}" if appended
                     else f"{twice} ({io.display_path(path)})")
    except OSError as exc:
        notes.append(f"history: could not append to {io.display_path(path)}: {exc.strerror or exc}")
    branch = config.history.branch
    if branch and not push:
        notes.append(f"history: not pushed to branch `{branch}` (publishing is off)")
    elif branch and publisher is None:
        notes.append(f"history: not pushed to branch `{branch}`: no GitHub token or repository")
    elif branch and publisher is not None:
        name = config.history.file_name(config.name)
        try:
            action = publisher.append_line_to_branch_file(branch, name, entry.to_json(),
                                                          f"llm-quality-gate: record {config.name} at "
                                                          f"{(entry.commit or entry.time)[:12]}",
                                                          unless=lambda raw: history.recorded(raw, entry))
            notes.append(f"{twice} (branch `{branch}`)" if action == ALREADY
                         else f"history: {action} on branch `{branch}` ({name})")
        except PublishError as exc:
            notes.append(f"history: could not push to branch `{branch}`: {exc}")
    return notes


def changed_files(settings: Settings, event: dict[str, Any] | None, base_dir: Path,
                  publisher: HistoryRemote | None, number: int | None = None) -> list[Path] | None:
    """Files the pull request (or the merge queue's candidate) changes (git first, the API where the clone is too
    shallow); None: unknown. `number`: the pull request a `workflow_run` job gates (from GitHub, never from an
    artifact), whose files only the API can list."""
    group = (event or {}).get("merge_group")
    if settings.github.event_name == "merge_group" and isinstance(group, dict):
        return _merge_group_files(settings, group, base_dir, publisher)
    pull = (event or {}).get("pull_request")
    if not isinstance(pull, dict):
        if settings.github.event_name != "workflow_run" or number is None or publisher is None:
            return None
        remote, gated = publisher, number
        return _remote_files(settings, base_dir, lambda: remote.pull_request_files(gated))
    base = (pull.get("base") or {}).get("sha")
    if isinstance(base, str) and base:
        found = vcs.changed_files(base_dir, base)
        if found is not None:
            return found
    number = pull.get("number")
    if publisher is None or not isinstance(number, int):
        return None
    return _remote_files(settings, base_dir, lambda: publisher.pull_request_files(number))


def _merge_group_files(settings: Settings, group: dict[str, Any], base_dir: Path,
                       publisher: HistoryRemote | None) -> list[Path] | None:
    """A merge queue's candidate (`head_sha`) against the branch it merges into (`base_sha`): what its pull
    requests change together, from git where the clone has both commits, else GitHub's compare API."""
    base, head = group.get("base_sha"), group.get("head_sha")
    if not all(isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{7,64}", sha) for sha in (base, head)):
        return None  # only commit ids reach git's command line
    assert isinstance(base, str) and isinstance(head, str)
    found = vcs.changed_files(base_dir, base, head)
    if found is not None or publisher is None:
        return found
    return _remote_files(settings, base_dir, lambda: publisher.compared_files(base, head))


def _remote_files(settings: Settings, base_dir: Path, fetch: Callable[[], list[str] | None]) -> list[Path] | None:
    """The files GitHub names (`fetch`), as paths under the checkout; None when GitHub cannot say."""
    try:
        names = fetch()
    except PublishError:
        return None
    if names is None:
        return None
    root = vcs.toplevel(base_dir) or settings.github.workspace or Path.cwd()
    return [root / name for name in names]
