"""Confining the files a config can make the gate read to the workspace.

A gate.yml can come from the pull request under test. Without a limit it could point an input glob,
a rubric or a model at any file the runner can read — `/proc/self/environ`, `~/.ssh/`, the runner's
credentials — through an absolute path, `..`, or a symlink committed into the repository, and a
record's text ends up in the report and the PR comment. So every path a config names is resolved
here, with symlinks followed, and must land inside the workspace:

- the workspace is `GITHUB_WORKSPACE` when it contains gate.yml, else the git work tree that
  contains gate.yml, else gate.yml's own directory;
- reading outside it needs an opt-in that the config itself cannot give: `--allow-paths-outside-workspace`
  on the command line, the action input `allow_paths_outside_workspace: true`, or
  `LLM_GATE_ALLOW_PATHS_OUTSIDE_WORKSPACE=1` — all set by the workflow, not by the files it checks.

The policy for one command is installed with `use(PathPolicy.from_env(...))` (by `gate.cli.main`);
without one, the strict default applies (workspace from gate.yml's location, nothing outside it).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path

from gate.errors import ConfigError, Problem

OPT_IN_FLAG = "--allow-paths-outside-workspace"
OPT_IN_INPUT = "allow_paths_outside_workspace"
OPT_IN_ENV = "LLM_GATE_ALLOW_PATHS_OUTSIDE_WORKSPACE"
OPT_IN_INPUT_ENV = "INPUT_ALLOW_PATHS_OUTSIDE_WORKSPACE"  # the action input, as the runner passes it
FIX = (f"move the file into the workspace (paths in gate.yml are relative to gate.yml); if reading it is "
       f"intended, the workflow must allow it: `llm-gate run {OPT_IN_FLAG}`, the action input "
       f"`{OPT_IN_INPUT}: true` or {OPT_IN_ENV}=1")
WRITE_FIX = (f"use a relative path (relative to the working directory); if a place outside the workspace is "
             f"intended, pass {OPT_IN_FLAG} in the workflow (or the action input `{OPT_IN_INPUT}: true`, or "
             f"{OPT_IN_ENV}=1)")


@dataclass(frozen=True)
class DataRoot:
    """Where the candidate data of a run comes from when it is not the trusted tree (SECURITY.md, the trust
    boundary): a data pattern of gate.yml (`candidates:`, `records:`) that is relative to a folder of `trusted`
    is read from the same folder under `root`, and only inside `root` (symlinks followed)."""

    trusted: Path  # the tree gate.yml comes from: the base branch's checkout
    root: Path  # the pull request's tree, or the downloaded artifact holding its candidate files


@dataclass(frozen=True)
class PathPolicy:
    github_workspace: Path | None = None  # GITHUB_WORKSPACE, when the run has one
    allow_outside: bool = False
    data: DataRoot | None = None  # None: the candidate data are read beside gate.yml, like everything else

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> PathPolicy:
        text = (environ.get(OPT_IN_INPUT_ENV, "").strip()
                or environ.get(OPT_IN_ENV, "").strip()).lower()
        workspace = environ.get("GITHUB_WORKSPACE", "").strip()
        return cls(github_workspace=Path(workspace) if workspace else None,
                   allow_outside=text in ("1", "true", "yes", "on"))

    def allowing_outside(self) -> PathPolicy:
        return replace(self, allow_outside=True)

    def reading_data_from(self, data: DataRoot | None) -> PathPolicy:
        return replace(self, data=data)


_policy: ContextVar[PathPolicy] = ContextVar("gate_path_policy", default=PathPolicy())  # noqa: B039 (frozen)


@contextmanager
def use(policy: PathPolicy) -> Iterator[PathPolicy]:
    """Apply `policy` to every path resolved inside the block (one command)."""
    token = _policy.set(policy)
    try:
        yield policy
    finally:
        _policy.reset(token)


def current() -> PathPolicy:
    return _policy.get()


def workspace_for(base_dir: Path) -> Path:
    """The workspace of a gate whose gate.yml lives in `base_dir` (resolved, symlinks followed)."""
    base = base_dir.resolve()
    declared = _policy.get().github_workspace
    if declared is not None and _within(base, declared.resolve()):
        return declared.resolve()
    for directory in (base, *base.parents):
        if (directory / ".git").exists():
            return directory
    return base


def data_place(base_dir: Path, field: str) -> tuple[Path, Path | None, Problem | None]:
    """Where a data pattern relative to `base_dir` (gate.yml's folder) is read: (the folder, the root reads must stay
    inside — None: the workspace rule —, a problem). Without a data root, `base_dir` itself."""
    data = _policy.get().data
    if data is None:
        return base_dir, None, None
    trusted, root = Path(os.path.realpath(data.trusted)), Path(os.path.realpath(data.root))
    folder = Path(os.path.realpath(base_dir))
    if not _within(folder, trusted):
        return base_dir, root, Problem(field=field, expected=f"gate.yml inside the base checkout {trusted}",
                                       found=f"gate.yml in {folder}", fix="name gate.yml relative to the repository "
                                       "root (the action input `config`)")
    return root / folder.relative_to(trusted), root, None


def outside_data(path: Path, root: Path, field: str, shown: str | None = None) -> Problem | None:
    """A problem when a candidate file (symlinks followed) leaves the data root: the pull request's files may not
    lead the gate to the trusted tree's or the runner's files. The workflow's opt-in does not widen it."""
    target = Path(os.path.realpath(path))
    if _within(target, Path(os.path.realpath(root))):
        return None
    where = f"{shown!r} resolves to {target}" if shown and str(target) != shown else repr(str(target))
    return Problem(field=field, expected=f"a file inside the candidate data {root}", found=f"{where}, outside it",
                   fix="candidate files come from the pull request's run: upload plain files, not links")


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def outside(path: Path, base_dir: Path, field: str, shown: str | None = None, *, also_inside: Path | None = None,
            fix: str = FIX) -> Problem | None:
    """A problem when `path` (symlinks followed) leaves the workspace and the run does not allow it.

    A path that does not exist yet (an output directory) is resolved through its deepest existing
    ancestor, so a committed symlink on the way is followed too. `also_inside`: a second allowed root,
    for paths relative to the working directory (the workflow chose it, not gate.yml)."""
    if _policy.get().allow_outside:
        return None
    root = workspace_for(base_dir)
    target = Path(os.path.realpath(path))  # non-strict: follows every existing component, dangling links too
    roots = [root, *([Path(os.path.realpath(also_inside))] if also_inside is not None else [])]
    if any(_within(target, r) for r in roots):
        return None
    where = f"{shown!r} resolves to {target}" if shown and str(target) != shown else f"{str(target)!r}"
    expected = f"a path inside the workspace {root}"
    if len(roots) > 1 and not _within(roots[1], root):
        expected += f" or the working directory {roots[1]}"
    return Problem(field=field, expected=expected, found=f"{where}, outside it", fix=fix)


def confine(path: Path, base_dir: Path, field: str, shown: str | None = None) -> Path:
    """`path`, or a ConfigError naming the field, the path, the workspace and the fix."""
    problem = outside(path, base_dir, field, shown)
    if problem is not None:
        raise ConfigError("a path in the config leaves the workspace", [problem])
    return path


def literal_prefix(pattern: str) -> str:
    """The part of a glob before its first wildcard component: `a/b/*.json` -> `a/b`."""
    parts = Path(pattern).parts
    kept = []
    for part in parts:
        if glob.has_magic(part):
            break
        kept.append(part)
    return str(Path(*kept)) if kept else "."
