"""Device and precision selection: CUDA when present (auto), else CPU; fp16 on CUDA, fp32 on CPU."""

from __future__ import annotations

from dataclasses import dataclass

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
    return choose(device, precision, available, name)
