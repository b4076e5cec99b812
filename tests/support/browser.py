"""Debian's chromium driven by playwright, for the browser tests; they skip, saying how to get both, where
either is missing. Never `playwright install`: it downloads a browser build from outside Debian."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

INSTALL = ("to run it: `apt-get install chromium` and `pip install playwright` (Debian's chromium; never "
           "`playwright install`)")


def chromium_path() -> Path | None:
    found = shutil.which("chromium") or "/usr/bin/chromium"
    return Path(found) if Path(found).exists() else None


def sync_api():
    """playwright's sync API, or a skip naming what to install."""
    return pytest.importorskip("playwright.sync_api", reason=f"playwright is not installed; {INSTALL}")


def chromium() -> str:
    """chromium's path, or a skip naming what to install."""
    path = chromium_path()
    if path is None:
        pytest.skip(f"Debian's chromium is not installed; {INSTALL}")
    return str(path)


SKIP_WITHOUT_CHROMIUM = pytest.mark.skipif(chromium_path() is None,
                                           reason=f"Debian's chromium is not installed; {INSTALL}")
