"""A small stateful GitHub REST API on loopback (pytest-httpserver), for driving real PyGithub.

It keeps issue comments, check runs, commit statuses, pull request files, the pull requests of commits, the files
between two commits (compare) and branches (files, with the commits, trees and blobs of the git database) in
memory, records every request, and can be told to fail: scripted responses for the next matching requests,
permissions a token lacks, files served as GitHub serves those over 1 MB, or another writer that acts just before
a matching request (a race).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
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
    pull_files: dict[int, list[dict]] = field(default_factory=dict)  # number -> [{"filename", "status", ...}]
    # commit sha -> the pull requests GitHub associates with it: [{"number", "state", "head_sha", "head_repo"}]
    commit_pulls: dict[str, list[dict]] = field(default_factory=dict)
    compares: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # (base, head) -> [{"filename"}]
    branches: dict[str, dict[str, bytes]] = field(default_factory=dict)  # name -> {path: content} at its tip
    heads: dict[str, str] = field(default_factory=dict)  # branch -> commit sha (made up for seeded branches)
    commits: dict[str, dict] = field(default_factory=dict)  # sha -> {"message", "tree", "parents"}
    trees: dict[str, dict[str, bytes]] = field(default_factory=dict)  # sha -> {path: content}
    blobs: dict[str, bytes] = field(default_factory=dict)  # git blob sha -> content
    large_files: set[tuple[str, str]] = field(default_factory=set)  # (branch, path): no inline content
    interference: list[list] = field(default_factory=list)  # [method, path regex, action, times left]
    # branch -> the required status checks' contexts of its rulesets; of its classic protection (absent: 404)
    ruleset_checks: dict[str, list[str]] = field(default_factory=dict)
    protected_checks: dict[str, list[str]] = field(default_factory=dict)
    # the open pull requests a `GET /pulls?head=owner:branch` lists: [{"number", "head_sha", "head_repo", "head_ref"}]
    open_pulls: list[dict] = field(default_factory=list)
    default_branch: str = "main"
    forbid_checks: bool = False
    read_only: bool = False
    _next_id: int = 1000

    # ------------------------------------------------------------ scripting

    def fail_next(self, method: str, path_pattern: str, status: int, message: str = "boom",
                  headers: dict[str, str] | None = None) -> None:
        response = Response(json.dumps({"message": message}), status=status, headers=headers or {},
                            content_type="application/json")
        self.scripted.append((method, path_pattern, response))

    def interfere(self, method: str, path_pattern: str, action: Callable[[FakeGitHub], None],
                  times: int = 1) -> None:
        """Run `action` (another job, say) just before the next `times` matching requests are handled."""
        self.interference.append([method, path_pattern, action, times])

    def write_file(self, branch: str, path: str, content: bytes, message: str = "another writer") -> None:
        """Commit a file on a branch as someone else would (the branch is created if missing)."""
        files = {**self.branches.get(branch, {}), path: content}
        parents = [self._head(branch)] if branch in self.branches else []
        self._commit(branch, files, message, parents)

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
        for hook in list(self.interference):
            method, pattern, action, _ = hook
            if method == request.method and re.fullmatch(pattern, request.path):
                hook[3] -= 1
                if hook[3] <= 0:
                    self.interference.remove(hook)
                action(self)
        if self.read_only and request.method != "GET":
            return self._error(403, "Resource not accessible by integration")
        routes = [
            ("GET", rf"/repos/{REPO}/issues/(\d+)/comments", self._list_comments),
            ("POST", rf"/repos/{REPO}/issues/(\d+)/comments", self._create_comment),
            ("PATCH", rf"/repos/{REPO}/issues/comments/(\d+)", self._edit_comment),
            ("GET", rf"/repos/{REPO}/issues/comments/(\d+)", self._get_comment),
            ("DELETE", rf"/repos/{REPO}/issues/comments/(\d+)", self._delete_comment),
            ("POST", rf"/repos/{REPO}/check-runs", self._create_check_run),
            ("PATCH", rf"/repos/{REPO}/check-runs/(\d+)", self._edit_check_run),
            ("POST", rf"/repos/{REPO}/statuses/([0-9a-f]+)", self._create_status),
            ("GET", rf"/repos/{REPO}/commits/([0-9a-f]+)/check-runs", self._list_check_runs),
            ("GET", rf"/repos/{REPO}/commits/([0-9a-f]+)/statuses", self._list_statuses),
            ("GET", rf"/repos/{REPO}/commits/([0-9a-f]+)/pulls", self._commit_pulls),
            ("GET", rf"/repos/{REPO}/compare/([0-9a-f]+)\.\.\.([0-9a-f]+)", self._compare),
            ("GET", rf"/repos/{REPO}/pulls", self._list_pulls),
            ("GET", rf"/repos/{REPO}/pulls/(\d+)", self._get_pull),
            ("GET", rf"/repos/{REPO}/pulls/(\d+)/files", self._list_pull_files),
            ("GET", rf"/repos/{REPO}/contents/(.+)", self._get_contents),
            ("PUT", rf"/repos/{REPO}/contents/(.+)", self._put_contents),
            ("GET", rf"/repos/{REPO}", self._get_repo),
            ("GET", rf"/repos/{REPO}/rules/branches/(.+)", self._branch_rules),
            ("GET", rf"/repos/{REPO}/branches/(.+)/protection/required_status_checks", self._required_checks),
            ("GET", rf"/repos/{REPO}/branches/(.+)", self._get_branch),
            ("POST", rf"/repos/{REPO}/git/trees", self._create_tree),
            ("POST", rf"/repos/{REPO}/git/commits", self._create_commit),
            ("POST", rf"/repos/{REPO}/git/refs", self._create_ref),
            ("GET", rf"/repos/{REPO}/git/blobs/([0-9a-f]{{40}})", self._get_blob),
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
        comments = [self._comment_json(int(number), c) for c in self.comments.get(int(number), [])]
        return self._paginated(request, comments, f"/repos/{REPO}/issues/{number}/comments")

    def _create_comment(self, request: Request, body: Any, number: str) -> Response:
        if too_long := _comment_too_long(body):
            return too_long
        comment = {"id": self._new_id(), "body": body["body"]}
        self.comments.setdefault(int(number), []).append(comment)
        return self._json(self._comment_json(int(number), comment), status=201)

    def _edit_comment(self, request: Request, body: Any, comment_id: str) -> Response:
        for number, comments in self.comments.items():
            for comment in comments:
                if comment["id"] == int(comment_id):
                    if too_long := _comment_too_long(body):
                        return too_long
                    comment["body"] = body["body"]
                    return self._json(self._comment_json(number, comment))
        return self._error(404, "Not Found")

    def _get_comment(self, request: Request, body: Any, comment_id: str) -> Response:
        for number, comments in self.comments.items():
            for comment in comments:
                if comment["id"] == int(comment_id):
                    return self._json(self._comment_json(number, comment))
        return self._error(404, "Not Found")

    def _delete_comment(self, request: Request, body: Any, comment_id: str) -> Response:
        for comments in self.comments.values():
            for index, comment in enumerate(comments):
                if comment["id"] == int(comment_id):
                    del comments[index]
                    return Response(status=204)
        return self._error(404, "Not Found")

    def _check_json(self, run: dict) -> dict:
        return {"external_id": None, "details_url": None, **run,
                "url": f"{self.base_url}/repos/{REPO}/check-runs/{run['id']}",
                "html_url": f"https://github.example/{REPO}/runs/{run['id']}"}

    def _create_check_run(self, request: Request, body: Any) -> Response:
        if self.forbid_checks:
            return self._error(403, "Resource not accessible by integration")
        if refused := _check_output_refused(body.get("output") or {}):
            return self._error(422, refused)
        run = {"id": self._new_id(), **body, "annotations": list(body.get("output", {}).get("annotations", []))}
        self.check_runs.append(run)
        return self._json(self._check_json(run), status=201)

    def _edit_check_run(self, request: Request, body: Any, run_id: str) -> Response:
        for run in self.check_runs:
            if run["id"] == int(run_id):
                if refused := _check_output_refused(body.get("output") or {}):
                    return self._error(422, refused)
                run["annotations"] += body.get("output", {}).get("annotations", [])
                run["output"] = {**run.get("output", {}), **{k: v for k, v in body.get("output", {}).items()
                                                            if k != "annotations"}}
                return self._json(self._check_json(run))
        return self._error(404, "Not Found")

    def _create_status(self, request: Request, body: Any, sha: str) -> Response:
        if len(body.get("description") or "") > 140:  # GitHub counts the description's characters
            return _validation_failed("Status", "description", "description is too long (maximum is 140 characters)")
        status = {"id": self._new_id(), "sha": sha, **body}
        self.statuses.append(status)
        return self._json({**status, "url": f"{self.base_url}/repos/{REPO}/statuses/{sha}"}, status=201)

    def _list_check_runs(self, request: Request, body: Any, sha: str) -> Response:
        """The commit's check runs, newest first (`check_name` filters by name), as GitHub wraps them."""
        name = request.args.get("check_name")
        runs = [self._check_json(r) for r in reversed(self.check_runs)
                if r.get("head_sha") == sha and (name is None or r.get("name") == name)]
        return self._json({"total_count": len(runs), "check_runs": runs})

    def _list_statuses(self, request: Request, body: Any, sha: str) -> Response:
        statuses = [{"url": f"{self.base_url}/repos/{REPO}/statuses/{sha}", "description": None, **s}
                    for s in reversed(self.statuses) if s["sha"] == sha]
        return self._paginated(request, statuses, f"/repos/{REPO}/commits/{sha}/statuses")

    def _get_repo(self, request: Request, body: Any) -> Response:
        return self._json({"id": 1, "name": REPO.split("/")[1], "full_name": REPO,
                           "url": f"{self.base_url}/repos/{REPO}", "default_branch": self.default_branch})

    def _branch_rules(self, request: Request, body: Any, branch: str) -> Response:
        """The rules that apply to a branch (any ruleset); readable with read access, [] when none."""
        contexts = self.ruleset_checks.get(branch) or []
        rules = [{"type": "required_status_checks", "ruleset_source_type": "Repository", "ruleset_source": REPO,
                  "ruleset_id": 1, "parameters": {"strict_required_status_checks_policy": False,
                                                  "required_status_checks": [{"context": c} for c in contexts]}}]
        return self._json(rules if contexts else [])

    def _required_checks(self, request: Request, body: Any, branch: str) -> Response:
        if branch not in self.protected_checks:
            return self._error(404, "Branch not protected")
        contexts = self.protected_checks[branch]
        return self._json({"strict": False, "contexts": contexts, "checks": [{"context": c, "app_id": None}
                                                                           for c in contexts]})

    def _commit_pulls(self, request: Request, body: Any, sha: str) -> Response:
        pulls = [{"number": p["number"], "state": p.get("state", "open"), "id": p["number"],
                  "url": f"{self.base_url}/repos/{REPO}/pulls/{p['number']}",
                  "head": {"sha": p.get("head_sha", sha), "ref": "feature",
                           "repo": {"full_name": p.get("head_repo", REPO), "name": "widgets"}}}
                 for p in self.commit_pulls.get(sha, [])]
        return self._paginated(request, pulls, f"/repos/{REPO}/commits/{sha}/pulls")

    def _compare(self, request: Request, body: Any, base: str, head: str) -> Response:
        if (base, head) not in self.compares:
            return self._error(404, "No common ancestor")
        files = [{"sha": _git_sha("blob", f["filename"].encode()), "status": "modified", **f}
                 for f in self.compares[(base, head)]]
        return self._json({"url": f"{self.base_url}/repos/{REPO}/compare/{base}...{head}", "status": "ahead",
                           "files": files, "commits": [], "total_commits": 1})

    def _list_pulls(self, request: Request, body: Any) -> Response:
        """GitHub's `head=owner:branch` filter: the head repository's owner and the branch name, exactly."""
        head = request.args.get("head")
        state = request.args.get("state", "open")
        pulls = [{"number": p["number"], "state": "open", "id": p["number"],
                  "url": f"{self.base_url}/repos/{REPO}/pulls/{p['number']}",
                  "head": {"sha": p["head_sha"], "ref": p["head_ref"],
                           "repo": {"full_name": p["head_repo"], "name": p["head_repo"].split("/")[1]}}}
                 for p in self.open_pulls
                 if state in ("open", "all")
                 and (head is None or head == f"{p['head_repo'].split('/')[0]}:{p['head_ref']}")]
        return self._paginated(request, pulls, f"/repos/{REPO}/pulls")

    def _get_pull(self, request: Request, body: Any, number: str) -> Response:
        if int(number) not in self.pulls:
            return self._error(404, "Not Found")
        return self._json({"number": int(number), "url": f"{self.base_url}/repos/{REPO}/pulls/{number}",
                           "head": {"sha": self.pulls[int(number)], "ref": "feature"}})

    def _list_pull_files(self, request: Request, body: Any, number: str) -> Response:
        if int(number) not in self.pull_files:
            return self._error(404, "Not Found")
        files = [{"sha": _git_sha("blob", f["filename"].encode()), "status": "modified", "additions": 1,
                  "deletions": 0, "changes": 1, **f} for f in self.pull_files[int(number)]]
        return self._paginated(request, files, f"/repos/{REPO}/pulls/{number}/files")

    def _paginated(self, request: Request, items: list, path: str, max_per_page: int = 100) -> Response:
        per_page = min(max_per_page, int(request.args.get("per_page", 30)))
        page = int(request.args.get("page", 1))
        headers = {}
        if page * per_page < len(items):
            headers["Link"] = f'<{self.base_url}{path}?per_page={per_page}&page={page + 1}>; rel="next"'
        return self._json(items[(page - 1) * per_page: page * per_page], headers=headers)

    # ------------------------------------------------------------ branches and the git database

    def _head(self, branch: str) -> str:
        """The branch's tip commit; a branch seeded straight into `branches` gets a root commit made up for it."""
        if branch not in self.heads:
            self._commit(branch, self.branches[branch], "seed", [])
        return self.heads[branch]

    def _commit(self, branch: str, files: dict[str, bytes], message: str, parents: list[str]) -> str:
        tree = self._store_tree(files)
        sha = self._store_commit(message, tree, parents)
        self.branches[branch], self.heads[branch] = dict(files), sha
        return sha

    def _store_blob(self, content: bytes) -> str:
        sha = _git_sha("blob", content)
        self.blobs[sha] = content
        return sha

    def _store_tree(self, files: dict[str, bytes]) -> str:
        listing = "".join(f"{path}\0{self._store_blob(content)}\n" for path, content in sorted(files.items()))
        sha = _git_sha("tree", listing.encode())
        self.trees[sha] = dict(files)
        return sha

    def _store_commit(self, message: str, tree: str, parents: list[str]) -> str:
        sha = _git_sha("commit", json.dumps([message, tree, parents, self._new_id()]).encode())
        self.commits[sha] = {"message": message, "tree": tree, "parents": list(parents)}
        return sha

    def _commit_json(self, sha: str) -> dict:
        commit = self.commits[sha]
        return {"sha": sha, "url": f"{self.base_url}/repos/{REPO}/git/commits/{sha}",
                "html_url": f"https://github.example/{REPO}/commit/{sha}", "message": commit["message"],
                "tree": {"sha": commit["tree"], "url": f"{self.base_url}/repos/{REPO}/git/trees/{commit['tree']}"},
                "parents": [{"sha": p, "url": f"{self.base_url}/repos/{REPO}/git/commits/{p}"}
                            for p in commit["parents"]]}

    def _file_json(self, branch: str, path: str) -> dict:
        content, sha = self.branches[branch][path], _git_sha("blob", self.branches[branch][path])
        large = (branch, path) in self.large_files
        return {"type": "file", "name": path.rsplit("/", 1)[-1], "path": path, "sha": sha, "size": len(content),
                "encoding": "none" if large else "base64", "content": "" if large else _b64_lines(content),
                "url": f"{self.base_url}/repos/{REPO}/contents/{path}?ref={branch}",
                "git_url": f"{self.base_url}/repos/{REPO}/git/blobs/{sha}",
                "html_url": f"https://github.example/{REPO}/blob/{branch}/{path}",
                "download_url": f"https://raw.example/{REPO}/{branch}/{path}"}

    def _get_contents(self, request: Request, body: Any, path: str) -> Response:
        branch = request.args.get("ref", "main")
        if branch not in self.branches:
            return self._error(404, f"No commit found for the ref {branch}")
        files = self.branches[branch]
        if path in files:
            self._store_blob(files[path])
            return self._json(self._file_json(branch, path))
        children = sorted({p[len(path) + 1:].split("/")[0] for p in files if p.startswith(path + "/")})
        if children:
            return self._json([{"type": "dir", "name": name, "path": f"{path}/{name}"} for name in children])
        return self._error(404, "Not Found")

    def _put_contents(self, request: Request, body: Any, path: str) -> Response:
        branch = body.get("branch", "main")
        if branch not in self.branches:
            return self._error(404, f"Branch {branch} not found")
        files = self.branches[branch]
        if path in files and "sha" not in body:
            return self._error(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
        if path in files and body["sha"] != _git_sha("blob", files[path]):
            return self._error(409, f"{path} does not match {body['sha']}")
        if path not in files and "sha" in body:
            return self._error(422, f"{path} does not exist")
        created = path not in files
        self._commit(branch, {**files, path: base64.b64decode(body["content"])}, body["message"],
                     [self._head(branch)])
        return self._json({"content": self._file_json(branch, path), "commit": self._commit_json(self.heads[branch])},
                          status=201 if created else 200)

    def _branch_json(self, branch: str) -> dict:
        return {"name": branch, "protected": False, "commit": {**self._commit_json(self._head(branch)),
                                                                "commit": self._commit_json(self._head(branch))}}

    def _get_branch(self, request: Request, body: Any, branch: str) -> Response:
        if branch not in self.branches:
            return self._error(404, "Branch not found")
        return self._json(self._branch_json(branch))

    def _create_tree(self, request: Request, body: Any) -> Response:
        files = dict(self.trees.get(body.get("base_tree", ""), {}))
        if body.get("base_tree") and body["base_tree"] not in self.trees:
            return self._error(422, "Invalid base_tree")
        for element in body["tree"]:
            if element.get("type") != "blob" or element.get("mode") not in ("100644", "100755"):
                return self._error(422, "Invalid tree element")
            if "content" in element:
                files[element["path"]] = element["content"].encode("utf-8")
            elif element.get("sha") in self.blobs:
                files[element["path"]] = self.blobs[element["sha"]]
            else:
                return self._error(422, "Invalid tree element")
        sha = self._store_tree(files)
        entries = [{"path": p, "mode": "100644", "type": "blob", "sha": _git_sha("blob", c), "size": len(c)}
                   for p, c in sorted(files.items())]
        return self._json({"sha": sha, "url": f"{self.base_url}/repos/{REPO}/git/trees/{sha}", "tree": entries,
                           "truncated": False}, status=201)

    def _create_commit(self, request: Request, body: Any) -> Response:
        if body.get("tree") not in self.trees or any(p not in self.commits for p in body.get("parents", [])):
            return self._error(422, "Tree SHA does not exist")
        sha = self._store_commit(body["message"], body["tree"], body.get("parents", []))
        return self._json(self._commit_json(sha), status=201)

    def _create_ref(self, request: Request, body: Any) -> Response:
        ref, sha = body.get("ref", ""), body.get("sha", "")
        if not ref.startswith("refs/heads/"):
            return self._error(422, "Reference name must start with 'refs/' and have at least two slashes")
        branch = ref[len("refs/heads/"):]
        if branch in self.branches:
            return self._error(422, "Reference already exists")
        if sha not in self.commits:
            return self._error(422, "Object does not exist")
        self.branches[branch], self.heads[branch] = dict(self.trees[self.commits[sha]["tree"]]), sha
        return self._json({"ref": ref, "url": f"{self.base_url}/repos/{REPO}/git/{ref}",
                           "object": {"type": "commit", "sha": sha,
                                      "url": f"{self.base_url}/repos/{REPO}/git/commits/{sha}"}}, status=201)

    def _get_blob(self, request: Request, body: Any, sha: str) -> Response:
        if sha not in self.blobs:
            return self._error(404, "Not Found")
        content = self.blobs[sha]
        return self._json({"sha": sha, "size": len(content), "encoding": "base64", "content": _b64_lines(content),
                           "url": f"{self.base_url}/repos/{REPO}/git/blobs/{sha}"})


def _validation_failed(resource: str, field: str, message: str) -> Response:
    return Response(json.dumps({"message": "Validation Failed", "errors": [
        {"resource": resource, "code": "custom", "field": field, "message": message}]}), status=422,
        content_type="application/json")


def _comment_too_long(body: Any) -> Response | None:
    """GitHub counts a comment's characters: more than 65,536 is a 422."""
    if len(body.get("body") or "") > 65_536:
        return _validation_failed("IssueComment", "data", "Body is too long (maximum is 65536 characters)")
    return None


def _check_output_refused(output: dict) -> str | None:
    """What GitHub says when a check run's output breaks its limits (None: within them): summary and text in UTF-8
    bytes, 50 annotations a request, an annotation's title in characters and its message and raw_details in bytes;
    output.title has no documented limit and is held to the annotation title's 255 characters."""
    for part in ("summary", "text"):
        if len(str(output.get(part) or "").encode("utf-8")) > 65_535:
            return f"Invalid request.\n\n{part} exceeds a maximum bytesize of 65535"
    if len(str(output.get("title") or "")) > 255:
        return "Invalid request.\n\ntitle is too long (maximum is 255 characters)"
    annotations = output.get("annotations") or []
    if len(annotations) > 50:
        return "Invalid request.\n\nOnly 50 annotations are allowed per request"
    for annotation in annotations:
        if len(str(annotation.get("title") or "")) > 255:
            return "Invalid request.\n\nannotation title is too long (maximum is 255 characters)"
        for part in ("message", "raw_details"):
            if len(str(annotation.get(part) or "").encode("utf-8")) > 65_536:
                return f"Invalid request.\n\nannotation {part} exceeds a maximum bytesize of 65536"
    return None


def _git_sha(kind: str, content: bytes) -> str:
    """The object id git gives `content` (a blob's is exactly git's; trees and commits here are made up)."""
    return hashlib.sha1(f"{kind} {len(content)}\0".encode() + content).hexdigest()


def _b64_lines(content: bytes) -> str:
    """Base64 wrapped at 60 characters, as GitHub serves file and blob contents."""
    encoded = base64.b64encode(content).decode("ascii")
    return "".join(encoded[i:i + 60] + "\n" for i in range(0, len(encoded), 60))
