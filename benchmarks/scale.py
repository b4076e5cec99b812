"""Model-free work at scale: is its cost linear in the items, and within the targets of issue 23 (item 4)?

    .venv/bin/python benchmarks/scale.py                          # everything, 3 runs each, medians
    .venv/bin/python benchmarks/scale.py --workloads rag --rag 10000 20000 40000 --runs 2
    .venv/bin/python benchmarks/scale.py --workloads groups --groups 10000 --workdir /tmp/scale

Workloads (generated once per size under `--workdir`, seeded, in the gate's real formats):
- `heuristic`: N records of the packaged rubric (coding answers with a Python block, paraphrases), 5 models ×
  2 categories × N/10 prompts.
- `rag`: N queries for a candidate system (`records:`) and a baseline system (`baseline:`), each with ids, the
  query, an expected and an actual answer, retrieved ids and their contexts (from a pool of handbook passages),
  ground-truth ids, relevance scores, latency and tokens; `embedding_metrics: false` (no model at all).
- `groups`: a heuristic gate of N (model, category) groups (N/2 models × 2 categories, 2 prompts each) whose
  report, dashboard, job summary and PR comment must render.

Each run is `llm-gate run --no-publish -q` in a child process (imports included), timed by `os.wait4` (wall, CPU,
peak RSS of that child). The child also reports where its time went (load+score, judge, render = report files +
the summary and comment fitted to GitHub's limit) by wrapping those `gate.run` functions — nothing else changes.
Prints per workload and size: medians, then the slope (seconds and MiB per 10k items, from the smallest to the
largest size) and the ratio of the largest to the one half its size (2.0 when linear), against the targets:
50k heuristic records and 20k RAG queries with a baseline each ≤ 60 s and ≤ 1 GiB; a 10,000-group gate's
report + dashboard + comment ≤ 10 s. Machine noise: the CPU time and the peak RSS are the steadier figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import textgen as tg  # noqa: E402
from textcode import coding_response, paraphrasing_response  # noqa: E402

TARGETS = {("heuristic", 50_000): (60.0, 1024.0), ("rag", 20_000): (60.0, 1024.0)}
RENDER_TARGET_S = 10.0
MIB = 1024 * 1024


# --------------------------------------------------------------------------------------------------- inputs

def _jsonl(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


def _heuristic_rows(models: int, prompts: int, seed: int):
    """Responses are drawn from a pool (text generation is the slow part of building the inputs): the rubric
    scores each record anyway, so repeats cost the gate what distinct texts would."""
    rng = random.Random(f"{seed}:heuristic")
    coding = [coding_response(rng) for _ in range(400)]
    paraphrasing = [paraphrasing_response(rng, p % 30 + 1) for p in range(400)]
    for m in range(models):
        for p in range(prompts):
            yield {"model": f"model-{m:05d}", "category": "coding", "prompt_id": f"C{p + 1:05d}",
                   "prompt": f"Write a Python function for task {p + 1}.", "response": rng.choice(coding)}
            yield {"model": f"model-{m:05d}", "category": "paraphrasing", "prompt_id": f"P{p + 1:05d}",
                   "prompt": f"Paraphrase the passage of prompt {p + 1}.", "response": rng.choice(paraphrasing)}


def _rag_rows(queries: int, system: str, seed: int, contexts: int):
    qrng, rrng = random.Random(f"{seed}:rag:queries"), random.Random(f"{seed}:rag:{system}:retrieval")
    arng = random.Random(f"{seed}:rag:{system}:answers")
    docs = [tg.paragraph(random.Random(f"{seed}:doc:{i}"), "handbook", 30, 60) for i in range(2000)]
    questions = [tg.question(qrng, "handbook") for _ in range(500)]
    expected = [tg.paragraph(qrng, "handbook", 20, 60) for _ in range(500)]
    tails = [tg.paragraph(arng, "handbook", 20, 80) for _ in range(500)]
    hit_rate = 0.85 if system == "enhanced" else 0.6
    for q in range(queries):
        truth = qrng.sample(range(len(docs)), qrng.randint(1, 3))
        retrieved = [d for d in truth if rrng.random() < hit_rate]
        while len(retrieved) < contexts:
            d = rrng.randrange(len(docs))
            if d not in retrieved:
                retrieved.insert(rrng.randrange(len(retrieved) + 1), d)
        retrieved = retrieved[:contexts]
        answer = tg.split_sentences(docs[retrieved[0]])[0] + " " + arng.choice(tails)
        yield {"id": f"q{q + 1:06d}", "system": system, "query": f"{qrng.choice(questions)} (case {q + 1})",
               "expected_answer": qrng.choice(expected), "actual_answer": answer,
               "retrieved_ids": [f"doc-{d:04d}" for d in retrieved], "retrieved_contexts": [docs[d] for d in retrieved],
               "ground_truth_ids": [f"doc-{d:04d}" for d in truth],
               "relevance_scores": sorted((round(rrng.uniform(0.3, 0.99), 3) for _ in retrieved), reverse=True),
               "latency": round(rrng.lognormvariate(0.0, 0.5), 3), "prompt_tokens": 900 + rrng.randint(0, 900),
               "completion_tokens": int(tg.words(answer) * 1.3)}


def build(root: Path, workload: str, n: int, seed: int, contexts: int) -> Path:
    """The inputs and gate.yml of one workload at size `n`, under root/<workload>-<n> (kept between runs)."""
    where = root / f"{workload}-{n}"
    config = where / "gate.yml"
    if config.exists():
        return config
    if workload == "heuristic":
        _jsonl(where / "heuristic" / "all.jsonl", _heuristic_rows(5, max(1, n // 10), seed))
        suite = "  rubric:\n    kind: heuristic\n    records: heuristic/*.jsonl\n"
    elif workload == "groups":
        _jsonl(where / "heuristic" / "all.jsonl", _heuristic_rows(max(1, n // 2), 2, seed))
        suite = "  rubric:\n    kind: heuristic\n    records: heuristic/*.jsonl\n"
    else:
        for system in ("enhanced", "baseline"):
            _jsonl(where / "rag" / f"{system}.jsonl", _rag_rows(n, system, seed, contexts))
        suite = ("  retrieval:\n    kind: rag\n    records: rag/enhanced.jsonl\n    baseline: rag/baseline.jsonl\n"
                 "    embedding_metrics: false\n    checks: {overall_score: {min: 0.3}}\n")
    config.write_text(f"version: 1\nname: scale-{workload}\nsuites:\n{suite}report: {{output_dir: gate-report}}\n")
    return config


def input_bytes(config: Path) -> int:
    return sum(p.stat().st_size for p in config.parent.rglob("*.jsonl"))


# ------------------------------------------------------------------------------------------------ measuring

CHILD = """
import json, os, sys, time
import gate.report, gate.run
phases = {}
def timed(owner, name, label):
    inner = getattr(owner, name)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            phases[label] = phases.get(label, 0.0) + time.perf_counter() - start
    setattr(owner, name, wrapper)
for owner, name, label in ((gate.run, "measure", "score"), (gate.run, "judge", "judge"),
                           (gate.run, "render", "render"), (gate.report, "write", "report_files"),
                           (gate.run, "make_bundle", "comment")):
    timed(owner, name, label)
sys.argv = ["llm-gate", *sys.argv[2:]]
from gate.__main__ import main
try:
    main()
finally:
    with open(os.environ["GATE_SCALE_PHASES"], "w") as out:
        json.dump(phases, out)
"""


def run_once(config: Path, out: Path, gate_path: Path | None = None) -> dict:
    """One `llm-gate run` as a child: wall, CPU, peak RSS (wait4) and its phases; `gate_path` a checkout whose
    `gate` package runs instead of this one (a before/after comparison)."""
    phases = out / "phases.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "RUNNER_"))}
    env.pop("CI", None)
    env["HF_HUB_OFFLINE"] = "1"
    env["GATE_SCALE_PHASES"] = str(phases)
    if gate_path is not None:
        env["PYTHONPATH"] = str(gate_path)
    cmd = [sys.executable, "-c", CHILD, "-", "run", "--config", str(config), "--no-publish", "-q", "--output-dir",
           str(out / "report")]
    with (out / "log.txt").open("w") as log:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=config.parent, env=env, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1):
        raise SystemExit(f"llm-gate run failed (exit {rc}); see {out / 'log.txt'}:\n"
                         + (out / "log.txt").read_text()[-3000:])
    found = json.loads(phases.read_text()) if phases.exists() else {}
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss * 1024 / MIB,
            "rc": rc, **found}


def measure(config: Path, runs: int, work: Path, gate_path: Path | None = None) -> dict:
    rows = []
    for r in range(runs):
        out = Path(tempfile.mkdtemp(prefix=f"run{r}-", dir=work))
        rows.append(run_once(config, out, gate_path))
    keys = dict.fromkeys(k for row in rows for k in row if k != "rc")
    return {k: statistics.median(row.get(k, 0.0) for row in rows) for k in keys} | {"rc": rows[-1]["rc"]}


# ---------------------------------------------------------------------------------------------------- table

def slope_line(workload: str, sizes: list[int], medians: dict[int, dict]) -> str:
    if len(sizes) < 2:
        return ""
    lo, hi = sizes[0], sizes[-1]
    per = 10_000 / (hi - lo)
    line = (f"  slope {workload}: {(medians[hi]['wall'] - medians[lo]['wall']) * per:.2f} s wall, "
            f"{(medians[hi]['cpu'] - medians[lo]['cpu']) * per:.2f} s CPU, "
            f"{(medians[hi]['rss_mib'] - medians[lo]['rss_mib']) * per:.0f} MiB per 10k items")
    if hi % 2 == 0 and hi // 2 in medians:
        half = medians[hi // 2]
        line += (f"; {hi:,}/{hi // 2:,} ratio: wall {medians[hi]['wall'] / half['wall']:.2f}, "
                 f"CPU {medians[hi]['cpu'] / half['cpu']:.2f}, score {medians[hi]['score'] / half['score']:.2f}")
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", nargs="+", choices=["heuristic", "rag", "groups"],
                        default=["heuristic", "rag", "groups"])
    parser.add_argument("--heuristic", type=int, nargs="+", default=[12_500, 25_000, 50_000], help="records")
    parser.add_argument("--rag", type=int, nargs="+", default=[10_000, 20_000, 40_000], help="queries per system")
    parser.add_argument("--groups", type=int, nargs="+", default=[10_000], help="(model, category) groups")
    parser.add_argument("--contexts", type=int, default=5, help="retrieved contexts per RAG query")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the inputs here (default: a temp dir)")
    parser.add_argument("--gate-path", type=Path, default=None,
                        help="run the `gate` package of this checkout instead (e.g. `git archive` of a base commit)")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="gate-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"workdir {root}; {args.runs} run(s) each, medians; {os.cpu_count()} CPUs")
    print(f"{'workload':<10} {'items':>7} {'input MB':>8} {'wall s':>7} {'cpu s':>7} {'peak MiB':>8} "
          f"{'score s':>7} {'judge s':>7} {'render s':>8} {'files s':>7} {'comment s':>9}  target")
    missed = 0
    for workload in args.workloads:
        sizes = sorted(getattr(args, workload))
        medians = {}
        for n in sizes:
            config = build(root, workload, n, args.seed, args.contexts)
            m = medians[n] = measure(config, args.runs, config.parent, args.gate_path)
            target, ok = "", True
            if (workload, n) in TARGETS:
                seconds, mib = TARGETS[(workload, n)]
                ok = m["wall"] <= seconds and m["rss_mib"] <= mib
                target = f"≤ {seconds:.0f} s, ≤ {mib:.0f} MiB: {'met' if ok else 'MISSED'}"
            elif workload == "groups":
                ok = m.get("render", 0.0) <= RENDER_TARGET_S
                target = f"render ≤ {RENDER_TARGET_S:.0f} s: {'met' if ok else 'MISSED'}"
            missed += not ok
            print(f"{workload:<10} {n:>7,} {input_bytes(config) / 1e6:>8.1f} {m['wall']:>7.2f} {m['cpu']:>7.2f} "
                  f"{m['rss_mib']:>8.0f} {m.get('score', 0):>7.2f} {m.get('judge', 0):>7.2f} "
                  f"{m.get('render', 0):>8.2f} {m.get('report_files', 0):>7.2f} {m.get('comment', 0):>9.2f}  {target}",
                  flush=True)
        if line := slope_line(workload, sizes, medians):
            print(line, flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
