"""Bless the example's metric snapshots from five runs of the same system, as the README's recipe does.

    HF_HUB_OFFLINE=1 python examples/make_baseline_runs.py        # rewrites examples/baselines/metrics/*.json

The example has one set of outputs, and the recipe wants a baseline blessed from five runs of the system on
the main branch (`llm-gate baseline bless`, then `bless --add` four times, regenerating the outputs between).
This script plays the five re-runs: each is the example's outputs with benign, seeded rewording — common
words swapped for synonyms, as re-sampling a model at temperature > 0 does — and RAG latencies jittered by
±10 %. Inputs that are not model output (prompts, expected answers, baseline files, scores a model did not
write) stay as they are, so the snapshots stay comparable with a run on the example itself. It blesses the
runs in a temporary copy of examples/ and copies the snapshots back.

(The Excel workbook of the heuristic example, mistral-7b-instruct.xlsx, is left as it is in every run.)
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = 5
SWAP = 0.35  # chance that a word with a synonym is swapped in a re-run
SYNONYMS = {
    "use": "employ", "uses": "employs", "shows": "demonstrates", "show": "demonstrate", "good": "solid",
    "clear": "plain", "clearly": "plainly", "should": "ought to", "consider": "think about", "because": "since",
    "however": "but", "also": "too", "large": "big", "small": "little", "quickly": "fast", "help": "assist",
    "helps": "assists", "important": "key", "many": "numerous", "often": "frequently", "whole": "entire",
    "fits": "suits", "missing": "absent", "explain": "describe", "explains": "describes", "answer": "reply",
    "correct": "right", "simple": "basic", "each": "every", "example": "instance", "needs": "requires",
    "need": "require", "start": "begin", "starts": "begins", "choose": "pick", "strong": "robust",
    "improve": "enhance", "mention": "note", "mentions": "notes", "about": "around", "usually": "typically",
}
# Model output, by the field that holds it (JSON / JSONL / CSV); everything else is input and stays.
OUTPUT_FIELDS = {"description", "response", "control_response", "bias_response", "turn2_response", "actual_answer"}
OUTPUT_FILES = ["outputs/feedback/*.jsonl", "stereotype/*.json", "stereotype/*.jsonl", "stability/*.jsonl",
                "stability/*.csv", "heuristic/*.jsonl", "rag/enhanced.jsonl"]
_WORD = re.compile(r"\b[A-Za-z]+\b")


def reword(text: str, rng: random.Random) -> str:
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        synonym = SYNONYMS.get(word.lower())
        if synonym is None or rng.random() >= SWAP:
            return word
        return synonym.capitalize() if word[0].isupper() else synonym
    return _WORD.sub(swap, text)


def rerun(value: object, rng: random.Random, key: str | None = None) -> object:
    """A JSON value as a re-run of the model would give it."""
    if isinstance(value, dict):
        return {k: rerun(v, rng, k) for k, v in value.items()}
    if isinstance(value, list):
        return [rerun(v, rng, key) for v in value]
    if isinstance(value, str) and key in OUTPUT_FIELDS:
        return reword(value, rng)
    if key == "latency" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(value * rng.uniform(0.9, 1.1), 4)
    return value


def rerun_file(source: Path, target: Path, rng: random.Random) -> None:
    text = source.read_text(encoding="utf-8")
    if source.suffix == ".jsonl":
        lines = [json.dumps(rerun(json.loads(line), rng), ensure_ascii=False) if line.strip() else line
                 for line in text.splitlines()]
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif source.suffix == ".json":
        target.write_text(json.dumps(rerun(json.loads(text), rng), ensure_ascii=False, indent=2) + "\n",
                          encoding="utf-8")
    elif source.suffix == ".csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: reword(v, rng) if k in OUTPUT_FIELDS else v for k, v in row.items()} for row in rows)
        target.write_text(out.getvalue(), encoding="utf-8")


def main() -> int:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "examples"
        shutil.copytree(HERE, work, ignore=shutil.ignore_patterns("gate-report", ".gate-cache", "__pycache__"))
        for stale in (work / "baselines" / "metrics").glob("*.json"):
            stale.unlink()
        for run in range(1, RUNS + 1):
            rng = random.Random(f"example-rerun-{run}")
            for pattern in OUTPUT_FILES:
                for source in sorted(HERE.glob(pattern)):
                    rerun_file(source, work / source.relative_to(HERE), rng)
            command = [sys.executable, "-m", "gate", "baseline", "bless", "--config", "gate.yml",
                       *(["--add"] if run > 1 else [])]
            print(f"run {run}: {' '.join(command[2:])}", flush=True)
            subprocess.run(command, cwd=work, env=env, check=True)
        for snapshot in sorted((work / "baselines" / "metrics").glob("*.json")):
            shutil.copyfile(snapshot, HERE / "baselines" / "metrics" / snapshot.name)
            print(f"wrote examples/baselines/metrics/{snapshot.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
