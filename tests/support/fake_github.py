"""A small stateful GitHub REST API on loopback (pytest-httpserver), for driving real PyGithub.

It keeps issue comments, check runs and commit statuses in memory, records every request, and can be
told to fail: scripted responses for the next matching requests, or permissions a token lacks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

REPO = "octo/widgets"


@dataclass
class Call:
    method: str
    path: str
    body: Any
    headers: dict[str, str]


@dataclass
class FakeGitHub:
    base_url: str
    comments: dict[int, list[dict]] = field(default_factory=dict)
    check_runs: list[dict] = field(default_factory=list)
    statuses: list[dict] = field(default_factory=list)
    pulls: dict[int, str] = field(default_factory=dict)  # number -> head sha
    calls: list[Call] = field(default_factory=list)
    scripted: list[tuple[str, str, Response]] = field(default_factory=list)  # (method, path regex, response)
    forbid_checks: bool = False
    read_only: bool = False
    _next_id: int = 1000

    # ------------------------------------------------------------ scripting

    def fail_next(self, method: str, path_pattern: str, status: int, message: str = "boom",
                  headers: dict[str, str] | None = None) -> None:
        response = Response(json.dumps({"message": message}), status=status, headers=headers or {},
                            content_type="application/json")
        self.scripted.append((method, path_pattern, response))

    def writes(self, method: str | None = None) -> list[Call]:
        return [c for c in self.calls if c.method != "GET" and (method is None or c.method == method)]

    # ------------------------------------------------------------ the API

    def handle(self, request: Request) -> Response:
        body = request.get_json(silent=True) if request.data else None
        self.calls.append(Call(request.method, request.path, body, dict(request.headers)))
        for index, (method, pattern, response) in enumerate(self.scripted):
            if method == request.method and re.fullmatch(pattern, request.path):
                del self.scripted[index]
                return response
        if self.read_only and request.method != "GET":
            return self._error(403, "Resource not accessible by integration")
        routes = [
            ("GET", rf"/repos/{REPO}/issues/(\d+)/comments", self._list_comments),
            ("POST", rf"/repos/{REPO}/issues/(\d+)/comments", self._create_comment),
            ("PATCH", rf"/repos/{REPO}/issues/comments/(\d+)", self._edit_comment),
            ("POST", rf"/repos/{REPO}/check-runs", self._create_check_run),
            ("PATCH", rf"/repos/{REPO}/check-runs/(\d+)", self._edit_check_run),
            ("POST", rf"/repos/{REPO}/statuses/([0-9a-f]+)", self._create_status),
            ("GET", rf"/repos/{REPO}/pulls/(\d+)", self._get_pull),
        ]
        for method, pattern, handler in routes:
            match = re.fullmatch(pattern, request.path)
            if method == request.method and match:
                return handler(request, body, *match.groups())
        return self._error(404, f"Not Found: {request.method} {request.path}")

    def _error(self, status: int, message: str) -> Response:
        return Response(json.dumps({"message": message}), status=status, content_type="application/json")

    def _json(self, value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return Response(json.dumps(value), status=status, headers=headers or {}, content_type="application/json")

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _comment_json(self, number: int, comment: dict) -> dict:
        return {**comment, "url": f"{self.base_url}/repos/{REPO}/issues/comments/{comment['id']}",
                "html_url": f"https://github.example/{REPO}/pull/{number}#issuecomment-{comment['id']}",
                "user": {"login": comment.get("login", "github-actions[bot]"), "id": 1}}

    def _list_comments(self, request: Request, body: Any, number: str) -> Response:
        comments = self.comments.get(int(number), [])
        per_page = int(request.args.get("per_page", 30))
        page = int(request.args.get("page", 1))
        chunk = comments[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(comments):
            link = f"{self.base_url}/repos/{REPO}/issues/{number}/comments?per_page={per_page}&page={page + 1}"
            headers["Link"] = f'<{link}>; rel="next"'
        return self._json([self._comment_json(int(number), c) for c in chunk], headers=headers)

    def _create_comment(self, request: Request, body: Any, number: str) -> Response:
        comment = {"id": self._new_id(), "body": body["body"]}
        self.comments.setdefault(int(number), []).append(comment)
        return self._json(self._comment_json(int(number), comment), status=201)

    def _edit_comment(self, request: Request, body: Any, comment_id: str) -> Response:
        for number, comments in self.comments.items():
            for comment in comments:
                if comment["id"] == int(comment_id):
                    comment["body"] = body["body"]
                    return self._json(self._comment_json(number, comment))
        return self._error(404, "Not Found")

    def _check_json(self, run: dict) -> dict:
        return {**run, "url": f"{self.base_url}/repos/{REPO}/check-runs/{run['id']}",
                "html_url": f"https://github.example/{REPO}/runs/{run['id']}"}

    def _create_check_run(self, request: Request, body: Any) -> Response:
        if self.forbid_checks:
            return self._error(403, "Resource not accessible by integration")
        run = {"id": self._new_id(), **body, "annotations": list(body.get("output", {}).get("annotations", []))}
        self.check_runs.append(run)
        return self._json(self._check_json(run), status=201)

    def _edit_check_run(self, request: Request, body: Any, run_id: str) -> Response:
        for run in self.check_runs:
            if run["id"] == int(run_id):
                run["annotations"] += body.get("output", {}).get("annotations", [])
                run["output"] = {**run.get("output", {}), **{k: v for k, v in body.get("output", {}).items()
                                                            if k != "annotations"}}
                return self._json(self._check_json(run))
        return self._error(404, "Not Found")

    def _create_status(self, request: Request, body: Any, sha: str) -> Response:
        status = {"id": self._new_id(), "sha": sha, **body}
        self.statuses.append(status)
        return self._json({**status, "url": f"{self.base_url}/repos/{REPO}/statuses/{sha}"}, status=201)

    def _get_pull(self, request: Request, body: Any, number: str) -> Response:
        if int(number) not in self.pulls:
            return self._error(404, "Not Found")
        return self._json({"number": int(number), "url": f"{self.base_url}/repos/{REPO}/pulls/{number}",
                           "head": {"sha": self.pulls[int(number)], "ref": "feature"}})
