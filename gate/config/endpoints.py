"""The pure rules for where an API key may go and which variable may hold one: no I/O, no settings.

An endpoint is a normalised http(s) URL prefix (`parse_endpoint` refuses anything ambiguous rather than
repairing it; plain http only to loopback); a key's variable is never a GitHub or Actions one
(`key_name_problem`). A grading suite's `judge:` (`gate.config.grader.GraderConfig`) is validated with these at
load time, and
`gate.config.grader_access` applies them to the workflow's allow-list before the LLM grader sends anything.
A new rule on URLs or variable names goes here, so both places use it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from gate.config.strict import invalid

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"  # the judge key's variable when the workflow names none
# Variables a GitHub runner fills with credentials or with what the workflow passes to the action.
FORBIDDEN_PREFIXES = ("GITHUB_", "GH_", "INPUT_", "ACTIONS_", "RUNNER_")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*")
_UNSAFE = re.compile(r"[\s\\%@#?\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Endpoint:
    """A normalised http(s) URL prefix: what is compared is what is requested."""

    scheme: str
    host: str  # lower case, no trailing dot; IPv6 without brackets
    port: int
    segments: tuple[str, ...]  # the path's segments, no empty ones

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port == {"https": 443, "http": 80}[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{host}{port}" + "".join(f"/{s}" for s in self.segments)

    def covers(self, other: Endpoint) -> bool:
        """`other` lies under this prefix: same origin, and this path's whole segments begin its path."""
        return ((self.scheme, self.host, self.port) == (other.scheme, other.host, other.port)
                and other.segments[: len(self.segments)] == self.segments)


def parse_endpoint(text: str) -> Endpoint:
    """The normalised endpoint; ValueError saying why for anything ambiguous (it is refused, not repaired)."""
    if not text.isascii() or _UNSAFE.search(text):
        raise ValueError(f"{text!r} must be a plain ASCII URL without whitespace, '\\', '%', '@', '?' or '#' "
                         "(no userinfo, query or fragment)")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{text!r} must be an http(s) URL such as {DEFAULT_ENDPOINT}")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise ValueError(f"{text!r} has an invalid port") from None
    host = (parts.hostname or "").rstrip(".")
    try:
        host = str(ipaddress.ip_address(host))
    except ValueError:
        if not _HOST.fullmatch(host):
            raise ValueError(f"{text!r} has an invalid host {host!r}") from None
    path = parts.path.rstrip("/")
    segments = tuple(path.split("/")[1:]) if path else ()
    if any(s in ("", ".", "..") for s in segments):
        raise ValueError(f"{text!r} has an empty, '.' or '..' path segment")
    endpoint = Endpoint(scheme, host, port, segments)
    if scheme == "http" and not is_loopback(host):
        raise ValueError(f"{text!r} is plain http to a host that is not this machine: the API key would cross the "
                         "network unencrypted; use https (http only to 127.0.0.0/8, ::1 or localhost)")
    return endpoint


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def key_name_problem(name: str) -> str | None:
    """Why `name` may not hold the judge's API key, or None when it may."""
    if not _NAME.fullmatch(name):
        return f"{name!r} is not an environment variable name (letters, digits and '_')"
    if name.upper().startswith(FORBIDDEN_PREFIXES):
        return (f"{name} is a GitHub or Actions variable ({', '.join(p + '*' for p in FORBIDDEN_PREFIXES)}); the "
                "judge never sends those. Name the variable holding the judge's own API key (e.g. OPENAI_API_KEY)")
    return None


def endpoint_url(base_url: str) -> str:
    """gate.yml's `base_url` (a judge's, a provider's) normalised, so the URL the workflow's allow-list is checked
    against is the one requested; a located error naming why it is refused otherwise."""
    try:
        return parse_endpoint(base_url).url
    except ValueError as why:
        raise invalid("an https URL of an OpenAI-compatible API root (…/v1); plain http only to this machine",
                      found=str(why), fix=f"e.g. `{DEFAULT_ENDPOINT}`; the workflow's `judge_endpoints` must allow "
                      "it too") from None


def key_variable(name: str) -> str:
    """gate.yml's `api_key_env`: a variable that may hold a model API's key, or a located error."""
    why = key_name_problem(name)
    if why:
        raise invalid("the name of the variable holding the model API's own key, never a GitHub or Actions one",
                      found=why.split(";")[0], fix=f"e.g. `{DEFAULT_KEY_ENV}`; the workflow names it "
                      "(`judge_api_key_env`) and gate.yml may only repeat it")
    return name
