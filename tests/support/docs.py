"""The user-facing documentation as tests read it: README.md (the landing page) plus docs/**/*.md (the site).

Facts moved from the README into docs/ when the README became a landing page; tests that check a fact is
documented look in `text()`, and tests that check every code block look in `blocks()`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"
FENCE = re.compile(r"^( *)```(\w*)([^\n]*)\n(.*?)^\1```[ \t]*$", flags=re.MULTILINE | re.DOTALL)
TITLE = re.compile(r'title="([^"]+)"')


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is (`docs/x.md:LINE`), its language, its `title="…"` and its text."""

    where: str
    file: Path
    language: str
    title: str | None
    body: str


def files() -> list[Path]:
    """README.md, then every Markdown page of the site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def text() -> str:
    """All documentation text, README first."""
    return "\n\n".join(path.read_text() for path in files())


def blocks(*languages: str) -> list[Block]:
    """The fenced blocks in these languages (all when none is named), indentation removed."""
    found = []
    for path in files():
        source = path.read_text()
        for match in FENCE.finditer(source):
            indent, language, info, body = match.groups()
            if languages and language not in languages:
                continue
            lines = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in body.splitlines()]
            title = TITLE.search(info)
            where = f"{path.relative_to(REPO)}:{source[:match.start()].count(chr(10)) + 1}"
            found.append(Block(where, path, language, title.group(1) if title else None, "\n".join(lines) + "\n"))
    return found
