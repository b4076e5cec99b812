"""The files a run's change touches (to flag changed baselines): a pull request's, and a merge queue's candidate
against its base (`merge_group`), from git where the clone has both commits, else GitHub's compare API."""

from __future__ import annotations

import shutil

import pytest

from gate.baselines.flow import changed_files
from gate.config.settings import Settings
from gate.publish.github import GitHubPublisher, RetryPolicy
from tests.baselines.test_flow_git import git
from tests.support.fake_github import REPO

UNKNOWN = "ab" * 20  # commits this clone does not have


def settings(event_name: str) -> Settings:
    return Settings.from_env({"GITHUB_EVENT_NAME": event_name, "GITHUB_REPOSITORY": REPO})


@pytest.fixture
def clone(tmp_path):
    """A repository of three commits: base, a queued pull request's change, and one more on top."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "gate.yml").write_text("version: 1\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    base = git(tmp_path, "rev-parse", "HEAD")
    (tmp_path / "baselines").mkdir()
    (tmp_path / "baselines" / "rubric.json").write_text("{}\n")
    (tmp_path / "gate.yml").write_text("version: 1\nname: g\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "queued")
    head = git(tmp_path, "rev-parse", "HEAD")
    (tmp_path / "later.txt").write_text("not in the queue's candidate\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "later")
    return tmp_path, base, head


def test_a_merge_group_changes_what_lies_between_its_base_and_head(clone):
    root, base, head = clone
    event = {"merge_group": {"base_sha": base, "head_sha": head, "head_ref": "refs/heads/gh-readonly-queue/main/x"}}
    found = changed_files(settings("merge_group"), event, root, None)
    assert sorted(p.relative_to(root).as_posix() for p in found) == ["baselines/rubric.json", "gate.yml"]
    assert changed_files(settings("push"), event, root, None) is None  # only a merge_group event says so


def test_a_merge_group_event_without_commit_ids_is_unknown(clone):
    root, base, _ = clone
    for group in ({"base_sha": base}, {"base_sha": base, "head_sha": "--output=/tmp/x"}, "not an object"):
        assert changed_files(settings("merge_group"), {"merge_group": group}, root, None) is None


def test_a_shallow_clone_asks_githubs_compare_api(clone, github_api):
    root, _, _ = clone
    github_api.compares[(UNKNOWN, "cd" * 20)] = [{"filename": "gate.yml"},
                                                {"filename": "baselines/new.json", "status": "renamed",
                                                 "previous_filename": "baselines/old.json"}]
    publisher = GitHubPublisher("ghs_changed_files", github_api.base_url, REPO,
                                retry=RetryPolicy(attempts=1, sleep=lambda s: None))
    event = {"merge_group": {"base_sha": UNKNOWN, "head_sha": "cd" * 20}}
    found = changed_files(settings("merge_group"), event, root, publisher)
    assert [p.relative_to(root).as_posix() for p in found] == ["gate.yml", "baselines/new.json", "baselines/old.json"]
    github_api.compares[(UNKNOWN, "ef" * 20)] = [{"filename": f"f{i}"} for i in range(300)]  # GitHub's cut-off
    cut = {"merge_group": {"base_sha": UNKNOWN, "head_sha": "ef" * 20}}
    assert changed_files(settings("merge_group"), cut, root, publisher) is None
    missing = {"merge_group": {"base_sha": UNKNOWN, "head_sha": "12" * 20}}  # 404
    assert changed_files(settings("merge_group"), missing, root, publisher) is None


def test_a_pull_request_still_diffs_against_its_base(clone):
    root, base, _ = clone
    event = {"pull_request": {"number": 7, "base": {"sha": base}}}
    found = changed_files(settings("pull_request"), event, root, None)
    assert sorted(p.relative_to(root).as_posix() for p in found) == ["baselines/rubric.json", "gate.yml", "later.txt"]
