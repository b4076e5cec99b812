"""The git index read without git, checked against git itself (`git ls-files -z`) on indexes git wrote."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from gate.io import vcs
from gate.io.gitindex import _index_names, tracked_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git to write the indexes it reads")

BLOB = "e69de29bb2d1d6434b8b29ae77e5c10c1e2c5ad3"  # the empty blob's SHA-1


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


def listed_by_git(repo: Path, path: str = ".") -> list[Path]:
    return sorted({repo / name for name in git(repo, "ls-files", "-z", "--", path).split("\0") if name})  # once each


def new_repo(tmp_path: Path, *init: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", *init)
    return repo


def add_files(repo: Path, names: list[str]) -> None:
    for name in names:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    git(repo, "add", "--", *names)


def varied_names(seed: int, count: int) -> list[str]:
    """Names of every length modulo eight (the padding of versions 2 and 3), shared prefixes (version 4's
    compression), nesting and non-ASCII."""
    rng = random.Random(seed)
    parts = ["a", "cache", "gate-cache", "ab", "données", "x" * 7, "y" * 9, "z" * 16, "sub dir", "é"]
    names = set()
    while len(names) < count:
        depth = rng.randint(1, 4)
        names.add("/".join(rng.choice(parts) + (str(rng.randint(0, 20)) if rng.random() < .5 else "")
                           for _ in range(depth)) + rng.choice(["", ".json", ".npy", ".bin"]))
    return sorted(n for n in names if not any(m.startswith(n + "/") for m in names))  # no file is also a folder


@pytest.mark.parametrize("version", [2, 3, 4])
def test_every_index_version_lists_what_git_lists(tmp_path: Path, version: int):
    repo = new_repo(tmp_path)
    add_files(repo, varied_names(version, 300))
    git(repo, "update-index", "--index-version", str(version))
    assert sorted(tracked_files(repo, repo) or []) == listed_by_git(repo)
    for folder in ("cache", "a", "cache3", "données2"):
        assert sorted(tracked_files(repo, repo / folder) or []) == listed_by_git(repo, folder), folder


def test_extended_flags_intent_to_add_and_skip_worktree_are_read(tmp_path: Path):
    repo = new_repo(tmp_path)
    add_files(repo, ["cache/k.npy", "cache/l.npy", "other.txt"])
    (repo / "cache/new.npy").write_text("n")
    git(repo, "add", "-N", "cache/new.npy")  # intent to add: an extended flag, so the index is version 3
    git(repo, "update-index", "--skip-worktree", "cache/l.npy")
    assert (repo / ".git/index").read_bytes()[4:8] == b"\0\0\0\3"
    assert sorted(tracked_files(repo, repo / "cache") or []) == listed_by_git(repo, "cache")
    assert len(listed_by_git(repo, "cache")) == 3


def test_a_name_of_4095_bytes_or_more_is_read_to_its_nul(tmp_path: Path):
    repo = new_repo(tmp_path)
    long_name = "cache/" + "/".join(["d" * 200] * 25) + "/entry.npy"  # 5,041 bytes: the flags say 0xFFF
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{BLOB},{long_name}")  # an entry without a file
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{BLOB},cache/short")
    for version in (2, 4):
        git(repo, "update-index", "--index-version", str(version))
        assert sorted(tracked_files(repo, repo / "cache") or []) == listed_by_git(repo, "cache")


def test_the_stages_of_a_conflicted_file_are_one_file(tmp_path: Path):
    repo = new_repo(tmp_path, "-b", "main")
    add_files(repo, ["cache/x.npy"])
    git(repo, "commit", "-qm", "one")
    git(repo, "checkout", "-qb", "other")
    (repo / "cache/x.npy").write_text("other")
    git(repo, "commit", "-qam", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "cache/x.npy").write_text("main")
    git(repo, "commit", "-qam", "main")
    subprocess.run(["git", "-C", str(repo), "merge", "-q", "other"], capture_output=True, check=False)
    assert len(git(repo, "ls-files", "--stage", "--", "cache").splitlines()) == 3  # base, ours, theirs
    assert tracked_files(repo, repo / "cache") == [repo / "cache/x.npy"] == listed_by_git(repo, "cache")
    assert vcs.tracked(repo, repo / "cache") == [repo / "cache/x.npy"]  # git's three lines, counted once


def test_a_sha256_repository(tmp_path: Path):
    repo = new_repo(tmp_path, "--object-format=sha256")
    add_files(repo, ["cache/a.npy", "cache/b/c.npy", "d.txt"])
    assert sorted(tracked_files(repo, repo / "cache") or []) == listed_by_git(repo, "cache")


def test_a_worktree_and_a_subdirectory_as_the_start(tmp_path: Path):
    repo = new_repo(tmp_path, "-b", "main")
    add_files(repo, ["cache/a.npy", "src/b.py"])
    git(repo, "commit", "-qm", "one")
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", str(tree))
    assert (tree / ".git").is_file()
    add_files(tree, ["cache/only-here.npy"])
    assert sorted(tracked_files(tree / "src", tree / "cache") or []) == listed_by_git(tree, "cache")
    assert len(listed_by_git(tree, "cache")) == 2


def test_a_sparse_directory_entry_stands_for_the_files_under_it(tmp_path: Path):
    repo = new_repo(tmp_path, "-b", "main")
    add_files(repo, ["keep/a.txt", "gate-cache/x/k.npy", "gate-cache/y.npy"])
    git(repo, "commit", "-qm", "one")
    git(repo, "sparse-checkout", "set", "--cone", "--sparse-index", "keep")
    assert b"gate-cache/" in (repo / ".git/index").read_bytes()  # a directory entry, its files not listed
    assert tracked_files(repo, repo / "gate-cache") == [repo / "gate-cache"]
    assert tracked_files(repo, repo / "gate-cache/x") == [repo / "gate-cache"]
    assert tracked_files(repo, repo / "keep") == [repo / "keep/a.txt"]


def test_what_it_cannot_read_is_none_never_an_error(tmp_path: Path):
    repo = new_repo(tmp_path)
    assert tracked_files(repo, repo) == []  # a repository without an index yet
    add_files(repo, ["cache/a.npy", "cache/b.npy"])
    index = (repo / ".git/index").read_bytes()
    assert tracked_files(tmp_path, tmp_path) is None  # not a repository
    assert tracked_files(repo, tmp_path) is None  # outside the checkout
    for broken in (b"", index[:7], index[:40], index[:-30], b"XXXX" + index[4:], index[:4] + b"\0\0\0\5" + index[8:]):
        (repo / ".git/index").write_bytes(broken)
        assert tracked_files(repo, repo / "cache") is None, broken[:12]
    (repo / ".git/index").write_bytes(index)
    git(repo, "update-index", "--split-index")  # the entries move to a shared index: cannot tell from this file
    assert tracked_files(repo, repo / "cache") is None
    (repo / ".git").rename(repo / "elsewhere")
    (repo / ".git").write_text("gitdir: missing\n")
    assert tracked_files(repo, repo / "cache") is None


def test_fuzzed_indexes_never_raise(tmp_path: Path):
    repo = new_repo(tmp_path)
    add_files(repo, varied_names(7, 40))
    rng = random.Random(0)
    for version in (2, 3, 4):
        git(repo, "update-index", "--index-version", str(version))
        index = bytearray((repo / ".git/index").read_bytes())
        for _ in range(300):
            mutated = bytearray(index)
            for _ in range(rng.randint(1, 4)):
                mutated[rng.randrange(12, len(mutated))] = rng.randrange(256)
            names = _index_names(bytes(mutated), 20)
            assert names is None or all(isinstance(n, bytes) for n in names)

