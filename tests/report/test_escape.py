"""Model text cannot mention, link, inject HTML, break tables, fences or <details>."""

from __future__ import annotations

import pytest

from gate.report.escape import inert, inline_code

HOSTILE = [  # (model text, what must not survive)
    ("@octocat please merge", ["@octocat"]),
    ("fixes #12 and GH-3", [" #12"]),
    ("</td></tr></table></details><script>alert(1)</script>", ["</td", "</details", "<script", "</table"]),
    ("```\nrm -rf /\n```", ["```", "\n"]),
    ("| col | injected |", ["| col"]),
    ("**bold** _it_ ~~strike~~ [link](http://evil.example) ![img](x)", ["**", "_it_", "~~", "](", "http://"]),
    ("<!-- llm-quality-gate:other -->", ["<!--"]),
    ("line1\r\nline2\rline3\n", ["\r", "\n"]),
    ("\u202eRTL override\u2066", ["\u202e", "\u2066"]),
    ("&lt;already escaped&gt;", ["&lt;already"]),
]


@pytest.mark.parametrize("text, forbidden", HOSTILE)
def test_hostile_text_is_inert(text, forbidden):
    out = inert(text)
    for dangerous in forbidden:
        assert dangerous not in out, (dangerous, out)


def test_plain_text_stays_readable():
    assert inert("Good use of the Observer pattern.") == "Good use of the Observer pattern."
    assert inert("two\nlines") == "two<br>lines"
    assert inert("x" * 50, limit=10) == "xxxxxxxxx…"
    assert inert(None) == ""


def test_inline_code_cannot_be_broken_out_of():
    assert inline_code("gpt-4o`</code><b>") == "<code>gpt-4o&#96;&lt;/code&gt;&lt;b&gt;</code>"
