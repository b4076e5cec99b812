"""What `llm-gate run` shows while it works and when it is done: timestamped lines and `::group::`s in a CI log,
the engines' work labelled with the suites it serves, one "wrote" line (every file with --verbose), `run -o`."""

from __future__ import annotations

import io
import json
import os
import re
import sys

import pytest

from gate.io import redact
from gate.publish import actions
from gate.run import read_config
from gate.runtime.engines.progress import Mode, Reporter
from gate.runtime.engines.session import TorchRuntime
from gate.steps import compute_model_work, load_suites, select_suites
from tests.conftest import EXAMPLES
from tests.test_cli import run_cli

STAMP = re.compile(r"^\[\d\d:\d\d:\d\d\] ")
CONFIG = """version: 1
name: progress
suites:
  strict:
    kind: heuristic
    records: h.jsonl
    checks:
      final_score_mean: {min: 9.9}
  lenient:
    kind: heuristic
    records: h.jsonl
    checks:
      final_score_mean: {min: 0}
report: {formats: [markdown, json, junit]}
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A heuristic gate (no model to load) in a clean environment: `strict` fails, `lenient` passes."""
    row = {"model": "m", "category": "coding", "prompt_id": "P01", "response": "def f(x):\n    return x\n"}
    (tmp_path / "h.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "gate.yml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    return tmp_path


def test_in_actions_each_suite_is_a_group_of_timestamped_lines(project, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # read by Settings; capsys's stderr is no terminal
    assert run_cli(monkeypatch, "run", "--no-publish", "-o", "out") == 1
    captured = capsys.readouterr()
    groups = [line for line in captured.out.splitlines() if line.startswith("::")]
    assert groups == ["::group::strict", "::endgroup::", "::group::lenient", "::endgroup::"]
    progress = captured.err.splitlines()
    assert [STAMP.sub("", line) for line in progress if STAMP.match(line)][:2] == [
        "strict: scoring (heuristic)", progress[1][11:]]
    assert any(re.fullmatch(r"\[\d\d:\d\d:\d\d\] lenient: done, \d+\.\d s", line) for line in progress)
    assert (project / "out" / "report.md").is_file()  # -o is --output-dir


def test_outside_actions_the_lines_come_without_groups_and_quiet_silences_them(project, monkeypatch, capsys):
    assert run_cli(monkeypatch, "run", "--no-publish", "-o", "out") == 1
    captured = capsys.readouterr()
    assert "::group::" not in captured.out and sum(bool(STAMP.match(x)) for x in captured.err.splitlines()) == 4
    assert run_cli(monkeypatch, "run", "--no-publish", "-o", "out", "--quiet") == 1
    assert not any(STAMP.match(line) for line in capsys.readouterr().err.splitlines())


def test_the_summary_says_what_it_wrote_in_one_line_and_lists_it_with_verbose(project, monkeypatch, capsys):
    assert run_cli(monkeypatch, "run", "--no-publish", "-q", "-o", "out") == 1
    out = capsys.readouterr().out
    wrote = [line for line in out.splitlines() if "wrote" in line]
    assert len(wrote) == 1, out
    names = sorted(p.relative_to(project / "out").as_posix() for p in (project / "out").rglob("*")
                   if p.is_file() and p.name not in ("publish.json", ".llm-gate-report"))
    assert wrote[0].startswith(f"  wrote {len(names)} files to out/ (report.md, report.json, junit.xml, ")
    assert wrote[0].endswith(f"… {len(names) - 4} more (--verbose lists them))")
    assert "  gate.yml checks: 1 pass, 1 fail" in out  # says what it counts
    assert run_cli(monkeypatch, "run", "--no-publish", "-q", "-o", "out", "--verbose") == 1
    listed = [line.strip() for line in capsys.readouterr().out.splitlines() if line.startswith("    out/")]
    assert sorted(listed) == [f"out/{n}" for n in names]


@pytest.mark.parametrize("title", ["drift\n::set-output name=verdict::pass", "a::warning::b", "x\r::add-mask::y%0A"])
def test_a_group_title_cannot_break_out_of_its_command(title, capsys):
    """A title is escaped into one `::group::` line: nothing after it starts a line with `::`."""
    with redact.guard({"GITHUB_ACTIONS": "true"}):
        reporter = Reporter(Mode.LINES, stream=sys.stderr, group=actions.group)
        with reporter.step(title, "scoring"):
            sys.stdout.write("::warning::printed by a scorer\n")
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("::")] == [out[0], "::endgroup::"]
    assert out[0].startswith("::group::") and "\n" not in out[0] and "\r" not in out[0]


def test_the_model_work_is_labelled_with_the_suites_each_engine_serves(tmp_path):
    """The example's model work, shown as lines: torch, then one labelled task per engine, in a bounded log."""
    config = read_config(EXAMPLES / "gate.yml")
    runtime_config = config.runtime.model_copy(update={"cache_dir": str(tmp_path / "cache"), "cache": False})
    config = config.model_copy(update={"runtime": runtime_config})
    loaded = load_suites(select_suites(config, []), EXAMPLES)
    seconds = iter(range(0, 10**6, 3))  # every look at the clock: 3 s later
    out = io.StringIO()
    reporter = Reporter(Mode.LINES, stream=out, clock=lambda: 1.7e9 + next(seconds))
    compute_model_work(loaded, config, TorchRuntime(config.runtime, EXAMPLES), EXAMPLES, block_texts=16,
                       shown=reporter)
    lines = out.getvalue().splitlines()
    assert all(STAMP.match(line) for line in lines)
    texts = [STAMP.sub("", line) for line in lines]
    assert texts[0] == "loading torch…"
    starts = [t for t in texts if t.endswith(" to do")]
    # drift scores with BERTScore; stereotype classifies and embeds; stability and RAG's retrieval embed
    assert sorted(t.split(": ")[0] for t in starts) == [
        "feedback-drift · BERTScore (all-MiniLM-L6-v2, layer 6)",
        "stereotype · classifier (hearts-standin)",
        "stereotype, stability, retrieval · embeddings (all-MiniLM-L6-v2)"]
    assert texts[1] == "feedback-drift · BERTScore (all-MiniLM-L6-v2, layer 6): loading " \
                       "sentence-transformers/all-MiniLM-L6-v2…"
    ends = [t for t in texts if t.endswith(" — done")]
    assert len(ends) == len(starts)
    blocks = sum(int(t.split(": ")[-1].split(" ")[0]) for t in starts) // 16 + len(starts)
    assert len(lines) < 1 + 4 * len(starts) + blocks // 3  # one line per 10 s at most, 3 s a block
