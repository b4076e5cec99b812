"""Files on branches (the JSONL history) and a pull request's files: real PyGithub against the fake API."""

from __future__ import annotations

import base64

import pytest

from gate.publish.github import GitHubPublisher, PublishError, RetryPolicy
from gate.publish.github.contents import HISTORY_ATTEMPTS
from tests.support.fake_github import REPO

TOKEN = "ghs_historytoken0987654321"
BRANCH, PATH = "llm-gate-history", "history/quality.jsonl"
CONTENTS = rf"/repos/{REPO}/contents/{PATH}"


class Sleeps:
    def __init__(self):
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def publisher(api, sleeps=None) -> GitHubPublisher:
    return GitHubPublisher(TOKEN, api.base_url, REPO, retry=RetryPolicy(attempts=3, sleep=sleeps or Sleeps()))


def append(api, line, sleeps=None) -> str:
    return publisher(api, sleeps).append_line_to_branch_file(BRANCH, PATH, line, "history: add run")


# ------------------------------------------------------------ reading


def test_reading_a_missing_branch_or_file_is_none(github_api):
    gh = publisher(github_api)
    assert gh.read_branch_file(BRANCH, PATH) is None
    github_api.branches[BRANCH] = {"other.txt": b"x"}
    assert gh.read_branch_file(BRANCH, PATH) is None
    github_api.branches[BRANCH][PATH] = b'{"a": 1}\n'
    assert gh.read_branch_file(BRANCH, PATH) == b'{"a": 1}\n'
    [read] = [c for c in github_api.calls if c.path == CONTENTS][-1:]
    assert read.method == "GET"


def test_a_file_over_1_mb_is_read_through_the_git_blob_api(github_api):
    big = b"".join(b'{"run": %d, "score": 0.5}\n' % i for i in range(60_000))
    assert len(big) > 1_000_000
    github_api.branches[BRANCH] = {PATH: big}
    github_api.large_files.add((BRANCH, PATH))
    assert publisher(github_api).read_branch_file(BRANCH, PATH) == big
    assert any("/git/blobs/" in c.path for c in github_api.calls)


def test_reading_a_directory_or_a_failing_server_raises(github_api):
    github_api.branches[BRANCH] = {f"{PATH}/a.jsonl": b""}
    with pytest.raises(PublishError, match="not a file"):
        publisher(github_api).read_branch_file(BRANCH, PATH)
    for _ in range(3):
        github_api.fail_next("GET", CONTENTS, 500, f"oops {TOKEN}")
    with pytest.raises(PublishError) as caught:
        publisher(github_api).read_branch_file(BRANCH, PATH)
    assert caught.value.status == 500 and TOKEN not in str(caught.value) and "***" in str(caught.value)


# ------------------------------------------------------------ appending


def test_first_append_creates_an_orphan_branch_holding_only_the_line(github_api):
    github_api.branches["main"] = {"README.md": b"hello"}
    assert append(github_api, '{"run": 1}') == "created branch"
    assert github_api.branches[BRANCH] == {PATH: b'{"run": 1}\n'}
    commit = github_api.commits[github_api.heads[BRANCH]]
    assert commit["parents"] == [] and commit["message"] == "history: add run"
    [ref] = [c for c in github_api.writes("POST") if c.path.endswith("/git/refs")]
    assert ref.body == {"ref": f"refs/heads/{BRANCH}", "sha": github_api.heads[BRANCH]}
    assert github_api.branches["main"] == {"README.md": b"hello"}


def test_later_appends_add_lines_in_order(github_api):
    assert append(github_api, '{"run": 1}') == "created branch"
    first_head = github_api.heads[BRANCH]
    assert append(github_api, '{"run": 2}\n') == "appended"
    assert append(github_api, '{"run": 3}') == "appended"
    assert github_api.branches[BRANCH][PATH] == b'{"run": 1}\n{"run": 2}\n{"run": 3}\n'
    second = github_api.commits[github_api.heads[BRANCH]]["parents"]
    assert len(second) == 1 and github_api.commits[second[0]]["parents"] == [first_head]
    assert publisher(github_api).read_branch_file(BRANCH, PATH) == b'{"run": 1}\n{"run": 2}\n{"run": 3}\n'


def test_a_missing_file_on_an_existing_branch_is_created(github_api):
    github_api.branches[BRANCH] = {"index.html": b"<html/>"}
    assert append(github_api, '{"run": 1}') == "created file"
    assert github_api.branches[BRANCH] == {"index.html": b"<html/>", PATH: b'{"run": 1}\n'}
    [put] = github_api.writes("PUT")
    assert put.body["branch"] == BRANCH and "sha" not in put.body


@pytest.mark.parametrize("existing", [b'{"run": 1}', b""])
def test_content_without_a_trailing_newline_gets_one_first(github_api, existing):
    github_api.branches[BRANCH] = {PATH: existing}
    assert append(github_api, '{"run": 2}') == "appended"
    expected = b'{"run": 1}\n{"run": 2}\n' if existing else b'{"run": 2}\n'
    assert github_api.branches[BRANCH][PATH] == expected


def test_a_concurrent_writer_makes_it_reread_and_retry_and_nothing_is_lost(github_api):
    sleeps = Sleeps()
    github_api.write_file(BRANCH, PATH, b'{"run": 1}\n')

    def other_job(api):
        api.write_file(BRANCH, PATH, api.branches[BRANCH][PATH] + b'{"run": "other"}\n')

    github_api.interfere("PUT", CONTENTS, other_job)
    assert append(github_api, '{"run": 2}', sleeps) == "appended"
    assert github_api.branches[BRANCH][PATH] == b'{"run": 1}\n{"run": "other"}\n{"run": 2}\n'
    assert len(sleeps.calls) == 1 and 1.0 <= sleeps.calls[0] <= 1.5
    assert [c.method for c in github_api.calls if c.path == CONTENTS] == ["GET", "PUT", "GET", "PUT"]


def test_a_persistent_conflict_gives_up_after_bounded_attempts(github_api):
    sleeps = Sleeps()
    github_api.write_file(BRANCH, PATH, b"")
    github_api.interfere("PUT", CONTENTS, lambda api: api.write_file(
        BRANCH, PATH, api.branches[BRANCH][PATH] + b"x\n"), times=100)
    with pytest.raises(PublishError, match="could not append the history entry") as caught:
        append(github_api, '{"run": 2}', sleeps)
    assert caught.value.status == 409 and f"after {HISTORY_ATTEMPTS} attempts" in str(caught.value)
    assert len(github_api.writes("PUT")) == HISTORY_ATTEMPTS and len(sleeps.calls) == HISTORY_ATTEMPTS - 1
    assert b'{"run": 2}' not in github_api.branches[BRANCH][PATH]


def test_a_branch_created_meanwhile_by_another_job_is_retried(github_api):
    github_api.interfere("POST", rf"/repos/{REPO}/git/refs",
                         lambda api: api.write_file(BRANCH, PATH, b'{"run": "other"}\n'))
    assert append(github_api, '{"run": 2}') == "appended"
    assert github_api.branches[BRANCH][PATH] == b'{"run": "other"}\n{"run": 2}\n'
    refs = [c for c in github_api.calls if c.path.endswith("/git/refs")]
    assert len(refs) == 1  # the 422 "Reference already exists"; the retry found the branch


def test_a_file_created_meanwhile_by_another_job_is_retried(github_api):
    github_api.branches[BRANCH] = {}
    github_api.interfere("PUT", CONTENTS, lambda api: api.write_file(BRANCH, PATH, b'{"run": "other"}'))
    assert append(github_api, '{"run": 2}') == "appended"
    assert github_api.branches[BRANCH][PATH] == b'{"run": "other"}\n{"run": 2}\n'


def test_a_write_that_landed_before_a_lost_response_is_not_repeated(github_api):
    github_api.write_file(BRANCH, PATH, b'{"run": 1}\n')
    github_api.interfere("PUT", CONTENTS, lambda api: api.write_file(
        BRANCH, PATH, api.branches[BRANCH][PATH] + b'{"run": 2}\n'))  # our PUT "landed", its answer was lost
    assert append(github_api, '{"run": 2}') == "appended"
    assert github_api.branches[BRANCH][PATH] == b'{"run": 1}\n{"run": 2}\n'


def test_server_errors_inside_an_append_are_retried(github_api):
    github_api.write_file(BRANCH, PATH, b'{"run": 1}\n')
    github_api.fail_next("PUT", CONTENTS, 502)
    assert append(github_api, '{"run": 2}') == "appended"
    assert github_api.branches[BRANCH][PATH] == b'{"run": 1}\n{"run": 2}\n'


def test_a_rate_limited_append_is_not_called_a_read_only_token(github_api):
    github_api.write_file(BRANCH, PATH, b'{"run": 1}\n')
    github_api.fail_next("PUT", CONTENTS, 403, "You have exceeded a secondary rate limit", {"Retry-After": "3600"})
    with pytest.raises(PublishError) as caught:
        append(github_api, '{"run": 2}')
    message = str(caught.value)
    assert caught.value.rate_limited and "secondary rate limit" in message
    assert "fork" not in message and "contents: write" not in message


def test_a_read_only_token_gets_a_hint_and_never_the_token(github_api):
    github_api.write_file(BRANCH, PATH, b'{"run": 1}\n')
    github_api.read_only = True
    github_api.fail_next("PUT", CONTENTS, 403, f"Resource not accessible by integration ({TOKEN})")
    sleeps = Sleeps()
    with pytest.raises(PublishError) as caught:
        append(github_api, '{"run": 2}', sleeps)
    message = str(caught.value)
    assert caught.value.status == 403 and "contents: write" in message and "fork" in message
    assert TOKEN not in message and "***" in message and not sleeps.calls
    github_api.branches.clear()  # a new branch is refused the same way
    with pytest.raises(PublishError, match="contents: write"):
        append(github_api, '{"run": 2}')
    assert BRANCH not in github_api.branches


def test_other_failures_say_what_could_not_be_appended(github_api):
    github_api.write_file(BRANCH, PATH, b"")
    github_api.fail_next("PUT", CONTENTS, 400, "Bad Request")
    with pytest.raises(PublishError, match=rf"history entry to {PATH} on branch {BRANCH}: 400 Bad Request"):
        append(github_api, "x")
    with pytest.raises(ValueError):
        append(github_api, "two\nlines")


# ------------------------------------------------------------ pull request files


def test_pull_request_files_follow_pagination_and_include_renamed_paths(github_api):
    files = [{"filename": f"outputs/f{i:03}.jsonl"} for i in range(250)]
    files[3] = {"filename": "prompts/new.txt", "status": "renamed", "previous_filename": "prompts/old.txt"}
    github_api.pull_files[7] = files
    paths = publisher(github_api).pull_request_files(7)
    assert len(paths) == 251 and paths[:5] == ["outputs/f000.jsonl", "outputs/f001.jsonl", "outputs/f002.jsonl",
                                                 "prompts/new.txt", "prompts/old.txt"]
    assert paths[-1] == "outputs/f249.jsonl"
    pages = [c for c in github_api.calls if c.path == f"/repos/{REPO}/pulls/7/files"]
    assert len(pages) == 9  # 30 a page, the Link headers followed to the end


def test_pull_request_files_are_none_when_they_cannot_be_read(github_api):
    assert publisher(github_api).pull_request_files(404) is None
    github_api.pull_files[7] = [{"filename": "a.py"}]
    github_api.fail_next("GET", rf"/repos/{REPO}/pulls/7/files", 403, "Resource not accessible by integration")
    assert publisher(github_api).pull_request_files(7) is None
    assert publisher(github_api).pull_request_files(7) == ["a.py"]


def test_fake_blob_ids_are_gits():
    from tests.support.fake_github import _b64_lines, _git_sha

    assert _git_sha("blob", b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object
    assert base64.b64decode(_b64_lines(b"x" * 200)) == b"x" * 200
