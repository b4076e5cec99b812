"""Is a request one GitHub documents? The loopback GitHub's calls checked against GitHub's REST description
(`github_routes.txt`, written by scripts/github-routes from Octokit's copy of it)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

ROUTES = Path(__file__).with_name("github_routes.txt")
# Parameters that may hold a slash: a file path, a git ref or branch name (`heads/main`, `feature/x`).
_SLASHED = {"path", "ref", "branch", "name", "tag", "basehead"}


@lru_cache(maxsize=1)
def _patterns() -> dict[str, list[re.Pattern[str]]]:
    found: dict[str, list[re.Pattern[str]]] = {}
    for line in ROUTES.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        method, template = line.split(" ", 1)
        regex = re.sub(r"\\\{(\w+)\\\}", lambda m: "(.+)" if m.group(1) in _SLASHED else "([^/]+)",
                       re.escape(template))
        found.setdefault(method, []).append(re.compile(regex))
    return found


def documented(method: str, path: str) -> bool:
    """Whether `METHOD path` (no query string, no API prefix) is a route of GitHub's REST API."""
    return any(p.fullmatch(path) for p in _patterns().get(method, ()))
