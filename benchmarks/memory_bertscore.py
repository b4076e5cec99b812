"""Peak memory of a cold drift gate as the number of BERTScore pairs grows (issue 37, item 5).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/memory_bertscore.py [--pairs 2000 5000 20000] [--workdir DIR]
                                                                     [--values DIR]

For each N: N synthetic drift pairs of realistic length (workload.py's generator: 3 models x E exercises x 12
submissions, feedback of 80-330 words, candidates rewording the baseline; the last rows trimmed so exactly N
pairs remain, about N / 3 unique baselines), a gate.yml with the drift suite only on the embedded
all-MiniLM-L6-v2 (layer 6), and `python -m gate run` as a child process with a fresh `runtime.cache_dir`. It
prints the child's peak RSS (`os.wait4`'s rusage, ru_maxrss: what load on the host does not change) and the
slope per thousand pairs between consecutive sizes. Wall and CPU seconds are printed too, for orientation only:
on a shared host they move with the load.

`--values DIR` writes each run's per-pair P/R/F (from the report's items.csv) to DIR/values-N.json, so two
versions of the gate can be compared (`--compare A B`: the largest difference between two such directories).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import workload  # noqa: E402
from run import measure  # noqa: E402

SUBMISSIONS = 12  # per exercise, as workload.py
METRICS = ("bertscore_precision", "bertscore_recall", "bertscore_f1")


def build(root: Path, pairs: int, seed: int = 0) -> int:
    """Exactly `pairs` drift pairs under `root` (the last model's last rows trimmed); returns the number written."""
    models = len(workload.DRIFT_MODELS)
    sizes = replace(workload.Sizes.at(1.0), exercises=math.ceil(pairs / (models * SUBMISSIONS)),
                    submissions=SUBMISSIONS)
    exercises = workload._exercises(root, sizes, seed)
    for model in workload.DRIFT_MODELS:
        workload._drift_candidates(root, exercises, model, seed, 0)
    extra = sizes.exercises * SUBMISSIONS * models - pairs
    for model in reversed(workload.DRIFT_MODELS):  # trim from the end
        if extra <= 0:
            break
        path = root / "outputs" / "feedback" / f"{model}.jsonl"
        rows = path.read_text().splitlines(keepends=True)
        keep = max(0, len(rows) - extra)
        extra -= len(rows) - keep
        path.write_text("".join(rows[:keep]))
    return sum(len((root / "outputs" / "feedback" / f"{m}.jsonl").read_text().splitlines())
               for m in workload.DRIFT_MODELS)


def values(report: Path) -> dict[str, float]:
    """exercise|submission|model|metric -> value, from the drift suite's items.csv."""
    with (report / "feedback-drift" / "items.csv").open(newline="") as handle:
        return {f"{r['exercise']}|{r['submission']}|{r['model']}|{m}": float(r[m])
                for r in csv.DictReader(handle) for m in METRICS if r[m] not in ("", None)}


def one(work: Path, pairs: int, keep_values: Path | None) -> dict:
    root = work / f"pairs-{pairs}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    written = build(root, pairs)
    cache = root / "cache"  # fresh: a cold run
    config = workload.write_config(root, "gate.yml", cache, suites=("feedback-drift",), gate="memory-bertscore")
    report = root / "report"
    cmd = [sys.executable, "-m", "gate", "run", "--config", str(config), "--no-publish", "-q", "--output-dir",
           str(report)]
    result = measure(cmd, root / "run.log", root)
    result.update(pairs=written, command=" ".join(cmd))
    if result["rc"] not in (0, 1):
        raise SystemExit(f"the gate failed (rc {result['rc']}): see {result['log']}")
    runtime = json.loads((report / "report.json").read_text()).get("runtime") or {}
    result["encoded_texts"] = (runtime.get("encoded") or {}).get("texts")
    result["model_seconds"] = runtime.get("model_seconds")
    if keep_values is not None:
        keep_values.mkdir(parents=True, exist_ok=True)
        (keep_values / f"values-{written}.json").write_text(json.dumps(values(report), sort_keys=True))
    return result


def compare(a: Path, b: Path) -> int:
    worst = 0.0
    for path in sorted(a.glob("values-*.json")):
        other = b / path.name
        if not other.exists():
            continue
        x, y = json.loads(path.read_text()), json.loads(other.read_text())
        if set(x) != set(y):
            print(f"{path.name}: different items ({len(set(x) ^ set(y))} differ)")
            return 1
        diff = max((abs(x[k] - y[k]) for k in x), default=0.0)
        worst = max(worst, diff)
        print(f"{path.name}: {len(x)} values, max |diff| {diff:.3g}")
    print(f"max |diff| overall {worst:.3g}")
    return 0 if worst <= 1e-4 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, nargs="+", default=[2000, 5000, 20000])
    parser.add_argument("--workdir", type=Path, help="keep inputs, caches, reports and logs here")
    parser.add_argument("--values", type=Path, help="write each run's per-pair P/R/F here")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"), help="compare two --values dirs")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="memory-bertscore-"))
    rows = []
    print(f"{'pairs':>7} {'encoded texts':>13} {'peak RSS MiB':>12} {'MiB / 1k pairs':>14} "
          f"{'wall s*':>8} {'CPU s*':>8} {'model s*':>8}")
    for pairs in args.pairs:
        result = one(work, pairs, args.values)
        slope = ""
        if rows:
            grown = (result["peak_rss_bytes"] - rows[-1]["peak_rss_bytes"]) / 2**20
            slope = f"{grown / ((result['pairs'] - rows[-1]['pairs']) / 1000):.1f}"
        rows.append(result)
        print(f"{result['pairs']:>7} {result['encoded_texts'] or 0:>13} {result['peak_rss_bytes'] / 2**20:>12.0f} "
              f"{slope:>14} {result['seconds']:>8.0f} {result['cpu_seconds']:>8.0f} "
              f"{result['model_seconds'] or 0:>8.0f}", flush=True)
    print("* times on a shared host move with its load; peak RSS does not. Command (cwd: the pairs' directory):")
    print(f"  {rows[-1]['command']}")
    (work / "memory.json").write_text(json.dumps(rows, indent=1))
    print(f"results: {work / 'memory.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
