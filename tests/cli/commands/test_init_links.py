"""Every link `llm-gate init` writes into a starter (gate.yml, workflows, Next steps) names a page this repository
has, and an anchor a heading of it makes: init's gate.yml linked a README heading that had been removed
(issue 32, item 14f). The gitignore init writes covers the bless recipe's runs (docs/baselines.md, item 14g)."""

from __future__ import annotations

import re
from pathlib import Path

from gate.cli.commands.init import GITIGNORE, REPOSITORY, init_repository, parse_kinds

REPO = Path(__file__).resolve().parents[3]
LINK = re.compile(rf"https://github\.com/{re.escape(REPOSITORY)}(?:/blob/[^/\s]+/([^\s#)]+))?(?:#([\w-]+))?")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces to -."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"#{1,6} (.+)", line):
            out.add(re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-"))
    return out


def test_every_link_in_the_starter_names_a_page_and_heading_that_exist(tmp_path, capsys):
    for trusted in (True, False):
        init_repository(tmp_path / str(trusted), kinds=parse_kinds("all"), trusted=trusted)
    written = "\n".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file())
    written += capsys.readouterr().out  # the Next steps
    links = LINK.findall(written)
    assert links, "init's starter links the documentation"
    for path, anchor in links:
        page = REPO / (path or "README.md")
        assert page.is_file(), f"init links {path}, which this repository does not have"
        assert not anchor or anchor in anchors(page), f"init links {page.name}#{anchor}, a heading it does not have"


def test_the_gitignore_covers_what_the_recipes_write():
    baselines = (REPO / "docs" / "baselines.md").read_text(encoding="utf-8")
    [folder] = set(re.findall(r"--output-dir ([\w.-]+)/\$i", baselines))
    assert f"{folder}/" in GITIGNORE
    assert f"{folder}/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
