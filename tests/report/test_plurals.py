"""A count beside a noun agrees with it: a gate with one model said '1 models' (issue 32, item 14e). Counts in the
report views and the commands' summaries go through `counted`; a count pasted before a plural noun is flagged."""

from __future__ import annotations

import re
from pathlib import Path

from gate.report.formatting import counted

GATE = Path(__file__).resolve().parents[2] / "gate"
NOUNS = "models|groups|exercises|probes|tasks|categories|questions|responses|suite metrics|items"
# `{len(models)} models`, `{settings.probes} probes`: a bare count pasted before one of the nouns above
PASTED = re.compile(rf"\{{(?:len\([\w.]+\)|[\w.]+)(?::,)?\}} (?:{NOUNS})\b")


def test_counted_agrees_with_the_count():
    assert counted(1, "model") == "1 model" and counted(2, "model") == "2 models"
    assert counted(1, "category", "categories") == "1 category" and counted(0, "category", "categories") == \
        "0 categories"
    assert counted(12_000, "item") == "12,000 items"


def test_the_report_views_and_bless_paste_no_count_before_a_plural_noun():
    files = [*sorted(GATE.glob("kinds/*/view.py")), GATE / "cli" / "commands" / "bless.py",
             GATE / "kinds" / "drift" / "feedback.py"]
    assert len(files) >= 7  # every built-in kind's view, and what bless prints
    slips = [f"{path.relative_to(GATE)}: {match.group(0)}" for path in files
             for match in PASTED.finditer(path.read_text(encoding="utf-8"))]
    assert slips == []
