"""Forward-batch size sweep: model seconds of the gate's engines per padded-position budget (runtime.batch_tokens).

    .venv/bin/python benchmarks/batching.py [--scale 0.1] [--budgets 1024 2048 4096] [--repeats 2]

Builds the standard workload (workload.py) at `--scale`, then encodes every unique text of the embedding
model (MiniLM, 384 wide) and of the stereotype classifier (the ALBERT-base-sized stand-in, 768 wide) once per
budget with the gate's own engines, budgets interleaved and repeated so machine noise spreads evenly, and
prints each engine's forward seconds per budget next to the fixed 64 texts per batch the gate used before
(`none`). This is where `gate.runtime.engines.batching.CPU_BATCH_ACTIVATIONS` comes from.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
os.environ["HF_HUB_OFFLINE"] = "1"

import workload  # noqa: E402
from run import engine_texts  # noqa: E402

FIXED = 0  # budget 0 stands for "no position budget, 64 texts per batch"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--budgets", type=int, nargs="+", default=[768, 1024, 1536, 2048, 3072, 4096, 6144])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import torch
    from reference import minilm_path

    from gate.runtime.engines import device
    from gate.runtime.engines.batching import NO_LIMIT
    from gate.runtime.engines.classifier import SequenceClassifier
    from gate.runtime.engines.embeddings import SentenceEmbedder

    threads = device.set_threads(None)
    inputs = Path(tempfile.mkdtemp(prefix="gate-batching-"))
    workload.build(inputs, args.scale, args.seed)
    classifier_dir = workload.build_classifier(inputs, minilm_path(), args.seed)
    texts = engine_texts(inputs)
    engines = {"embedding": lambda budget: SentenceEmbedder.load(minilm_path(), batch_tokens=budget),
               "classifier": lambda budget: SequenceClassifier.load(str(classifier_dir), batch_tokens=budget)}
    print(f"torch {torch.__version__}, {threads} threads; scale {args.scale}: "
          + ", ".join(f"{name} {len(texts[name])} texts" for name in engines), flush=True)
    seconds: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.repeats):
        for budget in [FIXED, *args.budgets]:
            for name, load in engines.items():
                engine = load(budget or NO_LIMIT)
                if name == "embedding":
                    engine.encode(texts[name])
                else:
                    engine.probabilities(texts[name], 1)
                seconds.setdefault((name, budget), []).append(engine.meter.seconds)
                print(f"  {name:10} budget {budget or 'none':>6}: {engine.meter.seconds:7.2f} s, "
                      f"{engine.meter.positions} positions for {engine.meter.tokens} tokens", flush=True)
    print("\nbest of the repeats (forward seconds):")
    for name in engines:
        row = {b: min(seconds[name, b]) for b in [FIXED, *args.budgets]}
        fastest = min(row, key=row.get)
        print(f"  {name:10} " + "  ".join(f"{b or '64 texts'}: {s:.2f}" for b, s in row.items())
              + f"  -> fastest {fastest or '64 texts'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
