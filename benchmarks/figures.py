"""Machine description, targets and the printed table of the benchmark (pure except `machine`)."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping

GIB = 1024 ** 3


def cpu_model() -> str:
    """The host's CPU as /proc/cpuinfo names it (else what `platform` knows): every benchmark prints it."""
    import platform

    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine() -> dict:
    import torch

    cpu, flags = cpu_model(), set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    memory = None
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GIB
    except (ValueError, OSError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(memory, 1) if memory else None,
            "platform": platform.platform(), "python": platform.python_version(), "torch": torch.__version__,
            "torch_threads_default": torch.get_num_threads(), "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "bf16_native": bool(flags & {"avx512_bf16", "amx_bf16"}),
            "load_average": os.getloadavg()}


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if not numerator or not denominator:
        return None
    return numerator / denominator


def targets(runs: Mapping[str, dict], model_seconds: float | None, bound_seconds: float | None) -> list[dict]:
    def wall(label: str) -> float | None:
        run = runs.get(label)
        return run["seconds"] if run and run.get("ok") else None

    rss = runs.get("c", {}).get("peak_rss_bytes")
    rows = [
        ("cold >= 3x faster than (a)", ratio(wall("a"), wall("c")), ">=", 3.0),
        ("cold no slower than (b)", ratio(wall("b"), wall("c")), ">=", 1.0),
        ("warm >= 10x faster than (a)", ratio(wall("a"), wall("d")), ">=", 10.0),
        ("model time <= 1.5x lower bound", ratio(model_seconds, bound_seconds), "<=", 1.5),
        ("peak RSS of (c) <= 2 GiB", rss / GIB if rss else None, "<=", 2.0),
    ]
    out = []
    for name, value, op, limit in rows:
        status = "N/A" if value is None else ("PASS" if (value >= limit if op == ">=" else value <= limit) else "FAIL")
        out.append({"target": name, "value": value, "op": op, "limit": limit, "status": status})
    return out


def fmt(value: float | None, spec: str = ".2f", unit: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{unit}"


def fx(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def get(data: Mapping | None, *path: str):
    """A nested key of report.json's `runtime`, or None when the gate does not report it (yet)."""
    for key in path:
        if not isinstance(data, Mapping) or key not in data:
            return None
        data = data[key]
    return data


LABELS = {"a": "(a) reference, seed-style", "b": "(b) reference, batched", "c": "(c) llm-gate run, cold",
          "d": "(d) llm-gate run, warm (PR)", "c_bf16": "(c) llm-gate run, cold, bf16"}


def render(result: dict) -> str:
    lines = []
    m = result["machine"]
    lines.append(f"machine: {m['cpu']}, {m['cores']} cores, {fmt(m['memory_gib'], '.1f')} GiB, torch "
                 f"{m['torch']} ({m['cpu_capability']}), gate threads {result['threads']}; load average "
                 f"{' '.join(f'{x:.1f}' for x in m['load_average'])} at start, "
                 f"{' '.join(f'{x:.1f}' for x in result['load_average_end'])} at end")
    w = result["workload"]
    lines.append(f"workload (scale {w['scale']}): {w['summary']}")
    lines.append(f"classifier: {w['classifier']}")
    lines.append("")
    lines.append(f"{'pipeline':34} {'wall s':>9} {'cpu s':>9} {'peak RSS':>10} {'model s':>9} {'other s':>9}  exit")
    for label, run in result["runs"].items():
        rss, model = run.get("peak_rss_bytes"), run.get("model_seconds")
        other = run["seconds"] - model if model is not None else None
        lines.append(f"{LABELS.get(label, label):34} {fmt(run.get('seconds')):>9} {fmt(run.get('cpu_seconds')):>9} "
                     f"{fmt(rss / GIB if rss else None, '.2f', ' GiB'):>10} {fmt(model):>9} {fmt(other):>9}  "
                     f"{run.get('rc')}")
        if run.get("stages"):
            lines.append("    " + ", ".join(f"{k} {v:.1f}" for k, v in run["stages"].items() if v >= 0.05))
    r = result["ratios"]
    lines.append(f"ratios (wall): a/c {fx(r['a/c'])}   b/c {fx(r['b/c'])}   a/d {fx(r['a/d'])}   "
                 f"(cpu time: a/c {fx(r['cpu a/c'])}, b/c {fx(r['cpu b/c'])}, a/d {fx(r['cpu a/d'])})")
    pr = result["pr"]
    lines.append(f"warm PR regenerates {', '.join(f'{s}: {m}' for s, m in pr['changed'].items())}; "
                 f"{pr['changed_texts']} of {pr['texts']} unique model inputs changed "
                 f"({100 * pr['fraction']:.1f}%) — " + ", ".join(f"{e} {v['changed']}/{v['texts']}"
                                                               for e, v in pr['engines'].items()))
    lines.append("")
    lb = result["lower_bound"]
    gate_engines = engine_seconds(result["runs"].get("c", {}).get("runtime"))
    lines.append("lower bound (unique tokens x forward FLOPs / measured fp32 matmul FLOP/s), and the gate's cold "
                 "model time per engine:")
    for b in lb["engines"]:
        spent = gate_engines.get(b["engine"])
        lines.append(f"  {b['engine']:12} {b['texts']:>7} texts {b['tokens']:>10} tokens {b['gflop']:>10.1f} GFLOP "
                     f"@ {b['flops_per_s'] / 1e9:6.1f} GFLOP/s = {b['seconds']:8.2f} s; gate {fmt(spent)} s "
                     f"({fx(ratio(spent, b['seconds']))})")
    lines.append(f"  total {fmt(lb['seconds'])} s; gate model time {fmt(lb['model_seconds'])} s: "
                 f"model time / lower bound {fx(lb['ratio'])}")
    lines.append(f"  warm PR: new texts only {fmt(lb['warm_seconds'])} s; gate warm model time "
                 f"{fmt(lb['warm_model_seconds'])} s ({fx(ratio(lb['warm_model_seconds'], lb['warm_seconds']))})")
    rt = result["runs"].get("c", {}).get("runtime") or {}
    def value(*path: str) -> object:
        found = get(rt, *path)
        return "n/a" if found is None else found

    lines.append(f"  gate runtime (report.json): device {value('device')}, dtype {value('dtype')}, threads "
                 f"{value('threads')}, encoded {value('encoded', 'texts')} texts / {value('encoded', 'tokens')} tokens "
                 f"({value('encoded', 'padded_positions')} positions with padding); warm cache "
                 + _cache(result["runs"].get("d", {}).get("runtime")))
    lines.append("")
    lines.append("agreement (max |gate - reference|, tolerance 1e-4; items the gate windowed are left out):")
    for name, families in result["agreement"].items():
        for family, a in families.items():
            status = ("(info)" if name.endswith("(info)") else "nothing compared" if not a["compared"]
                      else "ok" if a["ok"] else "OVER")
            lines.append(f"  {name.removesuffix(' (info)'):24} {family:22} {a['max_abs_diff']:.2e}  ({a['compared']} "
                         f"values, {a['missing']} missing, {a['windowed_left_out']} windowed) {status}")
    lines.append("")
    lines.append("targets:")
    for t in result["targets"]:
        lines.append(f"  {t['status']:4}  {t['target']:34} {fmt(t['value'])} (needs {t['op']} {t['limit']})")
    return "\n".join(lines)


def engine_seconds(runtime) -> dict[str, float]:
    """Model seconds per engine kind from report.json's `runtime.engines` (empty when the gate lacks it)."""
    spent: dict[str, float] = {}
    for engine in get(runtime, "engines") or ():
        spent[engine["kind"]] = spent.get(engine["kind"], 0.0) + float(engine["model_seconds"])
    return spent


def _cache(runtime) -> str:
    cache = get(runtime, "cache")
    if not isinstance(cache, Mapping):
        return "n/a"
    return ", ".join(f"{k} {cache.get(k, 'n/a')}" for k in ("hits", "misses", "written", "evicted"))
