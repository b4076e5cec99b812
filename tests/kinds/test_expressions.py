"""Regular expressions over model output (`gate.kinds.expressions`): Python's `re` decides every search, a bad
expression is named with the parser's words, a search past its time limit raises instead of answering, and a
scorer's records are scored in time or named."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.io.source import SourceRef
from gate.kinds import expressions
from gate.kinds.expressions import SlowSearch, found, in_time, invalid_because


def test_found_agrees_with_re_on_generated_texts_and_expressions():
    rng = random.Random(7)
    searched = [r"\d{3}", r"^\s*[-*] ", r"(?i)error", r"\bfoo\b", r"a.c", r"[A-Z][a-z]+ [A-Z]", r"(?s)<b>.*</b>",
                   r"colou?r", r"\$\d+(\.\d\d)?", r"^$", r"(?m)^#+ ", r"[^\x00-\x7f]"]
    alphabet = "abcfo 01239-*#<>/\n\t$.EeRrOoÆé中"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        for expression in searched:
            assert found(expression, text) == bool(re.search(expression, text)), (expression, text)


def test_a_bad_expression_is_named_with_the_parsers_words():
    assert invalid_because(r"\d+(\.\d+)?") is None
    assert invalid_because("(") == "missing ) at position 1"
    assert invalid_because("[z-a]").startswith("bad character range")


def test_a_search_past_its_limit_raises_it_never_answers(monkeypatch):
    monkeypatch.setattr(expressions, "SEARCH_SECONDS", 0.05)
    start = time.monotonic()
    with pytest.raises(SlowSearch) as caught:
        found("(a|aa)+$", "a" * 5000 + "!")
    assert time.monotonic() - start < 2
    assert (caught.value.pattern, caught.value.seconds, caught.value.indicator) == ("(a|aa)+$", 0.05, "")
    assert found("(a|aa)+$", "aaaa")  # the same expression on text it does not explode on


def test_in_time_names_up_to_ten_slow_records_and_scores_the_others(monkeypatch):
    monkeypatch.setattr(expressions, "SEARCH_SECONDS", 0.02)
    texts = ["ok", *(["a" * 3000 + "!"] * 15), "fine"]

    def score(i: int) -> bool:
        return found("(a+)+$", texts[i])

    with pytest.raises(InputError) as caught:
        in_time(range(len(texts)), score, lambda i: SourceRef("r.jsonl", i + 1), "response")
    problems = caught.value.problems
    assert [p.line for p in problems] == list(range(2, 12)) and {p.field for p in problems} == {"response"}
    assert problems[0].expected == ("a response each regular expression searches within its limits (0.02 s per "
                                    "million characters, at least 0.02 s)")
    assert in_time(range(2), lambda i: i * 2, lambda i: None, "run") == [0, 2]


def test_a_rubric_without_expressions_never_imports_regex(tmp_path):
    """`regex` is imported by the first expression, never by a gate without one."""
    (tmp_path / "r.jsonl").write_text(json.dumps({"model": "m", "category": "coding", "prompt_id": "C1",
                                                  "response": "def f(): pass"}) + "\n")
    code = ("import sys, json\nfrom pathlib import Path\nfrom gate.config import GateConfig\n"
            "from gate.kinds.base import ScoringContext\nfrom gate.kinds.heuristic import score_heuristic\n"
            "from gate.kinds.heuristic.config import HeuristicSuiteConfig\n"
            "from gate.kinds.heuristic.records import load_heuristic\n"
            "suite = HeuristicSuiteConfig(kind='heuristic', records=['r.jsonl'])\n"
            "data = load_heuristic('h', suite, Path('.'))\n"
            "score_heuristic('h', suite, data, ScoringContext(GateConfig(version=1, suites={'h': suite}), None, "
            "Path('.')))\nprint('regex' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(Path(__file__).parents[3]), "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == "False", done.stderr


def test_the_limit_grows_with_the_text_so_a_long_honest_answer_is_searched():
    assert expressions.limit("x" * 10) == expressions.limit("x" * 1_000_000) == expressions.SEARCH_SECONDS
    assert expressions.limit("x" * 16_000_000) == 16 * expressions.SEARCH_SECONDS
    long = "abc def " * 250_000  # 2 million characters: a tempered token, the slowest common shape, ~0.3 s
    assert found(r"^(?:(?!forbidden).)*$", long) and not found(r"forbidden", long)


def test_a_search_that_exhausts_its_backtracking_memory_raises_it_never_answers(monkeypatch):
    """`regex` raises MemoryError (recoverably) when a search's backtracking outgrows what it allows (a tempered
    token over 16 MB does, at ~0.5 GB): simulated here, the real case costs seconds."""

    class Exhausted:
        def search(self, text: str, timeout: float) -> None:
            raise MemoryError

    monkeypatch.setattr(expressions, "compiled", lambda pattern: Exhausted())
    with pytest.raises(SlowSearch) as caught:
        found("^(?:(?!x).)*$", "text")
    assert caught.value.seconds is None and "outgrew the memory" in caught.value.what
