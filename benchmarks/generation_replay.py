"""Whole-process cost of replaying cassettes (issue 34's target: replaying 2,000 cassette entries costs ≤ 1 s over
a run that reads the same records as files). Prints, never asserts.

Two gates over the same 2,000 heuristic answers (1,000 prompts × 2 samples; the heuristic kind loads no model):
`replay` generates them from a committed cassette (the default mode: no provider is started) and then gates;
`files` reads the very records `replay` wrote. Each is run as `python -m gate run` (imports included), alternately,
`--rounds` times; the medians and their difference are printed with the host's CPU.

    python benchmarks/generation_replay.py [--prompts 1000] [--samples 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import cpu_model  # benchmarks/figures.py: run as a script, benchmarks/ is on the path

STAND_IN = """import json, sys
for line in sys.stdin:
    r = json.loads(line)
    text = r["messages"][-1]["content"]
    sys.stdout.write(json.dumps({"id": r["id"], "text": "Here is a careful answer. " + text * 3,
                                 "model_version": "bench-1"}) + "\\n")
    sys.stdout.flush()
"""


def gate_yml(generate: bool, samples: int) -> str:
    text = """version: 1
providers:
  stand-in: {type: command, command: [python3, stand_in.py], concurrency: 2}
suites:
  rubric:
    kind: heuristic
    records: outputs/*.jsonl
"""
    if generate:
        text += f"""    generate:
      provider: stand-in
      models: [bench]
      dataset: prompts.jsonl
      samples: {samples}
"""
    return text


def timed(config: Path, out: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gate", "run", "--config", str(config), "--no-publish", "--quiet",
                           "--output-dir", str(out)], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(done.stdout + done.stderr)
    return elapsed



def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompts", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        replay, files = root / "replay", root / "files"
        for place in (replay, files):
            place.mkdir()
        (replay / "stand_in.py").write_text(STAND_IN)
        (replay / "prompts.jsonl").write_text("".join(
            json.dumps({"category": "coding" if i % 2 else "paraphrasing", "prompt_id": f"P{i:05d}",
                        "prompt": f"Explain item {i} of the catalogue in plain words."}) + "\n"
            for i in range(args.prompts)))
        (replay / "gate.yml").write_text(gate_yml(True, args.samples))
        recorded = subprocess.run([sys.executable, "-m", "gate", "generate", "--config", str(replay / "gate.yml"),
                                   "--cassettes", "refresh"], capture_output=True, text=True,
                                  env={**os.environ, "HF_HUB_OFFLINE": "1"})
        if recorded.returncode:
            raise SystemExit(recorded.stdout + recorded.stderr)
        (files / "outputs").mkdir()
        (files / "outputs" / "rubric.jsonl").write_bytes((replay / "outputs" / "rubric.jsonl").read_bytes())
        (files / "gate.yml").write_text(gate_yml(False, args.samples))
        calls = args.prompts * args.samples
        entries = len((replay / "cassettes" / "rubric" / "stand-in__bench.jsonl").read_text().splitlines()) - 1
        times: dict[str, list[float]] = {"replay": [], "files": []}
        timed(replay / "gate.yml", root / "warm")  # the first run pays the OS's file cache
        for _ in range(args.rounds):
            times["replay"].append(timed(replay / "gate.yml", root / "r"))
            times["files"].append(timed(files / "gate.yml", root / "f"))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"host: {cpu_model()}, {os.cpu_count()} CPUs; {calls:,} calls, {entries:,} cassette entries; "
              f"{args.rounds} interleaved rounds")
        for name, values in times.items():
            print(f"  {name:7s} median {med[name]:.3f} s  ({', '.join(f'{v:.2f}' for v in values)})")
        print(f"  replay overhead: {med['replay'] - med['files']:+.3f} s (target ≤ 1 s)")


if __name__ == "__main__":
    main()
