"""Device, precision and threads: CUDA when present (auto), else CPU; fp16 on CUDA, fp32 on CPU (bf16 on
request, on CPUs with native bfloat16); one torch thread per CPU the process may use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gate.config import Device, Precision
from gate.errors import RuntimeFailure

_DTYPES = {Precision.FP32: "float32", Precision.FP16: "float16", Precision.BF16: "bfloat16"}


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


def select(device: Device, precision: Precision) -> DeviceChoice:
    import torch

    available = torch.cuda.is_available()
    name = torch.cuda.get_device_name(0) if available else "cpu"
    choice = choose(device, precision, available, name)
    if choice.device == "cpu" and choice.dtype == "bfloat16" and not torch.ops.mkldnn._is_mkldnn_bf16_supported():
        # emulated bf16 runs several times slower than fp32 and is less exact: no reason to want it
        raise RuntimeFailure(
            "runtime.precision 'bf16' needs a CPU with native bfloat16 (AVX512-BF16 or AMX); this one has none",
            fix="use `precision: auto` or `fp32` on this machine")
    return choice


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
