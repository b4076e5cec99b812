"""Make text that came from a model (or a user file) inert inside Markdown and HTML.

Model output must not be able to @mention people, link issues (#123), inject HTML, close a
`<details>` block, open a code fence or break a table. Everything that could is replaced by an
HTML character reference, which GitHub renders as the same character but does not interpret.
"""

from __future__ import annotations

import re

# Characters with Markdown or HTML meaning, as numeric character references.
_REPLACEMENTS = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
    "|": "&#124;", "`": "&#96;", "*": "&#42;", "_": "&#95;", "~": "&#126;",
    "[": "&#91;", "]": "&#93;", "\\": "&#92;", "#": "&#35;", "@": "&#64;",
    "://": "&#58;//",  # no autolinked URLs from model text
}
_PATTERN = re.compile("|".join(re.escape(c) for c in sorted(_REPLACEMENTS, key=len, reverse=True)))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def inert(text: object, limit: int | None = None, newline: str = "<br>") -> str:
    """Escape `text` for a Markdown table cell or an HTML block; newlines become `newline`."""
    value = "" if text is None else str(text)
    value = _CONTROL.sub("", value)  # control and bidi-override characters
    if limit is not None and len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    value = _PATTERN.sub(lambda m: _REPLACEMENTS[m.group(0)], value)
    return re.sub(r"\r\n|\r|\n", newline, value.strip())


def inline_code(text: object) -> str:
    """An identifier (suite, model, metric name) shown as code; backticks cannot escape the span."""
    value = _CONTROL.sub("", "" if text is None else str(text)).replace("\n", " ")
    return "<code>" + inert(value, limit=200, newline=" ") + "</code>"
