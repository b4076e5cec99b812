"""Generation figures (issue 34's targets; prints, not a test):

1. 2,000 calls to a loopback OpenAI-compatible server answering in 200 ms, concurrency 16: wall time against the
   ideal 2,000 × 0.2 / 16 = 25 s (target ≤ 1.3×).
2. Replaying those 2,000 calls from their cassette (load + replay) against reading the same responses as a records
   file (gate.io.read_records): the replay's overhead in seconds (target ≤ 1 s).

    python benchmarks/generation.py [--calls 2000] [--delay 0.2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gate.config.endpoints import parse_endpoint  # noqa: E402
from gate.config.grader_access import GraderAccess  # noqa: E402
from gate.generate.cassettes import Cassette, Mode, cassette_path  # noqa: E402
from gate.generate.providers.access import authorise  # noqa: E402
from gate.generate.providers.openai import OpenAIProvider, OpenAISettings  # noqa: E402
from gate.generate.providers.types import Message, Parameters, Request  # noqa: E402
from gate.generate.runner import generate  # noqa: E402
from gate.io import read_records  # noqa: E402
from tests.generate import fake_openai  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    fake = fake_openai.start(delay=args.delay)
    requests = [Request("gpt-bench", (Message("user", f"question {i}: what is {i} + {i}?"),),
                        parameters=Parameters(max_tokens=32, logprobs=True)) for i in range(args.calls)]
    access = GraderAccess(endpoints=(parse_endpoint(fake.base_url),), keys={"OPENAI_API_KEY": "sk-bench-000000"})
    provider = OpenAIProvider(authorise(fake.base_url, access), OpenAISettings(concurrency=args.concurrency))
    with tempfile.TemporaryDirectory() as tmp:
        path = cassette_path(Path(tmp), "bench", "openai", "gpt-bench")
        started = time.perf_counter()
        run = generate(requests, Cassette.load(path, "openai", "gpt-bench"), Mode.RECORD_MISSING,
                       provider=provider, record_command="-")
        wall = time.perf_counter() - started
        ideal = args.calls * args.delay / args.concurrency
        print(f"live: {args.calls} calls, {args.delay * 1000:.0f} ms each, concurrency {args.concurrency}: "
              f"{wall:.2f} s wall vs ideal {ideal:.2f} s = {wall / ideal:.3f}x (target <= 1.3x); "
              f"server saw {fake.count} requests; recorded {run.summary.recorded}, failed {run.summary.failed}; "
              f"latency p50 {run.summary.latency_p50_s:.3f} s, p95 {run.summary.latency_p95_s:.3f} s")
        records = Path(tmp) / "records.jsonl"
        records.write_text("".join(json.dumps({"id": o.key, "response": o.response.text,
                                               "token_logprobs": [lp for _, lp in o.response.token_logprobs or ()]})
                                   + "\n" for o in run.outcomes if o.response))
        size = path.stat().st_size
        best_replay = best_read = float("inf")
        for _ in range(5):
            started = time.perf_counter()
            replay = generate(requests, Cassette.load(path, "openai", "gpt-bench"), Mode.REPLAY, provider=None,
                              record_command="-")
            best_replay = min(best_replay, time.perf_counter() - started)
            started = time.perf_counter()
            read_records([records])
            best_read = min(best_read, time.perf_counter() - started)
        assert replay.summary.replayed == args.calls
        print(f"replay: {args.calls} entries ({size / 1e6:.2f} MB cassette): {best_replay:.3f} s (load + replay) vs "
              f"{best_read:.3f} s reading the same responses as a records file: "
              f"overhead {best_replay - best_read:.3f} s "
              f"(target <= 1 s); live calls during replay: {fake.count - args.calls}")
    provider.close()
    fake.server.stop()


if __name__ == "__main__":
    main()
