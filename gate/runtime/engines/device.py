"""Device, precision and threads: CUDA when present (auto), else CPU; fp16 on CUDA, fp32 on CPU (bf16 on
request, on CPUs with native bfloat16); one torch thread per CPU the process may use.

What the CPU can do is read in one place, `cpu_caps()`, once per process. `LLM_GATE_SIMULATE_CPU` replaces
that probe, for tests and diagnostics only: `avx2` makes a machine with AVX-512 and bf16 answer like one
without them (CI runs the runtime tests a second time so), `avx512-bf16` the reverse (claims only: torch still
runs the host's kernels, emulating bf16 where the CPU has none). It is never needed in a real run.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from gate.config import Device, Precision
from gate.errors import RuntimeFailure

_DTYPES = {Precision.FP32: "float32", Precision.FP16: "float16", Precision.BF16: "bfloat16"}
SIMULATE_CPU = "LLM_GATE_SIMULATE_CPU"


@dataclass(frozen=True)
class CpuCaps:
    kernels: str  # torch's CPU kernel level ("AVX2", "AVX512", "DEFAULT", ...): a shard's results depend on it
    native_bf16: bool  # AVX512-BF16 or AMX: bf16 runs natively (else torch emulates it, slower than fp32)


SIMULATED = {"default": CpuCaps("DEFAULT", False), "none": CpuCaps("DEFAULT", False),
             "avx2": CpuCaps("AVX2", False), "avx512": CpuCaps("AVX512", False),
             "avx512-bf16": CpuCaps("AVX512", True)}


@dataclass(frozen=True)
class DeviceChoice:
    device: str  # "cpu" | "cuda"
    dtype: str  # "float32" | "float16" | "bfloat16"
    name: str  # human-readable, for the report (e.g. "NVIDIA H100 80GB HBM3")


def choose(device: Device, precision: Precision, cuda_available: bool, cuda_name: str = "cuda") -> DeviceChoice:
    """Pure decision, separated from torch so it can be tested on any machine."""
    if device is Device.CUDA and not cuda_available:
        raise RuntimeFailure(
            "runtime.device is 'cuda' but no CUDA device is visible to torch",
            fix="use `device: auto` (CPU when no GPU), or run the container with `--gpus all` on a GPU runner",
        )
    use_cuda = device is Device.CUDA or (device is Device.AUTO and cuda_available)
    if precision is Precision.AUTO:
        dtype = "float16" if use_cuda else "float32"
    elif precision is Precision.FP16 and not use_cuda:
        raise RuntimeFailure(
            "runtime.precision 'fp16' needs a CUDA device; this run is on the CPU",
            fix="use `precision: auto` (fp32 on CPU), `fp32`, or `bf16` on CPUs that support it",
        )
    else:
        dtype = _DTYPES[precision]
    return DeviceChoice("cuda" if use_cuda else "cpu", dtype, cuda_name if use_cuda else "cpu")


@functools.cache
def cpu_caps() -> CpuCaps:
    """This CPU's kernels and bf16 support, probed once per process, or those `LLM_GATE_SIMULATE_CPU` names."""
    simulated = os.environ.get(SIMULATE_CPU, "").strip().lower()
    if simulated:
        if simulated not in SIMULATED:
            raise RuntimeFailure(f"{SIMULATE_CPU}={simulated!r} names no simulated CPU",
                                 fix=f"use one of {', '.join(SIMULATED)}, or unset it (it is for tests only)")
        return SIMULATED[simulated]
    import torch

    return CpuCaps(str(torch.backends.cpu.get_cpu_capability()), bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()))


def select(device: Device, precision: Precision, caps: CpuCaps | None = None) -> DeviceChoice:
    """`choose` on this machine; `caps` (default: `cpu_caps()`) says whether its CPU has native bf16."""
    import torch

    available = torch.cuda.is_available()
    name = torch.cuda.get_device_name(0) if available else "cpu"
    choice = choose(device, precision, available, name)
    if choice.device == "cpu" and choice.dtype == "bfloat16" and not (caps or cpu_caps()).native_bf16:
        # emulated bf16 runs several times slower than fp32 and is less exact: no reason to want it
        raise RuntimeFailure(
            "runtime.precision 'bf16' needs a CPU with native bfloat16 (AVX512-BF16 or AMX); this one has none",
            fix="use `precision: auto` or `fp32` on this machine")
    return choice


def peek(device: Device, precision: Precision) -> DeviceChoice | None:
    """`select`'s answer when it is certain without importing torch, else None.

    Fingerprints and cache keys name the precision; a run whose model outputs are all cached needs nothing else
    of the device, and importing torch to learn "CPU, float32" costs seconds. Certain: `device: cpu`, or `auto`
    on a machine where no CUDA device can be visible (`cuda_possible`). bf16 needs the CPU probe (torch)."""
    if device is Device.CUDA or precision is Precision.BF16:
        return None
    if device is Device.CPU or not cuda_possible():
        return choose(device, precision, cuda_available=False)
    return None


def cuda_possible() -> bool:
    """False only where torch cannot see a CUDA device: macOS, or Linux without an NVIDIA device node (WSL2's
    GPUs show as /dev/dxg). Anything else (Windows) may have one: ask torch."""
    if sys.platform == "darwin":
        return False
    if sys.platform.startswith("linux"):
        dev = Path("/dev")
        return (dev / "dxg").exists() or any(dev.glob("nvidia[0-9]*")) or (dev / "nvidiactl").exists()
    return True


def available_cpus() -> int:
    """CPUs this process may use: its affinity mask, capped by a cgroup v2 quota (containers, CI runners)."""
    import os

    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            count = min(count, max(1, int(int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, count)


def set_threads(threads: int | None) -> int:
    """torch's intra-op threads: as configured, else one per available CPU (torch's own default counts the
    machine's physical cores, ignoring affinity and container quotas, and oversubscribes a limited runner)."""
    import torch

    count = threads or available_cpus()
    torch.set_num_threads(count)
    return count
