"""The small pull-request gate of issue 23: what a typical PR pays, imports and model loading included.

    .venv/bin/python benchmarks/small_gate.py [--runs 2] [--workdir DIR] [--pipelines sbcwn] [--scale 1]
                                              [--texts long,short] [--device cpu|cuda] [--model DIR]

360 drift pairs (10 exercises x 12 submissions x 3 models) and 4,000 stability responses (4 models x 4 tasks x
25 questions x 10 variations) on the embedded all-MiniLM-L6-v2, built by workload.py (scale 1, those two suites
only; `--scale` shrinks exercises and questions as workload.py does, for a quick look), as two workloads one after
the other (issue 37): `long`, the benchmark's own (feedback of 80-330 words per submission, stability answers of
80-360 words: ~22.8 TFLOP), and `short`, what most pull-request gates hold (feedback of 24-60 words, answers of
14-22 words, ~23 tokens). The host's CPU model, cores and load are printed, and each workload's FLOP bound at the
matmul rate measured on it. Each pipeline is a
whole process, run `--runs` times; the table shows medians of wall, CPU (the child's
rusage: load on a shared machine inflates wall, not CPU) and peak RSS, and each pipeline's speed-up over
seed-style and over best practice, side by side:

  s  seed-style: `bert_score.score` per exercise x model, one `encode` per question (reference.py's seed mode)
  b  best practice: one `BERTScorer` for all pairs, one batched `encode` (reference.py's batched mode)
  c  `llm-gate run`, cold: a fresh cache directory
  w  `llm-gate run`, warm after a PR that regenerated one model's drift candidates (the cold run's cache)
  n  `llm-gate run`, nothing changed: every model output cached (5 runs a round); whether torch was imported shown

Targets (issue 23): c >= 3x seed-style and >= 1.5x best practice; w >= 10x seed-style; n <= 1.5 s, no torch.
Agreement of the cold gate with best practice (max |diff| of drift P/R/F and stability) is printed too.
A child started with `--reference MODE` is one reference run (internal).

`--device cuda` runs every pipeline on the GPU: the gate with `runtime.device: cuda` (fp16, its precision there), the
references as the seed's code does (fp32 on the device), and the bound at the GPU's fp16 matmul rate. `--model DIR`
replaces the embedded MiniLM by a model directory of the same layout (a GPU machine here has no hub and cannot take
the model's 90 MB along: `benchmarks/shaped_model.py` builds a MiniLM-shaped one there); each workload gets a copy
inside its inputs, where gate.yml may name it. The steps for a GPU machine are in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import agreement  # noqa: E402
import workload  # noqa: E402
from run import measure, preload  # noqa: E402

CHANGED_MODEL = workload.PR_CHANGES["feedback-drift"]
NONE_RUNS = 5  # nothing-changed runs per round: ~1.5 s each, the figure most moved by a busy host
# Run as the gate's own entry point, writing the ML modules it imported (the probe's answer) to a file.
PROBE = ("import atexit, json, sys; out = sys.argv.pop(1); "
         "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(m for m in ('torch', 'transformers', "
         "'sentence_transformers', 'sklearn', 'scipy', 'nltk') if m in sys.modules)))); "
         "sys.argv[0] = 'llm-gate'; from gate.__main__ import main; main()")


def build(root: Path, scale: float = 1.0, seed: int = 0, lengths: workload.Lengths = workload.LONG) -> None:
    """The drift and stability inputs (the other suites' directories empty)."""
    sizes = workload.Sizes.at(scale)
    exercises = workload._exercises(root, sizes, seed, lengths)
    for model in workload.DRIFT_MODELS:
        workload._drift_candidates(root, exercises, model, seed, 0)
    for model in workload.STABILITY_MODELS:
        workload._stability(root, sizes, model, seed, 0, lengths)
    for empty in ("stereotype", "heuristic", "rag"):
        (root / empty).mkdir(exist_ok=True)
    for system in ("enhanced", "baseline"):
        (root / "rag" / f"{system}.jsonl").write_text("")
    (root / "workload.json").write_text(json.dumps({"scale": scale, "seed": seed, "sizes": asdict(sizes),
                                                    "lengths": asdict(lengths)}))


def apply_pr(root: Path, seed: int = 0) -> None:
    """One model's drift candidates regenerated; nothing else changes."""
    exercises = [json.loads(p.read_text()) for p in sorted((root / "baselines" / "feedback").glob("*.json"))]
    workload._drift_candidates(root, exercises, CHANGED_MODEL, seed, 1)


MODEL_COPY = "models/minilm"  # where `--model` is copied inside each workload's inputs (gate.yml names it)
SETTINGS: dict[str, str | None] = {"device": None, "model": None}  # from --device and --model, for every gate.yml


def config(root: Path, cache_dir: Path) -> Path:
    """The gate.yml; `cache_dir` inside `root` (the workspace: the gate refuses paths outside it)."""
    return workload.write_config(root, "gate.yml", cache_dir, suites=("feedback-drift", "stability"),
                                 gate="small-gate", device=SETTINGS["device"],
                                 model=MODEL_COPY if SETTINGS["model"] else None)


def reference(mode: str, root: Path, out: Path) -> None:
    """One reference pipeline over drift and stability (reference.py's functions, nothing else timed in)."""
    import reference as ref
    import refmetrics as rm
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    clock = ref.Clock()
    data = rm.load_workload(root)
    values = {"drift": ref.drift(data, mode, clock)}
    encoder = SentenceTransformer(ref.minilm_path(), device=ref.DEVICE)
    lookup = None
    if mode == "batched":
        texts = list(dict.fromkeys(r["response"] for r in data["stability"]))
        lookup = dict(zip(texts, clock.timed(encoder.encode, texts, batch_size=ref.BATCH), strict=True))
    values["stability"] = ref.stability(data, encoder, clock, lookup)
    out.write_text(json.dumps({"model_seconds": clock.model, "values": values}))


def timed(cmd: list[str], log: Path, cwd: Path | None = None, probe: Path | None = None) -> dict:
    result = measure(cmd, log, cwd)
    if probe is not None and probe.exists():
        result["imported"] = json.loads(probe.read_text())
    return result


def gate(inputs: Path, cache: Path, report: Path, logs: Path, label: str) -> dict:
    cfg = config(inputs, cache)
    probe = logs / f"{label}.modules.json"
    cmd = [sys.executable, "-c", PROBE, str(probe), "run", "--config", str(cfg), "--no-publish", "-q",
           "--output-dir", str(report)]
    result = timed(cmd, logs / f"{label}.log", inputs, probe)
    result["ok"] = result["rc"] in (0, 1)
    return result


def bound_line(inputs: Path, report: Path, results: dict[str, list[dict]]) -> str:
    """The cold run's model time against the FLOP lower bound of its inputs (flops.py: unique tokens x forward
    FLOPs / this machine's best fp32 matmul), and the best ratio to seed-style any pipeline of those FLOPs could
    reach with no fixed cost at all: how far the ratio targets are a question of the gate, not of arithmetic."""
    import flops
    from reference import minilm_path
    from run import engine_texts

    texts = engine_texts(inputs)
    speed: dict[tuple[int, int], float] = {}
    bounds = []
    for name, e in (("bertscore", flops.engine("bertscore", minilm_path(), layers=6)),
                    ("embedding", flops.engine("embedding", minilm_path(), truncate=True))):
        speed.setdefault((e.d, e.d_ff), flops.matmul_flops_per_s(e.d, e.d_ff, threads=len(os.sched_getaffinity(0)),
                                                                 device=SETTINGS["device"] or "cpu"))
        bounds.append(flops.lower_bound(e, texts[name], speed[e.d, e.d_ff]))
    bound = sum(b.seconds for b in bounds)
    model = json.loads(report.read_text())["runtime"]["model_seconds"]
    line = (f"cold model time {model:.1f} s = {model / bound:.2f}x the FLOP lower bound {bound:.1f} s "
            f"({sum(b.gflop for b in bounds) / 1000:.1f} TFLOP at {max(speed.values()) / 1e9:.0f} GFLOP/s fp32)")
    if "s" in results and "b" in results:
        seed, best = median(results["s"], "seconds"), median(results["b"], "seconds")
        line += (f"; a pipeline at the bound with no fixed cost would be {seed / bound:.2f}x seed-style and "
                 f"{best / bound:.2f}x best practice")
    return line


def median(runs: list[dict], field: str) -> float:
    return statistics.median(r[field] for r in runs)


LABELS = {"s": "seed-style (bert_score.score per exercise x model)", "b": "best practice (one BERTScorer, "
          "one encode)", "c": "llm-gate run, cold cache", "w": "llm-gate run, warm: one model's candidates "
          "changed", "n": "llm-gate run, nothing changed (all cached)"}


def ratio(base: float | None, wall: float) -> str:
    return f"{base / wall:7.2f}x" if base else f"{'-':>8}"


def table(results: dict[str, list[dict]]) -> str:
    lines = [f"{'pipeline (whole process, median)':58} {'wall s':>7} {'CPU s':>7} {'RSS MB':>7} "
             f"{'vs seed':>8} {'vs best':>8}  notes"]
    seed = median(results["s"], "seconds") if "s" in results else None
    best = median(results["b"], "seconds") if "b" in results else None
    for label, runs in results.items():
        wall = median(runs, "seconds")
        notes = []
        if "imported" in runs[-1]:
            notes.append("torch imported" if "torch" in runs[-1]["imported"] else "torch NOT imported")
        if not all(r.get("ok", r["rc"] == 0) for r in runs):
            notes.append(f"FAILED (rc {[r['rc'] for r in runs]}, see {runs[-1]['log']})")
        lines.append(f"{LABELS[label]:58} {wall:7.2f} {median(runs, 'cpu_seconds'):7.2f} "
                     f"{median(runs, 'peak_rss_bytes') / 2**20:7.0f} {ratio(seed, wall)} {ratio(best, wall)}  "
                     f"{'; '.join(notes)}  (runs: {', '.join(format(r['seconds'], '.2f') for r in runs)})")
    return "\n".join(lines)


TEXTS = {"long": workload.LONG, "short": workload.SHORT}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--pipelines", default="sbcwn")
    parser.add_argument("--scale", type=float, default=1.0, help="1: the issue's 360 pairs and 4,000 responses")
    parser.add_argument("--texts", default="long,short",
                        help="workloads, comma-separated: long (the benchmark's own) and/or short (~23-token answers)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where every pipeline runs (cuda: the gate in fp16, the references as the seed does)")
    parser.add_argument("--model", type=Path, help="a model directory of MiniLM's layout instead of the embedded one")
    parser.add_argument("--reference", choices=("seed", "batched"), help=argparse.SUPPRESS)
    parser.add_argument("--workload", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    import reference as ref

    ref.DEVICE, ref.MODEL = args.device, str(args.model.resolve()) if args.model else None
    SETTINGS.update(device=args.device if args.device != "cpu" else None, model=ref.MODEL)
    if args.reference:
        reference(args.reference, args.workload, args.out)
        return 0
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            parser.error("--device cuda: torch sees no CUDA device here")
    import figures

    work = args.workdir or Path(tempfile.mkdtemp(prefix="small-gate-"))
    chosen = [t.strip() for t in args.texts.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in TEXTS]
    if unknown or not chosen:
        parser.error(f"--texts: expected long and/or short, found {args.texts!r}")
    print(f"host: {figures.cpu_model()}, {len(os.sched_getaffinity(0))} cores, load {os.getloadavg()[0]:.1f} at the "
          "start", flush=True)
    for texts in chosen:
        print(f"\n===== {texts} texts =====", flush=True)
        one_workload(work / texts if len(chosen) > 1 else work, TEXTS[texts], args)
    print(f"\nload {os.getloadavg()[0]:.1f} at the end")
    return 0


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another filesystem
        shutil.copy2(source, target)


def one_workload(work: Path, lengths: workload.Lengths, args: argparse.Namespace) -> None:
    before, after, logs = work / "inputs", work / "inputs-pr", work / "logs"
    for directory in (before, logs):
        directory.mkdir(parents=True, exist_ok=True)
    build(before, args.scale, lengths=lengths)
    if SETTINGS["model"]:  # inside the workspace, where gate.yml may name it; hard links where they can be
        shutil.copytree(SETTINGS["model"], before / MODEL_COPY, copy_function=_link_or_copy, dirs_exist_ok=True)
    shutil.copytree(before, after, dirs_exist_ok=True)
    apply_pr(after)
    from reference import minilm_path

    preload(Path(minilm_path()))
    results: dict[str, list[dict]] = {label: [] for label in "sbcwn" if label in args.pipelines}
    # A work directory reused (`--workdir`): the reference runs it already timed are kept (they take longest).
    saved = json.loads((work / "results.json").read_text()) if (work / "results.json").exists() else {}
    values: dict[str, dict] = {}
    for k in range(args.runs):
        for label, mode in (("s", "seed"), ("b", "batched")):
            out = work / f"reference-{mode}.json"
            if label in results and len(saved.get(label, [])) > k and out.exists():
                results[label].append(saved[label][k])
                values[label] = json.loads(out.read_text())["values"]
            elif label in results:
                device_args = ["--device", args.device, *(["--model", str(args.model)] if args.model else [])]
                run = timed([sys.executable, str(Path(__file__).resolve()), *device_args, "--reference", mode,
                             "--workload",
                             str(before), "--out", str(out)], logs / f"reference-{mode}-{k}.log")
                results[label].append(run)
                (work / "results.json").write_text(json.dumps(results, indent=1))  # survives an interrupted run
                if run["rc"] == 0:
                    values[label] = json.loads(out.read_text())["values"]
        cache, warm_cache = before / f".cache-{k}", after / f".cache-warm-{k}"
        if {"c", "w", "n"} & set(results):
            print(f"run {k + 1}: llm-gate cold ...", flush=True)
            shutil.rmtree(cache, ignore_errors=True)
            cold = gate(before, cache, work / f"report-cold-{k}", logs, f"gate-cold-{k}")
            if "c" in results:
                results["c"].append(cold)
            shutil.rmtree(warm_cache, ignore_errors=True)
            shutil.copytree(cache, warm_cache)
            if "n" in results:  # cheap and the noisiest on a shared machine: several runs each time
                for j in range(NONE_RUNS):
                    results["n"].append(gate(before, cache, work / f"report-none-{k}", logs, f"gate-none-{k}-{j}"))
            if "w" in results:
                results["w"].append(gate(after, warm_cache, work / f"report-warm-{k}", logs, f"gate-warm-{k}"))
            (work / "results.json").write_text(json.dumps(results, indent=1))
    sizes = json.loads((before / "workload.json").read_text())["sizes"]
    pairs = sizes["exercises"] * sizes["submissions"] * len(workload.DRIFT_MODELS)
    responses = len(workload.STABILITY_MODELS) * len(workload.TASKS) * sizes["questions"] * sizes["variants"]
    print(f"\nsmall PR gate: {pairs} drift pairs, {responses} stability responses, all-MiniLM-L6-v2; {args.runs} "
          f"runs each; work in {work}\n")
    print(table(results))
    if "b" in values and (work / "report-cold-0").exists():
        mine, windowed = agreement.gate_values(work / "report-cold-0")
        checks = agreement.compare(values["b"], mine, skipped=windowed)
        print("\nagreement with best practice: " + ", ".join(
            f"{family} max |diff| {checks[family]['max_abs_diff']:.1e} over {checks[family]['compared']}"
            for family in ("drift", "stability")))
    if "c" in results and (work / "report-cold-0" / "report.json").exists():
        print("\n" + bound_line(before, work / "report-cold-0" / "report.json", results))
    print("\n" + targets_line(results))


def targets_line(results: dict[str, list[dict]]) -> str:
    """Issue 37's targets, each met or not by the medians above (a target whose pipelines did not run: not run)."""
    def ratio_of(base: str, label: str) -> float | None:
        runs_base, runs = results.get(base), results.get(label)
        return median(runs_base, "seconds") / median(runs, "seconds") if runs_base and runs else None

    none = results.get("n", [])
    checks = [("cold >= 3x seed-style", ratio_of("s", "c"), 3.0),
              ("cold >= 1.5x best practice", ratio_of("b", "c"), 1.5),
              ("warm >= 10x seed-style", ratio_of("s", "w"), 10.0)]
    parts = [f"{name}: {'not run' if value is None else f'{value:.2f}x, ' + ('met' if value >= goal else 'not met')}"
             for name, value, goal in checks]
    if none:
        met = median(none, "seconds") <= 1.5 and not any("torch" in r.get("imported", []) for r in none)
        parts.append(f"nothing changed <= 1.5 s without torch: {'met' if met else 'not met'}")
    return "targets: " + "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
