#!/usr/bin/env bash
# Here, before a GPU machine is asked for: what benchmarks/device/run.sh needs there, in the ignored folder .device/
# (~4 MB: carry it). That machine has Python 3.12 with torch, transformers, sentence-transformers, typer, rich,
# jinja2, PyYAML, numpy and scipy, reaches no network, and takes at most 64 MiB along (benchmarks/README.md).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
grep -qsx '/.device/' .git/info/exclude || echo '/.device/' >> .git/info/exclude
rm -rf .device && mkdir -p .device/whl
# The gate's libraries that machine lacks, at the image lock's versions, for its CPython 3.12.
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .device/whl $(grep -hoE '^(pydantic|pydantic-core|annotated-types|typing-inspection|typing-extensions|orjson|bert-score)==[^ ]+' \
    requirements-image.lock)
.venv/bin/python benchmarks/shaped_model.py files .device/minilm  # MiniLM's config and tokenizer; weights there
du -sh .device
echo 'now: run(command="bash benchmarks/device/run.sh", carry=[".device"], timeout_s=600)'
