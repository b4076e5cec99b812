"""Device and precision selection: the pure decision, and what this test machine gets.

Nothing here assumes the host's CPU: where bf16 support matters it is injected (`CpuCaps`), and the probe's
test switch (`LLM_GATE_SIMULATE_CPU`) is checked against a fresh probe."""

from __future__ import annotations

import pytest

from gate.config import Device, Precision
from gate.errors import ExitCode, RuntimeFailure
from gate.runtime.engines import device
from gate.runtime.engines.device import CpuCaps, DeviceChoice, choose, select


def test_auto_uses_cuda_in_half_precision_when_present():
    assert choose(Device.AUTO, Precision.AUTO, cuda_available=True, cuda_name="NVIDIA H100") == \
        DeviceChoice("cuda", "float16", "NVIDIA H100")


def test_auto_falls_back_to_cpu_in_full_precision():
    assert choose(Device.AUTO, Precision.AUTO, cuda_available=False) == DeviceChoice("cpu", "float32", "cpu")


@pytest.mark.parametrize(("precision", "dtype"), [(Precision.FP32, "float32"), (Precision.FP16, "float16"),
                                                  (Precision.BF16, "bfloat16")])
def test_explicit_precision_on_cuda(precision, dtype):
    assert choose(Device.CUDA, precision, cuda_available=True, cuda_name="gpu0") == DeviceChoice("cuda", dtype, "gpu0")
    assert choose(Device.AUTO, precision, cuda_available=True, cuda_name="gpu0").dtype == dtype


def test_cpu_is_honoured_even_with_a_gpu():
    assert choose(Device.CPU, Precision.AUTO, cuda_available=True) == DeviceChoice("cpu", "float32", "cpu")


def test_explicit_cuda_without_cuda_says_how_to_get_one():
    with pytest.raises(RuntimeFailure) as caught:
        choose(Device.CUDA, Precision.AUTO, cuda_available=False)
    assert caught.value.exit_code == ExitCode.RUNTIME_FAILURE
    assert "cuda" in caught.value.message
    assert "--gpus all" in caught.value.fix and "device: auto" in caught.value.fix


@pytest.mark.parametrize("device", [Device.CPU, Device.AUTO])
def test_fp16_on_the_cpu_is_refused(device):
    with pytest.raises(RuntimeFailure) as caught:
        choose(device, Precision.FP16, cuda_available=False)
    assert "fp16" in caught.value.message and "fp32" in caught.value.fix
    with pytest.raises(RuntimeFailure):
        choose(Device.CPU, Precision.FP16, cuda_available=True)  # cpu asked for explicitly, GPU or not


@pytest.mark.parametrize(("precision", "dtype"), [(Precision.BF16, "bfloat16"), (Precision.FP32, "float32")])
def test_bf16_and_fp32_on_the_cpu_are_fine(precision, dtype):
    assert choose(Device.CPU, precision, cuda_available=False) == DeviceChoice("cpu", dtype, "cpu")


def test_select_on_this_machine():
    torch = pytest.importorskip("torch")
    choice = select(Device.AUTO, Precision.AUTO)
    if torch.cuda.is_available():
        assert choice.device == "cuda" and choice.dtype == "float16"
        assert choice.name == torch.cuda.get_device_name(0)
    else:
        assert choice == DeviceChoice("cpu", "float32", "cpu")
    if device.cpu_caps().native_bf16:  # this machine's own answer, whichever it is
        assert select(Device.CPU, Precision.BF16) == DeviceChoice("cpu", "bfloat16", "cpu")
    else:
        with pytest.raises(RuntimeFailure, match="native bfloat16"):
            select(Device.CPU, Precision.BF16)


def test_bf16_on_the_cpu_needs_native_support():
    pytest.importorskip("torch")
    native, emulated = CpuCaps("AVX512", True), CpuCaps("AVX2", False)
    assert select(Device.CPU, Precision.BF16, native) == DeviceChoice("cpu", "bfloat16", "cpu")
    with pytest.raises(RuntimeFailure) as caught:
        select(Device.CPU, Precision.BF16, emulated)
    assert caught.value.exit_code == ExitCode.RUNTIME_FAILURE
    assert "AVX512-BF16 or AMX" in caught.value.message and "fp32" in caught.value.fix
    assert select(Device.CPU, Precision.FP32, emulated) == DeviceChoice("cpu", "float32", "cpu")


@pytest.mark.parametrize(("value", "caps"), [("avx2", CpuCaps("AVX2", False)), ("AVX512", CpuCaps("AVX512", False)),
                                             ("avx512-bf16", CpuCaps("AVX512", True)),
                                             ("none", CpuCaps("DEFAULT", False))])
def test_the_simulated_cpu_replaces_the_probe(fresh_probe, monkeypatch, value, caps):
    monkeypatch.setenv(device.SIMULATE_CPU, value)
    assert fresh_probe() == caps
    monkeypatch.setenv(device.SIMULATE_CPU, "avx2" if caps.kernels != "AVX2" else "avx512")
    assert fresh_probe() == caps  # read once


def test_the_real_probe_names_torchs_kernels(fresh_probe, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.delenv(device.SIMULATE_CPU, raising=False)
    assert fresh_probe().kernels == torch.backends.cpu.get_cpu_capability()


def test_an_unknown_simulated_cpu_is_refused(fresh_probe, monkeypatch):
    monkeypatch.setenv(device.SIMULATE_CPU, "avx9000")
    with pytest.raises(RuntimeFailure) as caught:
        fresh_probe()
    assert "'avx9000'" in caught.value.message and "avx2" in caught.value.fix
