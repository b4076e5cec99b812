"""The example's dashboard in a real browser (Debian chromium via playwright): charts render, sorting
and filtering work, nothing is fetched, nothing logs an error, hostile text stays text."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gate.report import dashboard
from tests.report.test_dashboard import HOSTILE, RUN, verdict_with
from tests.support import browser as browser_support

pytestmark = browser_support.SKIP_WITHOUT_CHROMIUM
playwright = browser_support.sync_api()
CHROMIUM = str(browser_support.chromium_path())
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
        "--no-first-run", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def example_dashboard(tmp_path_factory):
    from tests.test_cli import run_cli

    work = tmp_path_factory.mktemp("dashboard")
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples", work / "examples",
                    ignore=shutil.ignore_patterns("gate-report"))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(work)
        for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ACTIONS"):
            mp.delenv(name, raising=False)
        assert run_cli(mp, "run", "-c", "examples/gate.yml", "--output-dir", "out", "-q") == 1
    return work / "out" / "report.html"


class Watched:
    def __init__(self, page, url: str):
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.goto(url)


def test_example_dashboard_in_the_browser(browser, example_dashboard, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    url = example_dashboard.as_uri()
    watched = Watched(page, url)
    # charts render: every suite has SVG charts with bars of real size
    assert page.locator("section.suite").count() == 5
    assert page.locator("svg.chart").count() >= 5
    sizes = page.eval_on_selector_all("svg.chart rect.bar", "els => els.map(e => e.getBoundingClientRect().height)")
    assert len(sizes) > 50 and max(sizes) > 20
    # sorting: open the first suite's items and sort by bertscore_f1, both ways
    first = page.locator("section.suite").first
    first.locator("details", has_text="Items").locator("summary").click()
    header = first.locator(".item-table th", has_text="bertscore_f1")
    column = first.locator(".item-table th").all_text_contents().index("bertscore_f1")

    def shown():
        return [float(t) for t in first.locator(f".item-table tbody tr td:nth-child({column + 1})").all_text_contents()]

    header.click()
    assert shown() == sorted(shown()) and header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert shown() == sorted(shown(), reverse=True) and header.get_attribute("aria-sort") == "descending"
    # filtering
    first.locator(".item-table input[type=search]").fill("llama")
    models = first.locator(".item-table tbody tr td:nth-child(3)").all_text_contents()
    assert models and all("llama" in m for m in models)
    assert "33 rows" in first.locator(".page-info").text_content()
    # a server-rendered table sorts too
    checks = first.locator("table.sortable-table").first
    checks.locator("th", has_text="Value").click()
    assert checks.locator("th", has_text="Value").get_attribute("aria-sort") == "ascending"
    shots = Path(os.environ.get("LLM_GATE_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "dashboard.png"), full_page=False)
    assert not watched.errors, watched.errors
    assert watched.requests == [url], watched.requests  # nothing leaves the page
    page.close()


def test_readable_on_a_phone_in_dark_mode(browser, example_dashboard, tmp_path):
    page = browser.new_page(viewport={"width": 390, "height": 844}, color_scheme="dark")
    watched = Watched(page, example_dashboard.as_uri())
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1  # wide tables scroll inside their box, not the page
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(13, 17, 23)"
    page.screenshot(path=str(tmp_path / "phone-dark.png"))
    assert not watched.errors
    page.close()


def test_hostile_text_cannot_run_script(browser, tmp_path):
    path = tmp_path / "hostile.html"
    path.write_text(dashboard.render(verdict_with(5, model=HOSTILE), RUN))
    page = browser.new_page()
    watched = Watched(page, path.as_uri())
    page.locator("details", has_text="Items").locator("summary").click()
    assert not watched.dialogs and not watched.errors
    assert page.locator("img").count() == 0
    assert "<img src=x onerror=alert(2)>" in page.locator(".item-table tbody").inner_text()  # text, not markup
    page.close()
