# The llm-quality-gate image: `docker run` locally, the Docker action in workflows, or a job
# `container:` on GPU runners (build with a CUDA torch index; the device is chosen automatically).
#
#   docker build -t llm-quality-gate .                                   # CPU; only the embedded MiniLM
#   docker build --target slim -t llm-quality-gate:slim .                # model-free: no torch (below)
#   scripts/build-wheelhouse && docker build --network none \
#       --build-arg PIP_ARGS="--no-index --find-links /tmp/wheelhouse" \
#       -t llm-quality-gate .                                            # hermetic: wheels from ./wheelhouse
#   docker build --build-arg PULL_MODELS="roberta-large holistic-ai/bias_classifier_albertv2" \
#       -t llm-quality-gate:fat .                                        # hub models baked in (needs network)
#   docker build --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cu128 --build-arg DEPS_LOCK= \
#       -t llm-quality-gate:cuda .                                       # CUDA: no hashed lock for it (yet)
#
# Two images: the default (last stage) runs every suite; `slim` has no model stack (torch, transformers,
# sentence-transformers, bert-score, the embedded MiniLM, huggingface-hub) and runs the model-free suites
# (heuristic; rag with `embedding_metrics: false`) -- a suite that needs a model exits 3 naming it.
#
# Stages keep pip, the wheelhouse, build tools and build-time CA certificates (./certs) out of the images.
# Each image is the base plus layers that only add files (scripts/image-layer), from what changes least to
# what changes most: torch alone (requirements-torch.lock), the other dependencies, models, then the gate
# itself (a small layer) -- a gate change re-pulls only the top layer, a dependency bump not torch.
# Only what a run needs is kept: no tests, torch's headers and test binaries, pip, or bert-score's plotting
# dependencies (pandas, matplotlib: only `import bert_score` loads them, which the gate never does); .pyc files
# only for the modules a run imports (scripts/image-bytecode; anything else is compiled when imported).
#
# No USER: a Docker action runs as whatever uid the runner gives it (root on GitHub-hosted runners, the
# runner's uid on self-hosted ones, any `--user`), often one with no passwd entry and no writable HOME.
# Everything here is readable by any uid, and every cache points at /tmp (writable by all); the gate
# itself writes only into the workspace, and says which path, uid and fix when it cannot (exit 2).
# Hub models are not baked in by default: the action's `model_dir` input names a workspace directory
# (cached with actions/cache) that the gate fills from the hub on a miss, once per cache key.

# A pinned Python 3.11 (the local torch wheels are cp311), by the digest of its multi-platform index: a
# tag is moved to every rebuild, a digest names one image for good (the tag only says which it is; docker
# ignores it beside a digest). Take a new digest from docker-library/repo-info
# (repos/python/remote/<tag>.md, the first `docker pull python@sha256:…`) or `docker buildx imagetools
# inspect python:<tag>`. Networks without Docker Hub pass a local base with Python 3.11 and venv
# (scripts/docker-smoke builds one with debootstrap).
ARG BASE_IMAGE=python:3.11.15-slim-bookworm@sha256:d29f48a31a8b408ed19272ca1e7b10ebae13b240a27e862d3d4217c528e2e0c3

FROM ${BASE_IMAGE} AS base
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    VIRTUAL_ENV=/opt/llm-gate/venv \
    PATH=/opt/llm-gate/venv/bin:${PATH} \
    LLM_GATE_MODEL_DIR=/opt/llm-gate/models \
    HF_HOME=/tmp/hf-home \
    XDG_CACHE_HOME=/tmp/.cache \
    MPLCONFIGDIR=/tmp/.cache/matplotlib \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1
# The venv without pip (and without the setuptools ensurepip would add, which a layer above could not
# replace: an image layer only adds). The build stages install into it with their own pip.
RUN python3 -m venv --without-pip "${VIRTUAL_ENV}" \
 && mkdir -p "${LLM_GATE_MODEL_DIR}" \
 && chmod 1777 /tmp

# ---- what the build stages trust besides the base's CAs; never part of the image
# Extra CA certificates (e.g. a TLS-inspecting proxy's): put *.crt files in ./certs/ before building.
# Only the stages that download (torch, deps, slim-deps, models, wheel) build on this one; the images are
# `FROM base` and copy nothing from /etc/ssl or /usr/local/share/ca-certificates (tests/test_security_image.py).
FROM base AS build-trust
COPY certs/ /usr/local/share/ca-certificates/llm-gate/
RUN command -v update-ca-certificates >/dev/null && update-ca-certificates >/dev/null 2>&1 || true
# The build's pip, in a venv of its own: `$PIP` installs into the image's venv (pip --python).
RUN python3 -m venv /opt/build-pip
ENV PIP="/opt/build-pip/bin/pip --python /opt/llm-gate/venv/bin/python"
COPY scripts/image-layer scripts/image-bytecode /usr/local/bin/

# ---- torch alone: the largest dependency, a layer that changes only with requirements-torch.lock
FROM build-trust AS torch
# Where torch comes from: the CPU index by default (no CUDA libraries), a cuXXX index for GPU images.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
# Extra pip arguments; the hermetic build installs only from the wheelhouse.
ARG PIP_ARGS=""
# Every package pinned with its sha256 (scripts/lock-image): a file that changed on an index, or a
# package nobody locked, fails the build. The lock is for the CPU image; a CUDA build passes
# DEPS_LOCK= and resolves from pyproject.toml and constraints.txt without hashes (torch's layer then also
# holds what the CUDA build brings: its nvidia-* libraries).
ARG DEPS_LOCK=requirements-image.lock
# Only torch's wheel of the wheelhouse (README.md: a file that is always there), so that no other file of it
# invalidates this stage.
COPY wheelhouse/README.md wheelhouse/torch-* /tmp/wheelhouse/
COPY constraints.txt requirements-torch.lock /opt/llm-gate/
# torch's C++ headers, its own tests and its C++ test binaries (~200 MB) serve no purpose at run time.
RUN image-layer torch sh -c '\
      if [ -n "${DEPS_LOCK}" ]; then \
        $PIP install ${PIP_ARGS} --extra-index-url "${TORCH_INDEX_URL}" --require-hashes --no-deps -r /opt/llm-gate/requirements-torch.lock; \
      else \
        $PIP install ${PIP_ARGS} --extra-index-url "${TORCH_INDEX_URL}" -c /opt/llm-gate/constraints.txt torch; \
      fi \
      && site="$(echo "${VIRTUAL_ENV}"/lib/python3*/site-packages)" \
      && rm -rf "$site/torch/test" "$site/torch/include" "$site"/torch/bin/test_* "$site"/torch/bin/*Test "$site"/torch/bin/protoc* \
      && find "$site" -depth -type d -name tests -exec rm -rf {} +'

# ---- the other dependencies: change only with requirements-image.lock (pyproject.toml, constraints.txt)
FROM torch AS deps
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ARG PIP_ARGS=""
ARG DEPS_LOCK=requirements-image.lock
COPY wheelhouse/ /tmp/wheelhouse/
COPY pyproject.toml constraints.txt requirements-image.lock /opt/llm-gate/
# The whole lock (torch is already there), checked, then bert-score's plotting and table dependencies removed:
# only its package's __init__ imports them, and the gate reads bert-score's layer table from its source and its
# rescale baselines as files (gate/runtime/engines/session.py, rescale.py). No tests; .pyc for what runs.
RUN image-layer deps sh -c '\
      if [ -n "${DEPS_LOCK}" ]; then \
        $PIP install ${PIP_ARGS} --no-compile --extra-index-url "${TORCH_INDEX_URL}" --require-hashes --no-deps -r "/opt/llm-gate/${DEPS_LOCK}"; \
      else \
        python3 -c "import tomllib; print(chr(10).join(tomllib.load(open(\"/opt/llm-gate/pyproject.toml\", \"rb\"))[\"project\"][\"dependencies\"]))" > /tmp/requirements.txt \
        && $PIP install ${PIP_ARGS} --no-compile --extra-index-url "${TORCH_INDEX_URL}" -c /opt/llm-gate/constraints.txt -r /tmp/requirements.txt; \
      fi \
      && $PIP check \
      && $PIP uninstall --yes pandas matplotlib contourpy cycler fonttools kiwisolver pyparsing python-dateutil tzdata \
      && find "${VIRTUAL_ENV}"/lib/python3*/site-packages -depth -type d -name tests -exec rm -rf {} + \
      && env -u PYTHONDONTWRITEBYTECODE python3 /usr/local/bin/image-bytecode full'

# ---- the model-free image's dependencies: requirements-slim.lock, a part of requirements-image.lock
FROM build-trust AS slim-deps
ARG PIP_ARGS=""
COPY wheelhouse/ /tmp/wheelhouse/
COPY requirements-slim.lock /opt/llm-gate/
RUN image-layer slim-deps sh -c '\
      $PIP install ${PIP_ARGS} --no-compile --require-hashes --no-deps -r /opt/llm-gate/requirements-slim.lock \
      && $PIP check \
      && find "${VIRTUAL_ENV}"/lib/python3*/site-packages -depth -type d -name tests -exec rm -rf {} + \
      && env -u PYTHONDONTWRITEBYTECODE python3 /usr/local/bin/image-bytecode slim'

# ---- models: only the model-resolution module, so a change to the gate does not re-download them
FROM deps AS models
# Hub models to bake into the image besides the embedded all-MiniLM-L6-v2 (needs network at build time).
# None by default: a fat image is a 1.4 GB download on every job; the `model_dir` input caches them instead.
ARG PULL_MODELS=""
COPY gate/__init__.py /tmp/pull/gate/
COPY gate/errors/ /tmp/pull/gate/errors/
COPY gate/io/ /tmp/pull/gate/io/
COPY gate/runtime/__init__.py /tmp/pull/gate/runtime/
COPY gate/runtime/engines/__init__.py gate/runtime/engines/models.py /tmp/pull/gate/runtime/engines/
RUN if [ -n "${PULL_MODELS}" ]; then \
      cd /tmp/pull && HF_HUB_OFFLINE=0 python3 -m gate.runtime.engines.models pull ${PULL_MODELS}; \
    fi

# ---- the gate's wheel (its build backend comes from the index, or the wheelhouse when hermetic), installed
# without its dependencies into an empty venv: the layer both images share
FROM build-trust AS wheel
ARG PIP_ARGS=""
COPY wheelhouse/ /tmp/wheelhouse/
COPY README.md pyproject.toml /opt/llm-gate/src/
COPY gate /opt/llm-gate/src/gate
COPY templates /opt/llm-gate/src/templates
RUN /opt/build-pip/bin/pip wheel ${PIP_ARGS} --no-deps --wheel-dir /tmp/dist /opt/llm-gate/src \
 && image-layer gate sh -c '$PIP install --no-index --no-deps /tmp/dist/*.whl'

# ---- the labels both images carry
FROM base AS image
LABEL org.opencontainers.image.title="llm-quality-gate" \
      org.opencontainers.image.description="Gate pull requests on the quality of LLM outputs" \
      org.opencontainers.image.version="0.2.0" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /github/workspace
ENTRYPOINT ["llm-gate"]
CMD ["--help"]

# ---- the model-free image (`--target slim`, released as <image>:<version>-slim): heuristic suites and RAG
# suites without embeddings; a suite that needs a model exits 3 naming it and the image to use
FROM image AS slim
COPY --from=slim-deps /opt/llm-gate/layers/slim-deps/ /opt/llm-gate/venv/
COPY --from=wheel /opt/llm-gate/layers/gate/ /opt/llm-gate/venv/
RUN llm-gate --version

# ---- the image (the default target): every suite
FROM image
COPY --from=torch /opt/llm-gate/layers/torch/ /opt/llm-gate/venv/
COPY --from=deps /opt/llm-gate/layers/deps/ /opt/llm-gate/venv/
COPY --from=models /opt/llm-gate/models /opt/llm-gate/models
COPY --from=wheel /opt/llm-gate/layers/gate/ /opt/llm-gate/venv/
RUN llm-gate --version
