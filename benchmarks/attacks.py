"""Attacks on the verdict, as a pull request's author would try them, and what the gate posted (issue 31).

Each attack runs the real CLI in this process against a loopback GitHub (`tests/support/fake_github.py`, real
PyGithub) on a small model-free gate whose candidates regress, so the honest verdict is a failure:

- the trusted `workflow_run` job of a fork's pull request (`candidates_dir`): the artifact forges a verdict, a
  report, a gate.yml, snapshots, a cache, links out, hostile model text; the pull request's own gate.yml (served by
  GitHub at its head) adds a waiver, loosens or drops the check, sets `gate_changes: allow`;
- the single job with `base_checkout`: the pull request edits its gate the same ways, and self-blesses a snapshot.

Printed per attack: the exit code, the check-run conclusions posted, whether a verdict was forged (a `success`
conclusion or a passing comment for the regressed candidates), whether a gate edit passed unflagged, and whether
a line starting with `::` reached stdout/stderr other than the gate's own commands. The totals are the figures of
SECURITY.md's promise: forged verdicts 0, unflagged gate edits 0, internal errors 0.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/attacks.py
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEAD = "feedc0de" * 5
FORK = "mallory/widgets"
TOKEN = "ghs_attack_bench_0123456789"
GATE = """\
version: 1
name: shipgate
suites:
  rubric:
    kind: heuristic
    records: out/h.jsonl
    checks:
      final_score_mean: {min: 9.5}
"""
# The base's rubric docks every answer that ends in a run of `a` with a backtracking expression; the pull request's
# answers end in 5,000 of them and a `!`, on which the search never ends: read as "not found", they would score 10.
SHAPED_GATE = GATE.replace("    records: out/h.jsonl\n", "    records: out/h.jsonl\n    rubric: house.yml\n")
HOUSE = """\
version: 1
name: house
categories:
  coding:
    metrics:
      quality:
        weight: 1
        base: 10
        indicators:
          - {label: trailing run of a, matches: ['(a|aa)+$'], points: -10}
"""
HOSTILE = ("::error::forged\n@maintainers </details> <img src=x onerror=alert(1)> [x](javascript:alert(1)) "
           "\u202eevil #1 ::set-output name=verdict::pass")


def records(text: str = "def f(x):\n    return x\n") -> str:
    rows = [{"model": "m", "category": "coding", "prompt_id": f"P{i:02d}", "response": text} for i in range(1, 6)]
    return "".join(json.dumps(r) + "\n" for r in rows)


@dataclass
class Outcome:
    name: str
    code: int
    conclusions: list[str]
    forged: bool
    unflagged: bool
    commands: int
    note: str = ""


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    removed = {k: v for k, v in os.environ.items() if k.startswith(("GITHUB_", "INPUT_")) and k not in values}
    for key in removed:
        del os.environ[key]
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        os.environ.update(removed)


def cli(args: list[str], cwd: Path) -> tuple[int, str]:
    from gate.cli import main

    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    sys.argv = ["llm-gate", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = int(exc.code or 0)
    finally:
        os.chdir(before)
    return code, out.getvalue() + err.getvalue()


def foreign_commands(text: str) -> int:
    """Lines a runner would obey that the gate did not issue: any line starting with `::` (after white space) but
    the gate's own ::error/::warning/::notice/::add-mask commands — and those only when they carry no text the
    model wrote (the hostile record's `::error::forged` would be the model's)."""
    count = 0
    for line in re.split(r"\r\n|\r|\n", text):
        stripped = line.lstrip()
        if not stripped.startswith("::"):
            continue
        own = re.match(r"::(error|warning|notice|add-mask)[ :]", stripped)
        if not own or stripped.startswith("::error::forged") or stripped.startswith("::set-output"):
            count += 1
    return count


def trusted_job(server, work: Path, tamper: Callable[[Path, object], None], proposed: str | None = None,
                gate: str = GATE, files: dict[str, str] | None = None) -> tuple[int, str, object]:
    from tests.support.fake_github import FakeGitHub

    fake = FakeGitHub(base_url=server.url_for("").rstrip("/"))
    server.clear()
    server.expect_request(re.compile(".*")).respond_with_handler(fake.handle)
    base = work / "base"
    (base / "out").mkdir(parents=True)
    (base / "gate.yml").write_text(gate)
    for relative, text in (files or {}).items():
        (base / relative).write_text(text)
    (base / "out" / "h.jsonl").write_text("not json\n")  # the base's own copy is never what is judged
    artifact = base / ".gate-candidates"
    (artifact / "out").mkdir(parents=True)
    (artifact / "out" / "h.jsonl").write_text(records())
    event = work / "event.json"
    event.write_text(json.dumps({"workflow_run": {"event": "pull_request", "head_sha": HEAD, "head_branch": "f",
                                                  "pull_requests": [], "head_repository": {"full_name": FORK}}}))
    fake.open_pulls.append({"number": 7, "head_sha": HEAD, "head_repo": FORK, "head_ref": "f"})
    fake.pulls[7] = HEAD
    fake.pull_files[7] = [{"filename": "out/h.jsonl"}]
    if proposed is not None:
        fake.branches[HEAD] = {"gate.yml": proposed.encode()}
        fake.pull_files[7].append({"filename": "gate.yml"})
    tamper(artifact, fake)
    env = {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": fake.base_url, "GITHUB_REPOSITORY": "octo/widgets",
           "GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "ab" * 20,
           "GITHUB_RUN_ID": "9", "GITHUB_WORKSPACE": str(base), "GITHUB_STEP_SUMMARY": str(work / "summary"),
           "GITHUB_OUTPUT": str(work / "output"), "INPUT_CONFIG": "gate.yml", "INPUT_GITHUB_TOKEN": TOKEN,
           "INPUT_CANDIDATES_DIR": ".gate-candidates", "INPUT_CHECK_NAME": "shipgate", "INPUT_COMMENT_TITLE":
           "shipgate"}
    with environment(env):
        code, text = cli(["run", "-q"], base)
    return code, text, fake


def single_job(work: Path, edit: Callable[[Path], None], base_policy: str = "") -> tuple[int, str, dict | None]:
    pr = work / "pr"
    base = pr / ".gate-base"
    for root in (pr, base):
        (root / "out").mkdir(parents=True)
        (root / "gate.yml").write_text(GATE.replace("suites:", base_policy + "suites:"))
        (root / "out" / "h.jsonl").write_text(records())
    edit(pr)
    with environment({}):
        code, text = cli(["run", "--base-checkout", ".gate-base", "--no-publish", "-q", "-o", str(pr / "rep")], pr)
    report = pr / "rep" / "report.json"
    return code, text, json.loads(report.read_text()) if report.is_file() else None


def waiver(expires: str | None = None) -> str:
    """A waiver of the regressed check; by default one that is in force, three weeks from today (a fixed date
    would expire, and the attack would then be refused for the wrong reason)."""
    expires = expires or (datetime.now(timezone.utc).date() + timedelta(days=21)).isoformat()
    return (f"waivers:\n  - {{suite: rubric, metric: final_score_mean, reason: trust me, owner: '@mallory', "
            f"expires: {expires}}}\n")


def main() -> int:
    from pytest_httpserver import HTTPServer

    from gate.publish.github import client as gate_github

    gate_github.REQUEST_SPACING = (0, 0)
    results: list[Outcome] = []

    def link(target: str) -> Callable[[Path, object], None]:
        def tamper(artifact: Path, fake: object) -> None:
            (artifact / "out" / "h.jsonl").unlink()
            (artifact / "out" / "h.jsonl").symlink_to(target)
        return tamper

    def write(relative: str, text: str) -> Callable[[Path, object], None]:
        def tamper(artifact: Path, fake: object) -> None:
            (artifact / relative).parent.mkdir(parents=True, exist_ok=True)
            (artifact / relative).write_text(text)
        return tamper

    trusted: list[tuple[str, Callable[[Path, object], None], str | None]] = [
        ("artifact: forged publish.json (success)", write("gate-report/publish.json", json.dumps(
            {"verdict": "pass", "conclusion": "success", "title": "All 99 checks passed", "check_name": "tests"})),
         None),
        ("artifact: forged report.md", write("gate-report/report.md", "## ✅ shipgate: passed\n"), None),
        ("artifact: lenient gate.yml", write("gate.yml", GATE.replace("9.5", "0")), None),
        ("artifact: gate.yml with a waiver", write("gate.yml", GATE + waiver()), None),
        ("artifact: snapshot halving the baseline", write("baselines/metrics/rubric.json", "{}"), None),
        ("artifact: forged cache entries", write(".gate-cache/vectors/00/forged.npy", "\x93NUMPY"), None),
        ("artifact: candidate is a link to the base's file", link("../../gate.yml"), None),
        ("artifact: candidate is a link to /etc/passwd", link("/etc/passwd"), None),
        ("artifact: hostile model text", write("out/h.jsonl", records(HOSTILE)), None),
        ("PR gate.yml: waiver to 9999-12-31", lambda a, f: None, GATE + waiver("9999-12-31")),
        ("PR gate.yml: waiver within 90 days", lambda a, f: None, GATE + waiver()),
        ("PR gate.yml: threshold loosened", lambda a, f: None, GATE.replace("9.5", "0.5")),
        ("PR gate.yml: check removed", lambda a, f: None, GATE.replace(
            "    checks:\n      final_score_mean: {min: 9.5}\n", "")),
        ("PR gate.yml: gate_changes allow + waiver", lambda a, f: None, "gate_changes: allow\n" + GATE + waiver()),
    ]
    attacks = [(name, tamper, proposed, GATE, None) for name, tamper, proposed in trusted] + [
        ("artifact: text a rubric expression never finishes on", write("out/h.jsonl", records("a" * 5000 + "!")),
         None, SHAPED_GATE, {"house.yml": HOUSE})]
    server = HTTPServer()
    server.start()
    try:
        for name, tamper, proposed, gate, files in attacks:
            with tempfile.TemporaryDirectory() as tmp:
                code, text, fake = trusted_job(server, Path(tmp), tamper, proposed, gate, files)
            runs = fake.check_runs
            conclusions = [r.get("conclusion") for r in runs]
            comments = [c["body"] for cs in fake.comments.values() for c in cs]
            forged = "success" in conclusions or any("✅ shipgate: passed" in c for c in comments) or code == 0
            gate_edit = proposed is not None
            unflagged = gate_edit and not any("changes its own gate" in c for c in comments)
            note = "refused (exit 2)" if code == 2 else ""
            results.append(Outcome(name, code, conclusions, forged, unflagged, foreign_commands(text), note))
    finally:
        server.stop()

    def pr_edit(gate_text: str | None = None, snapshot: bool = False) -> Callable[[Path], None]:
        def edit(pr: Path) -> None:
            if gate_text is not None:
                (pr / "gate.yml").write_text(gate_text)
            if snapshot:
                (pr / "baselines" / "metrics").mkdir(parents=True)
                (pr / "baselines" / "metrics" / "rubric.json").write_text("{}")
        return edit

    single = [
        ("single job: waiver within 90 days", pr_edit(GATE + waiver())),
        ("single job: waiver to 9999-12-31", pr_edit(GATE + waiver("9999-12-31"))),
        ("single job: threshold loosened", pr_edit(GATE.replace("9.5", "0.5"))),
        ("single job: check removed", pr_edit(GATE.replace("    checks:\n      final_score_mean: {min: 9.5}\n", ""))),
        ("single job: self-blessed snapshot", pr_edit(snapshot=True)),
        ("single job: gate_changes allow + waiver", pr_edit("gate_changes: allow\n" + GATE + waiver())),
    ]
    for name, edit in single:
        with tempfile.TemporaryDirectory() as tmp:
            code, text, report = single_job(Path(tmp), edit)
        listed = bool(report and report.get("gate_changes") and report["gate_changes"]["changes"])
        forged = code == 0 or (report is not None and report["verdict"] == "pass")
        results.append(Outcome(name, code, [report["verdict"]] if report else [], forged, not listed,
                               foreign_commands(text)))

    width = max(len(r.name) for r in results)
    print(f"{'attack':<{width}}  exit  posted              forged  unflagged  '::' lines")
    for r in results:
        print(f"{r.name:<{width}}  {r.code:>4}  {','.join(map(str, r.conclusions)) or '-':<18}  "
              f"{'YES' if r.forged else 'no':<6}  {'YES' if r.unflagged else 'no':<9}  {r.commands}  {r.note}")
    internal = sum(1 for r in results if r.code == 3)
    print(f"\nattacks: {len(results)}; verdicts forged: {sum(r.forged for r in results)}; gate edits unflagged: "
          f"{sum(r.unflagged for r in results)}; internal errors: {internal}; foreign '::' lines: "
          f"{sum(r.commands for r in results)}")
    return 1 if any(r.forged or r.unflagged or r.commands for r in results) or internal else 0


if __name__ == "__main__":
    raise SystemExit(main())
