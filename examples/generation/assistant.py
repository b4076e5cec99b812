"""A stand-in for the system under test, so the generation example runs with no key and no network: a program
speaking the command provider's JSON Lines (docs/generation.md), one request per line on stdin, one response per
line on stdout. It answers each prompt of prompts.jsonl from a table of canned answers (../heuristic's), and a
second sample (`sample: 1`) with a shorter, plainer variant — the run-to-run spread a real model has.

    python3 assistant.py < requests.jsonl

Deterministic: the same request gets the same text on every machine, so `llm-gate generate --cassettes refresh`
changes nothing in the cassettes but the latencies it measured.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERSION = "support-bot-2026-11"


def canned() -> dict[str, str]:
    answers = {}
    for line in (HERE.parent / "heuristic" / "responses.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["model"] == "gpt-4.1-mini":
            answers[row["prompt"]] = row["response"]
    return answers


def answer(request: dict, answers: dict[str, str]) -> dict:
    asked = next((m["content"] for m in reversed(request.get("messages") or []) if m["role"] == "user"),
                 request.get("prompt") or "")
    text = answers.get(asked, "I do not know.")
    if request.get("sample", 0) % 2 == 1:  # the second draw: the first paragraph only
        text = text.split("\n\n")[0]
    words = len(text.split())
    return {"id": request["id"], "text": text, "model_version": VERSION, "finish_reason": "stop",
            "usage": {"prompt_tokens": len(asked.split()), "completion_tokens": words}}


def main() -> None:
    answers = canned()
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(answer(json.loads(line), answers)) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
