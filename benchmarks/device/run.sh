#!/usr/bin/env bash
# There, on the GPU machine (benchmarks/device/prepare.sh first, here): issue 37's CUDA path of the small gate.
# Everything it prints, and the script's tables, come back under $OUT.
set -euo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .device/whl/*.whl
export PYTHONPATH="/tmp/site:$PWD" HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/out}" && mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' \
    | tee -a "$OUT/gpu.txt"
python3 benchmarks/shaped_model.py weights .device/minilm  # random weights of MiniLM's config (no hub there)
python3 benchmarks/small_gate.py --device cuda --model .device/minilm --runs "${RUNS:-3}" --texts "${TEXTS:-short,long}" \
    --workdir /tmp/small-gate 2>&1 | tee "$OUT/small_gate.txt"
