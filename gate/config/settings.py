"""Settings of one run, read from the environment ONCE and frozen.

The same code runs as a CLI, as the Docker action (inputs arrive as `INPUT_<NAME>` variables) and
against a local GitHub test server (everything GitHub-specific comes from the standard `GITHUB_*`
variables). Command-line options win over `INPUT_*`, which win over defaults. Nothing else in the gate reads
the environment for a run: the CLI builds these once and hands them down (the model directories and the hub
switch to the runtime, the judge's endpoints and key to the LLM grader). Below the CLI only low-level switches
stay: the interrupt handling and redaction of `gate.__main__`/`gate.cli`, and the runtime's test switch
`LLM_GATE_SIMULATE_CPU`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from gate.config import CommentMode, CommentWhen, GraderAccess
from gate.errors import ConfigError, Problem


class FailOn(str, Enum):
    FAIL = "fail"  # exit 1 only when the gate fails
    WARN = "warn"  # exit 1 on warnings too


CASSETTE_MODES = ("replay", "record-missing", "refresh")  # gate.generate.cassettes.Mode's values


@dataclass(frozen=True)
class GitHubContext:
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    repository: str | None = None
    event_name: str | None = None
    event_path: Path | None = None
    sha: str | None = None
    ref: str | None = None  # e.g. refs/heads/main
    run_id: str | None = None
    workspace: Path | None = None
    step_summary: Path | None = None
    output: Path | None = None
    in_actions: bool = False
    token: str | None = field(default=None, repr=False)  # never printed

    @property
    def run_url(self) -> str | None:
        if self.repository and self.run_id:
            return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"
        return None


@dataclass(frozen=True)
class Settings:
    config_path: Path
    output_dir: Path | None  # None: the config's report.output_dir
    suites: tuple[str, ...]  # empty: all suites
    publish: bool
    fail_on: FailOn
    github: GitHubContext
    models: tuple[str, ...] = ()  # empty: the suites' own `models:` filters
    comment: CommentMode | None = None  # overrides publish.comment of gate.yml
    comment_mode: CommentWhen | None = None  # overrides publish.comment_mode of gate.yml
    # What the check run is named and the sticky comment keyed by; None: gate.yml's, else derived from the gate's
    # name and the run's filter (gate.publish.bundle.derived_name), so a filtered job never takes the full run's place
    check_name: str | None = None
    comment_title: str | None = None
    check_run: bool | None = None  # overrides publish.check_run of gate.yml
    shard: str | None = None  # "i/N": compute only this shard of the model work (`run --shard`)
    record_history: bool | None = None  # None: record default-branch runs only
    # The LLM grader's allowed endpoints and key: the workflow's choice, never gate.yml's (gate.config.grader_access).
    grader: GraderAccess = field(default_factory=GraderAccess)
    shards: tuple[Path, ...] = ()  # `llm-gate merge`: shard files or directories; empty: <output_dir>/shards
    # Where models are found offline before the config's cache (LLM_GATE_MODEL_DIR, os.pathsep-separated), and
    # whether the Hugging Face hub is switched off (HF_HUB_OFFLINE): a model is then never pulled at run time.
    model_dirs: tuple[Path, ...] = ()
    hub_offline: bool = False
    # The workflow's model directory (input `model_dir`, relative to the workspace; first in `model_dirs`): a model
    # the run needs and finds nowhere is pulled into it from the hub, the one download HF_HUB_OFFLINE lets through,
    # so with actions/cache on it a job downloads a model at most once per cache key. None: never pulled at run time.
    model_dir: Path | None = None
    # The trust boundary (SECURITY.md): `base_checkout` is a checkout of the pull request's base branch, from which
    # gate.yml and everything it names but the candidate data are read (None: the workspace itself is the trusted
    # tree); `candidates_dir` is the root under which the candidate data (`candidates:` / `records:`) are read, in
    # the repository's layout (None: the workspace) — a downloaded artifact of the pull request's run.
    base_checkout: Path | None = None
    candidates_dir: Path | None = None
    # Generation (gate.yml's `generate:`): how the cassettes are used — "replay" (None: the default; a miss is an
    # error naming the command that records it), "record-missing" or "refresh" — and `generate_dry_run`: print the
    # calls, tokens and cost a generation would make, and stop before any call.
    cassettes: str | None = None
    generate_dry_run: bool = False

    @property
    def trusted_root(self) -> Path | None:
        """The tree the gate itself comes from when the workflow names one (None: the workspace)."""
        return self.base_checkout

    @classmethod
    def from_env(cls, environ: Mapping[str, str], *, config: str | None = None, output_dir: str | None = None,
                 suites: tuple[str, ...] = (), publish: bool | None = None,
                 fail_on: str | None = None, comment: str | None = None,
                 models: tuple[str, ...] = (), shard: str | None = None,
                 record_history: bool | None = None,
                 shards: tuple[str, ...] = (), comment_mode: str | None = None, check_name: str | None = None,
                 comment_title: str | None = None, base_checkout: str | None = None,
                 candidates_dir: str | None = None, cassettes: str | None = None,
                 generate_dry_run: bool = False) -> Settings:
        def value(name: str) -> str | None:
            text = environ.get(f"INPUT_{name.upper()}", "").strip()
            return text or None

        config_path = config or value("config") or "gate.yml"
        base = _workflow_dir(base_checkout or value("base_checkout"), "base_checkout")
        data = _workflow_dir(candidates_dir or value("candidates_dir"), "candidates_dir")
        selected = suites or tuple(_split(value("suites") or ""))
        fail_level = fail_on or value("fail_on") or "fail"
        if fail_level not in {f.value for f in FailOn}:
            raise ConfigError("invalid setting", [Problem(
                field="fail_on" if not fail_on else "--fail-on", expected="'fail' or 'warn'", found=repr(fail_level),
                fix="use `fail` (exit 1 on failures) or `warn` (exit 1 on warnings too)")])
        if publish is None:
            publish = _flag(value("publish"), "publish") is not False  # unset: publish
        how = comment or value("comment")
        if how is not None and how not in {c.value for c in CommentMode}:
            raise ConfigError("invalid setting", [Problem(
                field="comment" if not comment else "--comment", expected="'sticky', 'new' or 'off'",
                found=repr(how), fix="sticky edits one comment per gate; new posts one per run; off none")])
        when = comment_mode or value("comment_mode")
        if when is not None and when not in {c.value for c in CommentWhen}:
            raise ConfigError("invalid setting", [Problem(
                field="comment_mode" if not comment_mode else "--comment-mode",
                expected="'always', 'changes', 'failures' or 'off'", found=repr(when),
                fix="always comments every run; changes only when the run differs from the baseline; failures only "
                    "on fail, warn or inconclusive; off never")])
        github = _github(environ, value("github_token"))
        cassette_mode = cassettes or value("cassettes")
        if cassette_mode is not None and cassette_mode not in CASSETTE_MODES:
            raise ConfigError("invalid setting", [Problem(
                field="cassettes" if not cassettes else "--cassettes", expected=" or ".join(map(repr, CASSETTE_MODES)),
                found=repr(cassette_mode), fix="replay (CI's default: never a live call) answers from the committed "
                "cassettes; record-missing calls and records what they lack; refresh calls everything again")])
        output = output_dir or value("output_dir")
        pull_dir = _model_dir(value("model_dir"))
        return cls(
            config_path=base / config_path if base is not None and not Path(config_path).is_absolute()
            else Path(config_path),
            base_checkout=base,
            candidates_dir=data,
            output_dir=Path(output) if output else None,
            suites=selected,
            publish=publish,
            fail_on=FailOn(fail_level),
            github=github,
            models=models or tuple(_split(value("models") or "")),
            comment=CommentMode(how) if how else None,
            comment_mode=CommentWhen(when) if when else None,
            check_name=(check_name or "").strip() or value("check_name"),
            comment_title=(comment_title or "").strip() or value("comment_title"),
            check_run=_flag(value("check_run"), "check_run"),
            shard=shard or value("shard"),
            record_history=record_history if record_history is not None else _flag(
                value("record_history"), "record_history"),
            grader=GraderAccess.from_env(environ, github.token),
            shards=tuple(Path(p) for p in shards or (value("shards") or "").split()),
            model_dirs=(*((pull_dir,) if pull_dir else ()),
                        *(Path(p) for p in environ.get("LLM_GATE_MODEL_DIR", "").split(os.pathsep) if p)),
            hub_offline=environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"),
            model_dir=pull_dir,
            cassettes=cassette_mode,
            generate_dry_run=generate_dry_run,
        )


def _github(environ: Mapping[str, str], input_token: str | None) -> GitHubContext:
    def path(name: str) -> Path | None:
        text = environ.get(name, "").strip()
        return Path(text) if text else None

    return GitHubContext(
        api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
        server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
        repository=environ.get("GITHUB_REPOSITORY") or None,
        event_name=environ.get("GITHUB_EVENT_NAME") or None,
        event_path=path("GITHUB_EVENT_PATH"),
        sha=environ.get("GITHUB_SHA") or None,
        ref=environ.get("GITHUB_REF") or None,
        run_id=environ.get("GITHUB_RUN_ID") or None,
        workspace=path("GITHUB_WORKSPACE"),
        step_summary=path("GITHUB_STEP_SUMMARY"),
        output=path("GITHUB_OUTPUT"),
        in_actions=environ.get("GITHUB_ACTIONS") == "true",
        token=input_token or environ.get("GITHUB_TOKEN") or None,
    )


def _model_dir(text: str | None) -> Path | None:
    """The `model_dir` input: a directory inside the workspace, written to by the gate, so never absolute and never
    through `..` (where a committed symlink leads is checked when the first model is pulled into it)."""
    if text is None:
        return None
    path = Path(text)
    if path.is_absolute() or text.startswith("~") or ".." in path.parts:
        raise ConfigError("invalid setting", [Problem(
            field="model_dir", expected="a directory relative to the workspace, without `..`", found=repr(text),
            fix="name a directory inside the checkout, e.g. `model_dir: .gate-models`, and cache that path with "
                "actions/cache")])
    return path


def _workflow_dir(text: str | None, name: str) -> Path | None:
    """`base_checkout` / `candidates_dir`: a directory the workflow names (never gate.yml); it must exist."""
    if text is None:
        return None
    path = Path(text).expanduser()
    if not path.is_dir():
        what = ("a checkout of the pull request's base branch (actions/checkout with `path:`)"
                if name == "base_checkout" else
                "the directory the pull request's candidate files were downloaded to (actions/download-artifact)")
        raise ConfigError("invalid setting", [Problem(
            field=name, expected=f"an existing directory: {what}", found=f"{text!r}, "
            + ("not a directory" if path.exists() else "which does not exist"),
            fix="check the workflow step that creates it, and that it runs before the gate")])
    return path


def _flag(text: str | None, name: str) -> bool | None:
    """The boolean an action input spells; None when it is not set."""
    if text is None:
        return None
    if text.lower() in ("true", "1", "yes", "on"):
        return True
    if text.lower() in ("false", "0", "no", "off"):
        return False
    raise ConfigError("invalid setting", [Problem(field=name, expected="true or false", found=repr(text))])


def _split(text: str) -> list[str]:
    return [part.strip() for line in text.splitlines() for part in line.split(",") if part.strip()]
