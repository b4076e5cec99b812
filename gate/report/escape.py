"""Make text that came from a model (or a user file) inert inside Markdown and HTML.

Model output must not be able to @mention people, link issues (#123), inject HTML, close a
`<details>` block, open a code fence or break a table. Everything that could is replaced by an
HTML character reference, which GitHub renders as the same character but does not interpret.
"""

from __future__ import annotations

import re

from gate.io.redact import redact

# Characters with Markdown or HTML meaning, as numeric character references.
_REPLACEMENTS = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
    "|": "&#124;", "`": "&#96;", "*": "&#42;", "_": "&#95;", "~": "&#126;",
    "[": "&#91;", "]": "&#93;", "\\": "&#92;", "#": "&#35;", "@": "&#64;",
    "://": "&#58;//",  # no autolinked URLs from model text
    "$": "&#36;",  # GitHub renders $…$ and $$…$$ as math: \color and \Huge could fake a verdict
}
_PATTERN = re.compile("|".join(re.escape(c) for c in sorted(_REPLACEMENTS, key=len, reverse=True)))
# GitHub also autolinks `www.example.com` and issue references written `GH-123`.
_AUTOLINK = re.compile(r"\b(www)\.|\b(gh)-(?=\d)", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def inert(text: object, limit: int | None = None, newline: str = "<br>") -> str:
    """Escape `text` for a Markdown table cell or an HTML block; newlines become `newline`."""
    # Secrets first: once escaped (`ghs&#95;…`) a token no longer matches what the writers mask.
    value = redact("" if text is None else str(text))
    value = _CONTROL.sub("", value)  # control and bidi-override characters
    if limit is not None and len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    value = _PATTERN.sub(lambda m: _REPLACEMENTS[m.group(0)], value)
    value = _AUTOLINK.sub(lambda m: f"{m.group(1)}&#46;" if m.group(1) else f"{m.group(2)}&#45;", value)
    return re.sub(r"\r\n|\r|\n", newline, value.strip())


def inline_code(text: object) -> str:
    """An identifier (suite, model, metric name) shown as code; backticks cannot escape the span."""
    value = _CONTROL.sub("", redact("" if text is None else str(text))).replace("\n", " ")
    return "<code>" + inert(value, limit=200, newline=" ") + "</code>"
