"""Freed memory handed back to the system after a BERTScore block (issue 37: peak RSS flat in the pairs)."""

from __future__ import annotations

import platform
import sys

import pytest

from gate.runtime.engines import heap


@pytest.fixture
def fresh():
    heap._malloc_trim.cache_clear()
    yield heap
    heap._malloc_trim.cache_clear()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_glibc_trims(fresh):
    assert fresh._malloc_trim() is not None
    fresh.return_freed_memory()


def test_elsewhere_nothing_is_called(fresh, monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert fresh._malloc_trim() is None
    fresh.return_freed_memory()  # a no-op, no error


def test_a_bertscore_release_returns_the_memory(monkeypatch, tmp_path):
    from gate.runtime.engines.bertscore import BertScoreEngine
    from tests.support.tiny_models import FEEDBACK_SENTENCES, build_tiny_bert

    calls: list[None] = []
    monkeypatch.setattr(heap, "return_freed_memory", lambda: calls.append(None))
    engine = BertScoreEngine.load(build_tiny_bert(tmp_path / "bert"), layer=2)
    engine.score(FEEDBACK_SENTENCES[:2], FEEDBACK_SENTENCES[2:4])
    engine.release(FEEDBACK_SENTENCES[:4])
    assert engine.held() == 0 and len(calls) == 1
