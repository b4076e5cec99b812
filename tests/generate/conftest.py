from __future__ import annotations

import os

import pytest

from tests.generate import fake_openai

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture
def openai_server():
    fake = fake_openai.start()
    try:
        yield fake
    finally:
        fake.server.clear()
        fake.server.stop()
