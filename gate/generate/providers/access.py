"""Where a provider may send an API key, and which key: the workflow decides, never gate.yml (SECURITY.md).

Generation uses the LLM grader's allow-list (`gate.config.grader_access.GraderAccess`, read once from the
workflow's `judge_endpoints` / `judge_api_key_env` by Settings) and its pure rules (`gate.config.endpoints`):
the base URL must lie under a prefix the workflow allows (plain http only to loopback); the key's variable is the
one the workflow names (else OPENAI_API_KEY), never a GitHub or Actions variable, and a key equal to a GitHub
token of this run is refused. All of this is decided before any request; the client then sends to the normalised
URL only and follows no redirect.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gate.config.endpoints import DEFAULT_KEY_ENV, Endpoint, key_name_problem, parse_endpoint
from gate.config.grader_access import ALLOW_FIX, KEY_ENV_ENV, KEY_ENV_INPUT, GraderAccess
from gate.errors import ConfigError, Problem


@dataclass(frozen=True)
class Credentials:
    """An endpoint the workflow allows and the key to send there (None: a keyless local server)."""

    endpoint: Endpoint
    api_key: str | None = field(default=None, repr=False)


def authorise(base_url: str, access: GraderAccess, *, key_env: str | None = None, keyless: bool = False,
              where: str = "generate.provider") -> Credentials:
    """The credentials for `base_url`, or a ConfigError listing every reason it may not be called.

    `key_env`: the variable gate.yml names, which may only repeat the workflow's choice. `keyless`: send no key
    (a local vLLM/Ollama server); the endpoint must still be allowed."""
    problems: list[Problem] = []
    try:
        endpoint: Endpoint | None = parse_endpoint(base_url)
    except ValueError as exc:
        endpoint = None
        problems.append(Problem(field=f"{where}.base_url", expected="an http(s) URL prefix", found=str(exc),
                                fix="correct it"))
    if endpoint is not None and not any(allowed.covers(endpoint) for allowed in access.endpoints):
        problems.append(Problem(field=f"{where}.base_url", expected="an endpoint the workflow allows: "
                                + ", ".join(a.url for a in access.endpoints), found=repr(base_url), fix=ALLOW_FIX))
    key: str | None = None
    if not keyless:
        name = access.key_env or DEFAULT_KEY_ENV
        if key_env is not None and key_env != name:
            problems.append(Problem(
                field=f"{where}.api_key_env", expected=f"{name} (the workflow's choice), or no `api_key_env`",
                found=f"{key_env}: gate.yml may not choose which secret is sent",
                fix=f"remove `api_key_env`; if the key is in {key_env}, the workflow must name it: action input "
                    f"`{KEY_ENV_INPUT}: {key_env}` (or {KEY_ENV_ENV}={key_env})"))
        elif (why := key_name_problem(name)) is not None:
            problems.append(Problem(field=f"{where}.api_key_env", expected="the variable holding the API key",
                                    found=why, fix="name a variable the workflow sets from a secret"))
        else:
            key = access.keys.get(name, "").strip() or None
            if key is None:
                problems.append(Problem(field=f"{where}.api_key_env", expected=f"an API key in {name}",
                                        found="it is unset or empty", fix=f"export {name}=… (a secret in CI), or "
                                        "replay the committed cassettes"))
            elif any(key == t or (len(t) >= 16 and t in key) for t in access.protected):
                problems.append(Problem(field=f"{where}.api_key_env", expected=f"the provider's own API key in {name}",
                                        found="a GitHub/Actions token of this run",
                                        fix=f"set {name} from the provider's secret, never from github.token"))
                key = None
    if problems:
        raise ConfigError("the generation provider may not send", problems)
    assert endpoint is not None
    return Credentials(endpoint, key)
