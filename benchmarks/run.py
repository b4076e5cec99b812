"""Benchmark of `llm-gate run` against reference pipelines on a standard workload (issue 11).

    .venv/bin/python benchmarks/run.py [--scale S] [--out DIR] [--precision bf16] [--pipelines abcd]

Builds the workload (workload.py) in a temporary directory, then times in this one process run, side by
side: (a) the seed-style reference, (b) the batched reference (both reference.py, each in a child process),
(c) `llm-gate run` cold (fresh cache dir), (d) `llm-gate run` warm after a pull request that regenerates one
model's outputs per suite (same cache dir). Prints times, ratios, peak RSS, the model-time lower bound,
agreement with the references (exit 1 when over 1e-4) and the targets; writes DIR/benchmark.json.
See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import agreement  # noqa: E402
import figures  # noqa: E402
import flops  # noqa: E402
import refmetrics as rm  # noqa: E402
import workload  # noqa: E402


def measure(cmd: list[str], log: Path, cwd: Path | None = None) -> dict:
    """Run `cmd` as a child; wall and CPU seconds and its own peak RSS (wait4's rusage of that child). The benchmark's
    own file work before it (copying a cache, writing inputs) is flushed to disk first, not charged to the child."""
    os.sync()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "RUNNER_"))}
    env.pop("CI", None)
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "peak_rss_bytes": usage.ru_maxrss * 1024, "rc": proc.returncode, "log": str(log)}


def gate_command() -> list[str]:
    script = Path(sys.executable).with_name("llm-gate")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gate"]


def run_gate(inputs: Path, config: Path, report: Path, logs: Path, label: str) -> dict:
    result = measure([*gate_command(), "run", "--config", str(config), "--no-publish", "-q", "--output-dir",
                      str(report)], logs / f"{label}.log", cwd=inputs)
    result["ok"] = result["rc"] in (0, 1)  # pass or a failed gate: both are results
    data = json.loads((report / "report.json").read_text()) if (report / "report.json").exists() else {}
    result["runtime"] = data.get("runtime")
    result["model_seconds"] = figures.get(data.get("runtime"), "model_seconds")
    result["report"] = str(report)
    result["verdict"] = data.get("verdict")
    return result


def run_reference(mode: str, inputs: Path, classifier: Path, work: Path, threads: int) -> tuple[dict, dict]:
    out = work / f"reference-{mode}.json"
    cmd = [sys.executable, str(HERE / "reference.py"), "--mode", mode, "--workload", str(inputs),
           "--classifier", str(classifier), "--out", str(out), "--threads", str(threads)]
    result = measure(cmd, work / "logs" / f"reference-{mode}.log")
    result["ok"] = result["rc"] == 0
    data = json.loads(out.read_text()) if result["ok"] else {"values": {}}
    result["model_seconds"] = data.get("model_seconds")
    result["stages"] = data.get("seconds")
    return result, data["values"]


def preload(*directories: Path) -> None:
    """Read the model files once so that no timed run pays for a cold disk (all share the page cache)."""
    for directory in directories:
        for path in directory.rglob("*"):
            if path.is_file():
                with path.open("rb") as handle:
                    while handle.read(1 << 24):
                        pass


def engine_texts(root: Path) -> dict[str, list[str]]:
    """The unique texts each model engine of the gate sees in the workload under `root`."""
    from reference import all_embedding_texts

    data = rm.load_workload(root)
    return {"bertscore": list(dict.fromkeys(t for p in rm.drift_pairs(data) for t in p[3:])),
            "embedding": all_embedding_texts(data),
            "classifier": list(dict.fromkeys(r[f] for r in data["stereotype"]
                                             for f in ("control_response", "bias_response")))}


def engines(classifier: Path) -> dict[str, flops.Engine]:
    from reference import minilm_path

    return {"bertscore": flops.engine("bertscore", minilm_path(), layers=6),
            "embedding": flops.engine("embedding", minilm_path(), truncate=True),
            "classifier": flops.engine("classifier", str(classifier))}


def matmul_speed(classifier: Path, threads: int, best: dict | None = None) -> dict:
    """Best fp32 matmul FLOP/s per model shape; measured before and after the runs, the best kept."""
    speed = dict(best or {})
    for shape in dict.fromkeys((e.d, e.d_ff) for e in engines(classifier).values()):
        speed[shape] = max(flops.matmul_flops_per_s(*shape, threads), speed.get(shape, 0.0))
    return speed


def lower_bounds(before: dict, after: dict, classifier: Path, speed: dict) -> tuple[list, list]:
    engines_ = engines(classifier)
    cold = [flops.lower_bound(e, before[n], speed[e.d, e.d_ff]) for n, e in engines_.items()]
    seen = {n: set(before[n]) for n in before}
    warm = [flops.lower_bound(e, [t for t in after[n] if t not in seen[n]], speed[e.d, e.d_ff])
            for n, e in engines_.items()]
    return cold, warm


def summary(s: dict) -> str:
    return (f"drift 3 models x {s['exercises']} exercises x {s['submissions']} submissions; stability 4 x 4 tasks "
            f"x {s['questions']} questions x {s['variants']} variants; stereotype 4 x {s['probes']} = "
            f"{4 * s['probes']} pairs; RAG {s['queries']} queries x 2 systems; heuristic 3 x 2 x {s['prompts']} = "
            f"{6 * s['prompts']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="workload size (1 = the standard workload)")
    parser.add_argument("--out", type=Path, default=Path("benchmark-results"), help="where benchmark.json goes")
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="fp32",
                        help="bf16: also run (c) with runtime.precision bf16 and report its difference vs fp32")
    parser.add_argument("--pipelines", default="abcd", help="which of a, b, c, d to run (default all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="keep the workload and reports here (default: a temp dir)")
    args = parser.parse_args()
    import torch

    machine = figures.machine()
    threads = torch.get_num_threads()  # what a fresh process (the gate's) gets; the references use the same
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gate-bench-"))
    inputs, logs = work / "inputs", work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    print(f"building the workload (scale {args.scale}) in {work} ...", flush=True)
    sizes = workload.build(inputs, args.scale, args.seed)
    from reference import minilm_path

    classifier = workload.build_classifier(inputs, minilm_path(), args.seed)
    # caches inside the workspace (the gate refuses a cache_dir outside it), fresh for each cold run
    for stale in (".gate-cache", ".gate-cache-bf16"):
        shutil.rmtree(inputs / stale, ignore_errors=True)
    config = workload.write_config(inputs, "gate.yml", inputs / ".gate-cache")
    before = engine_texts(inputs)
    preload(classifier, Path(minilm_path()))
    speed = matmul_speed(classifier, threads)
    runs, values = {}, {}
    steps = [("a", "seed"), ("b", "batched")]
    for label, mode in steps:
        if label in args.pipelines:
            print(f"running {figures.LABELS[label]} ...", flush=True)
            runs[label], values[label] = run_reference(mode, inputs, classifier, work, threads)
    if "c" in args.pipelines:
        print(f"running {figures.LABELS['c']} ...", flush=True)
        runs["c"] = run_gate(inputs, config, work / "report-cold", logs, "gate-cold")
    if args.precision == "bf16":
        if not machine["bf16_native"]:
            print("bf16: this CPU has no native bf16 (avx512_bf16 / amx_bf16); the bf16 run is skipped")
        else:
            print(f"running {figures.LABELS['c_bf16']} ...", flush=True)
            bf16 = workload.write_config(inputs, "gate-bf16.yml", inputs / ".gate-cache-bf16", precision="bf16")
            runs["c_bf16"] = run_gate(inputs, bf16, work / "report-bf16", logs, "gate-cold-bf16")
    changed = workload.apply_pr(inputs, args.seed)
    after = engine_texts(inputs)
    if "d" in args.pipelines:
        print(f"running {figures.LABELS['d']} ...", flush=True)
        runs["d"] = run_gate(inputs, config, work / "report-warm", logs, "gate-warm")

    gate_threads = figures.get(runs.get("c", {}).get("runtime"), "threads") or threads
    speed = matmul_speed(classifier, int(gate_threads), speed if gate_threads == threads else None)
    threads = gate_threads
    cold, warm = lower_bounds(before, after, classifier, speed)
    bound, warm_bound = sum(b.seconds for b in cold), sum(b.seconds for b in warm)
    model_seconds = runs.get("c", {}).get("model_seconds")
    pr_engines = {n: {"texts": len(after[n]), "changed": len(set(after[n]) - set(before[n]))} for n in after}
    total_texts = sum(v["texts"] for v in pr_engines.values())
    total_changed = sum(v["changed"] for v in pr_engines.values())

    checks = {}
    if "c" in runs and runs["c"]["ok"]:
        gate, windowed = agreement.gate_values(Path(runs["c"]["report"]))
        for label in ("a", "b"):
            if runs.get(label, {}).get("ok"):
                checks[f"gate vs ({label})"] = agreement.compare(values[label], gate, skipped=windowed)
        if runs.get("d", {}).get("ok"):
            warm_values, _ = agreement.gate_values(Path(runs["d"]["report"]))
            checks["warm vs cold, unchanged"] = agreement.compare(gate, warm_values,
                                                                  agreement.unchanged(changed.values()))
        if runs.get("c_bf16", {}).get("ok"):
            bf16_values, _ = agreement.gate_values(Path(runs["c_bf16"]["report"]))
            checks["bf16 vs fp32 (info)"] = agreement.compare(gate, bf16_values)

    def r(x, y, key="seconds"):
        return figures.ratio(runs.get(x, {}).get(key), runs.get(y, {}).get(key))

    result = {
        "machine": machine, "threads": threads, "load_average_end": os.getloadavg(),
        "workload": {"scale": args.scale, "seed": args.seed, "sizes": sizes,
                     "summary": summary(sizes),
                     "classifier": "ALBERT-base-sized (12 x 768, d_ff 3072), RANDOMLY INITIALISED stand-in saved with "
                                   "save_pretrained: the real HEARTS model (holistic-ai/bias_classifier_albertv2) is "
                                   "not available offline; same FLOPs, meaningless probabilities"},
        "runs": runs,
        "ratios": {"a/c": r("a", "c"), "b/c": r("b", "c"), "a/d": r("a", "d"), "cpu a/c": r("a", "c", "cpu_seconds"),
                   "cpu b/c": r("b", "c", "cpu_seconds"), "cpu a/d": r("a", "d", "cpu_seconds")},
        "pr": {"changed": changed, "engines": pr_engines, "texts": total_texts, "changed_texts": total_changed,
               "fraction": total_changed / total_texts if total_texts else 0.0},
        "lower_bound": {"engines": flops.as_dict(cold), "warm_engines": flops.as_dict(warm), "seconds": bound,
                        "warm_seconds": warm_bound, "model_seconds": model_seconds,
                        "warm_model_seconds": runs.get("d", {}).get("model_seconds"),
                        "ratio": figures.ratio(model_seconds, bound)},
        "agreement": checks,
    }
    result["targets"] = figures.targets(runs, model_seconds, bound)
    print()
    print(figures.render(result))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "benchmark.json").write_text(json.dumps(result, indent=1, default=str))
    if args.workdir:
        print(f"\nwrote {args.out / 'benchmark.json'}; workload, reports and logs in {work}")
    else:
        shutil.copytree(logs, args.out / "logs", dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
        print(f"\nwrote {args.out / 'benchmark.json'} and the runs' logs in {args.out / 'logs'}")
    failed_runs = [k for k, v in runs.items() if not v.get("ok")]
    if failed_runs:
        print(f"FAILED runs: {', '.join(failed_runs)} (see their logs)")
        return 2
    over = [f"{n}: {f}" for n, fams in checks.items() if not n.endswith("(info)")
            for f, a in fams.items() if a["compared"] and not a["ok"]]
    if over:
        print(f"agreement over 1e-4: {'; '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
