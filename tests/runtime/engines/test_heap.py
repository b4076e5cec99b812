"""Freed memory handed back to the system after a BERTScore block (issue 37: peak RSS flat in the pairs)."""

from __future__ import annotations

import json
import platform
import subprocess
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


def test_a_module_imported_for_the_run_is_frozen_without_collections_during_the_import():
    """torch's ~300,000 objects stay out of the collector's walks; the collector is on again afterwards."""
    code = (
        "import gc, json, sys\n"
        "from gate.runtime.engines import heap\n"
        "collections = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and collections.append(info['generation']))\n"
        "before = gc.get_freeze_count()\n"
        "module = heap.import_for_the_run('xml.dom.minidom')\n"
        "during = list(collections)\n"
        "again = heap.import_for_the_run('xml.dom.minidom')\n"
        "print(json.dumps([module.__name__, module is again, during, gc.isenabled(),"
        " gc.get_freeze_count() > before]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["xml.dom.minidom", True, [], True, True]
