"""The check run's texts as GitHub takes them (pure): each sized in the unit GitHub counts, the shorter texts a
refused write is tried again with, and the jobs of one workflow run that posted under one check name.

GitHub's limits, and what it counts: `output.summary` and `output.text` 65,535 bytes of UTF-8 ("summary exceeds a
maximum bytesize of 65535", github/docs#35252, github/rest-api-description#5399); an annotation's `title` 255
characters and its `message` and `raw_details` 64 KB; 50 annotations a request; `output.title` has no documented
limit, so it is held to the annotation title's 255 characters. A commit status's `description` takes 140 characters
(`checks.STATUS_DESCRIPTION_LIMIT`), an issue comment 65,536 characters (`gate.report.sizing.GITHUB_TEXT_LIMIT`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from gate.publish.bundle import PublishBundle
from gate.report.annotations import MAX_ANNOTATIONS, Level
from gate.report.sizing import CHECK_RUN_TEXT, clip_bytes

TITLE_LIMIT = 255  # characters of output.title (undocumented; the annotation title's documented limit)
SUMMARY_RESERVE = 2_048  # bytes kept free of the fitted report for the lines posting adds above and below it
SHORT_SUMMARY_BYTES = 16_384  # the first retry's summary: the report's head, cut at a line
LEGS_SHOWN = 20  # jobs a shared check's summary names one by one
LEGS_KEPT = 100  # jobs its hidden line remembers
LEGS_LINE = re.compile(r"<!-- llm-quality-gate:legs (\{.*?\}) -->")
# How bad a conclusion is for the check a matrix shares: a later job never makes it better
RANK = {"success": 0, "neutral": 1, "skipped": 1}
WORST = 2  # failure, and any other conclusion (cancelled, timed_out, action_required)
ICONS = {"success": "✅", "neutral": "⚪", "skipped": "⚪"}


def title(text: str) -> str:
    return text if len(text) <= TITLE_LIMIT else text[:TITLE_LIMIT - 1] + "…"


def annotations_line(bundle: PublishBundle) -> str | None:
    """"500 of 3,334 failed checks annotated (GitHub's limit); all in the summary and report" — said when the
    annotations stop at MAX_ANNOTATIONS before the run's failed (warned) checks do."""
    if len(bundle.annotations) < MAX_ANNOTATIONS:
        return None
    parts = []
    for level, real, noun in ((Level.FAILURE, bundle.failed_checks, "failed"),
                              (Level.WARNING, bundle.warned_checks, "warned")):
        shown = sum(1 for a in bundle.annotations if a.level is level)
        if real is not None and real > shown:
            parts.append(f"{shown:,} of {real:,} {noun} check{'s' if real != 1 else ''}")
    if not parts:
        return None
    return (f"{' and '.join(parts)} annotated (GitHub's limit: the gate posts at most {MAX_ANNOTATIONS}); all are "
            "in the summary and the report.")


def summary(bundle: PublishBundle, above: Sequence[str] = (), body: str | None = None) -> str:
    """The summary as posted: the lines `above`, then the report (`body`, default the bundle's), never past 65,535
    bytes (the report is cut, at a line, before anything else)."""
    head = "".join(f"> {line}\n" for line in above) + ("\n" if above else "")
    room = CHECK_RUN_TEXT.size - CHECK_RUN_TEXT.measure(head)
    text = bundle.summary if body is None else body
    if CHECK_RUN_TEXT.measure(text) > room:
        marker = "\n\n… cut to fit GitHub's 65,535-byte limit; the full report is in the job's report artifact.\n"
        text = _at_line(clip_bytes(text, max(0, room - CHECK_RUN_TEXT.measure(marker)))) + marker
    return clip_bytes(head + text, CHECK_RUN_TEXT.size)


def short_summary(bundle: PublishBundle) -> str:
    """The first retry after GitHub refused the summary: its head (verdict, counts, the first rows of the failing
    checks), cut at a line, and where the rest is."""
    where = f"the [workflow run]({bundle.run_url})'s report artifact" if bundle.run_url else "`report.md`"
    head = _at_line(clip_bytes(bundle.summary, SHORT_SUMMARY_BYTES))
    return f"{head}\n\n… shortened after GitHub refused the full summary; the full report is in {where}.\n"


def one_line(bundle: PublishBundle) -> str:
    where = f"the [workflow run]({bundle.run_url})" if bundle.run_url else "`report.md` of the job"
    return f"**{bundle.verdict}**: {title(bundle.title)}. The report is in {where}."


def _at_line(text: str) -> str:
    cut = text.rfind("\n")
    return text[:cut] if cut > 0 else text


def worst(conclusions: Sequence[str]) -> str:
    return max(conclusions, key=lambda c: RANK.get(c, WORST), default="success")


def legs_line(run_url: str, legs: Mapping[str, Sequence[str | None]]) -> str:
    """The hidden line (the check run's `output.text`, far below 65,535 bytes: 100 jobs at most) that tells a later
    job of the same workflow run which jobs posted under the check's name: {leg: [its own conclusion, its URL]}."""
    kept = dict(list(legs.items())[-LEGS_KEPT:])
    text = json.dumps({"run": run_url, "legs": kept}, ensure_ascii=True, separators=(",", ":"))
    text = text.replace(">", "\\u003e").replace("--", "-\\u002d")  # never ends the HTML comment
    return f"<!-- llm-quality-gate:legs {text} -->"


def posted_legs(summary_text: str | None, run_url: str) -> dict[str, list[str | None]] | None:
    """The jobs a check run's hidden line names for `run_url`; None without one (another run's, or none)."""
    found = LEGS_LINE.search(summary_text or "")
    try:
        data = json.loads(found.group(1)) if found else None
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("run") != run_url or not isinstance(data.get("legs"), dict):
        return None
    return {str(k): [str(v[0]), v[1] if len(v) > 1 and isinstance(v[1], str) else None]
            for k, v in data["legs"].items() if isinstance(v, list) and v and isinstance(v[0], str)}


def legs_lines(legs: Mapping[str, Sequence[str | None]], this: str) -> list[str]:
    """The summary's visible lines naming the jobs behind a shared check, and that it shows the worst."""
    named = [f"{ICONS.get(str(c), '❌')} `{leg[:80]}` {c}" + (" (this job)" if leg == this else
                                                              f" ([check run]({url}))" if url else "")
             for leg, (c, url, *_) in list(legs.items())[:LEGS_SHOWN]]
    more = f", and {len(legs) - LEGS_SHOWN} more" if len(legs) > LEGS_SHOWN else ""
    return [f"{len(legs)} jobs of this workflow run posted this check; it shows the worst of them "
            f"({worst([str(v[0]) for v in legs.values()])}), never a later job's better one: "
            + "; ".join(named) + more]
