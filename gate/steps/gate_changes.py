"""The pull request's own gate, read beside the base branch's that judges it (SECURITY.md, the trust boundary).

Three ways a run knows what the pull request proposes for its gate:

- **a base checkout** (`base_checkout`, the single-job recipe): the gate comes from the base branch's checkout, and
  the workspace is the pull request's tree — its gate.yml and gate files are read from there as data and compared;
- **the trusted job** (`candidates_dir`, the `workflow_run` recipe): the workspace is the base branch; the pull
  request's gate.yml and the list of files it changes come from GitHub (its head commit), never from its artifact;
- **neither** (a pull request run on its own tree): the run applies the pull request's gate, the changes it makes to
  its gate files are found from its changed files, and the base branch's gate.yml from GitHub where it can be read.

Nothing read here is applied: it becomes `GateChanges`, which the judge weighs by the base branch's `gate_changes`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Protocol

from gate.config import GateConfig
from gate.config.changes import GateChange, GateChanges, compare_configs, compare_files
from gate.config.loader import parse_config
from gate.config.settings import Settings
from gate.errors import GateError, PublishError
from gate.io import trees
from gate.kinds import KINDS
from gate.results import SuiteResult
from gate.steps.places import trusted_root, workspace


class GateSource(Protocol):
    """What the trusted job reads from GitHub (`gate.publish.github.client.GitHubPublisher` is one)."""

    def read_branch_file(self, branch: str, path: str) -> bytes | None: ...
    def pull_request_files(self, number: int) -> list[str] | None: ...


def gate_files(config: GateConfig, folder: str) -> dict[str, str]:
    """Repository-relative patterns of the gate's own files (→ their role): snapshots, baselines, rubric files.
    `folder`: gate.yml's folder relative to the repository root."""
    def under(pattern: str) -> str:
        return posixpath.normpath(posixpath.join(folder, pattern)) if folder else posixpath.normpath(pattern)

    found = {under(config.baselines.dir) + "/**/*": "snapshot"}
    for suite in config.suites.values():
        for pattern in getattr(suite, "baseline", None) or ():
            found[under(pattern)] = "baseline"
        rubric = getattr(suite, "rubric", None)
        if isinstance(rubric, str) and ("/" in rubric or rubric.endswith((".yml", ".yaml"))):
            found[under(rubric)] = "rubric"
    return found


def read_gate_changes(settings: Settings, config: GateConfig, config_path: Path, *, pull_request: int | None,
                      head_sha: str | None, base_sha: str | None, changed: Iterable[Path] | None,
                      source: GateSource | None) -> tuple[GateChanges | None, GateConfig | None]:
    """What the pull request changes in its gate (None outside a pull request or where nothing can be known), and
    its own gate.yml where it was read (to show what it would have judged; never to judge)."""
    root = trusted_root(settings, config_path)
    rel = config_path.resolve().relative_to(root).as_posix()
    folder = posixpath.dirname(rel)
    if settings.base_checkout is not None and settings.candidates_dir is None:
        return _from_tree(config, rel, folder, root, workspace(settings))
    if pull_request is None:
        return None, None
    if settings.candidates_dir is not None:
        if source is None or not head_sha:
            return GateChanges((), "GitHub", problems=("the pull request's gate could not be read: no token",)), None
        return _from_github(config, rel, folder, source, pull_request, head_sha)
    if changed is None:
        return None, None
    return _applied(config, rel, folder, root, changed, source, base_sha), None


def _from_tree(config: GateConfig, rel: str, folder: str, base: Path,
               proposed_root: Path) -> tuple[GateChanges, GateConfig | None]:
    changes: list[GateChange] = []
    problems: list[str] = []
    proposed = _parse(trees.read_inside(proposed_root / rel, proposed_root), rel, problems)
    if proposed is not None:
        changes += compare_configs(config, proposed)
    patterns = {**gate_files(config, folder), **(gate_files(proposed, folder) if proposed else {})}
    changes += compare_files(_roles(trees.digests(base, patterns), patterns),
                             _roles(trees.digests(proposed_root, patterns), patterns))
    return GateChanges(tuple(changes), "the pull request's checkout", problems=tuple(problems)), proposed


def _from_github(config: GateConfig, rel: str, folder: str, source: GateSource, number: int,
                 head_sha: str) -> tuple[GateChanges, GateConfig | None]:
    changes: list[GateChange] = []
    problems: list[str] = []
    text, files = _fetch(lambda: source.read_branch_file(head_sha, rel), problems, "its gate.yml"), \
        _fetch(lambda: source.pull_request_files(number), problems, "the files it changes")
    proposed = _parse(text, rel, problems) if text is not None or not problems else None
    if proposed is not None:
        changes += compare_configs(config, proposed)
    patterns = {**gate_files(config, folder), **(gate_files(proposed, folder) if proposed else {})}
    changes += _changed_gate_files(files or [], patterns)
    where = f"GitHub (pull request #{number} at {head_sha[:7]})"
    return GateChanges(tuple(changes), where, problems=tuple(problems)), proposed


def _applied(config: GateConfig, rel: str, folder: str, root: Path, changed: Iterable[Path],
             source: GateSource | None, base_sha: str | None) -> GateChanges:
    """No base branch's gate to judge with: the run used the pull request's; say what it changes."""
    names = []
    for path in changed:
        try:
            names.append(path.resolve().relative_to(root).as_posix())
        except ValueError:
            continue
    changes: list[GateChange] = []
    problems: list[str] = []
    if rel in names and source is not None and base_sha:
        base = _parse(_fetch(lambda: source.read_branch_file(base_sha, rel), problems, "the base branch's gate.yml"),
                      rel, problems)
        if base is not None:
            changes += compare_configs(base, config)
    elif rel in names:
        changes.append(GateChange("gate.yml changed", rel, None))
    changes += _changed_gate_files(names, gate_files(config, folder))
    return GateChanges(tuple(changes), "the pull request's changed files", applied=True, problems=tuple(problems))


# ---------------------------------------------------------------- helpers


def _changed_gate_files(names: Iterable[str], patterns: dict[str, str]) -> list[GateChange]:
    """The gate's files among the files a pull request changes (as GitHub or git lists them)."""
    return [GateChange(f"{role} changed", name, True) for name in sorted(set(names))
            if (role := _role_of(name, patterns)) is not None]


def _roles(found: dict[str, str], patterns: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {name: (_role_of(name, patterns) or "file", digest) for name, digest in found.items()}


def _role_of(name: str, patterns: dict[str, str]) -> str | None:
    """The role of the first pattern matching `name` (`dir/**/*` also matches a file right in `dir`)."""
    return next((role for pattern, role in patterns.items()
                 if fnmatchcase(name, pattern) or fnmatchcase(name, pattern.replace("/**/", "/"))), None)


def _parse(data: bytes | None, rel: str, problems: list[str]) -> GateConfig | None:
    if data is None:
        problems.append(f"the pull request has no readable {rel}")
        return None
    try:
        return parse_config(data.decode("utf-8", errors="replace"), rel, metrics=KINDS)
    except GateError as exc:
        found = getattr(exc, "problems", None)
        problems.append(f"the pull request's {rel} is invalid: {found[0].render() if found else exc}")
        return None


def _fetch(read: Callable[[], Any], problems: list[str], what: str) -> Any:
    try:
        return read()
    except PublishError as exc:
        problems.append(f"GitHub would not serve {what}: {exc}")
        return None


def proposed_gate(settings: Settings, config: GateConfig, results: Sequence[SuiteResult],
                  judged: Callable[[GateConfig], Any], *, pull_request: int | None, head_sha: str | None,
                  event: Mapping[str, Any] | None, changed: Iterable[Path] | None,
                  source: GateSource | None) -> GateChanges | None:
    """`read_gate_changes`, with the verdict the pull request's own gate.yml would give the same `results`
    (`judged(proposed)`: the run's judge under that config) where its suites score alike — shown, never applied."""
    changes, proposed = read_gate_changes(settings, config, settings.config_path, pull_request=pull_request,
                                          head_sha=head_sha, base_sha=base_sha(event), changed=changed, source=source)
    if changes is None or not changes.changes or proposed is None:
        return changes
    for result in results:
        suite = proposed.suites.get(result.name)
        if suite is None or suite.kind != result.kind:
            return replace(changes, proposed_note=f"not evaluated: its gate.yml has no {result.kind} suite "
                                                  f"{result.name!r}")
    try:
        outcome = judged(proposed)
    except Exception as exc:  # a check the measurements cannot answer: say so, never fail the run over it
        return replace(changes, proposed_note=f"not evaluated: {exc}")
    return replace(changes, proposed_verdict=outcome.counts_as.value)


def base_sha(event: Mapping[str, Any] | None) -> str | None:
    """The pull request's base commit as the event names it (None: not a pull_request event)."""
    pull = (event or {}).get("pull_request")
    sha = ((pull or {}).get("base") or {}).get("sha") if isinstance(pull, dict) else None
    return sha if isinstance(sha, str) and sha else None
