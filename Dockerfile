# The llm-quality-gate image: `docker run` locally, the Docker action in workflows, or a job
# `container:` on GPU runners (build with a CUDA torch index; the device is chosen automatically).
#
#   docker build -t llm-quality-gate .                                   # CPU; only the embedded MiniLM
#   scripts/build-wheelhouse && docker build --network none \
#       --build-arg PIP_ARGS="--no-index --find-links /tmp/wheelhouse" \
#       -t llm-quality-gate .                                            # hermetic: wheels from ./wheelhouse
#   docker build --build-arg PULL_MODELS="roberta-large holistic-ai/bias_classifier_albertv2" \
#       -t llm-quality-gate:fat .                                        # hub models baked in (needs network)
#   docker build --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cu128 --build-arg DEPS_LOCK= \
#       -t llm-quality-gate:cuda .                                       # CUDA: no hashed lock for it (yet)
#
# Stages keep the wheelhouse, build tools and build-time CA certificates (./certs) out of the final image,
# and its layers run from what
# changes least to what changes most: dependencies, models, then the gate itself (a small layer).
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
RUN python3 -m venv "${VIRTUAL_ENV}" \
 && mkdir -p "${LLM_GATE_MODEL_DIR}" \
 && chmod 1777 /tmp

# ---- what the build stages trust besides the base's CAs; never part of the image
# Extra CA certificates (e.g. a TLS-inspecting proxy's): put *.crt files in ./certs/ before building.
# Only the stages that download (deps, models, wheel) build on this one; the image is `FROM base` and
# copies nothing from /etc/ssl or /usr/local/share/ca-certificates (tests/test_security_image.py).
FROM base AS build-trust
COPY certs/ /usr/local/share/ca-certificates/llm-gate/
RUN command -v update-ca-certificates >/dev/null && update-ca-certificates >/dev/null 2>&1 || true

# ---- dependencies: change only with requirements-image.lock (pyproject.toml, constraints.txt)
FROM build-trust AS deps
# Where torch comes from: the CPU index by default (no CUDA libraries), a cuXXX index for GPU images.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
# Extra pip arguments; the hermetic build installs only from the wheelhouse.
ARG PIP_ARGS=""
# Every package pinned with its sha256 (scripts/lock-image): a file that changed on an index, or a
# package nobody locked, fails the build. The lock is for the CPU image; a CUDA build passes
# DEPS_LOCK= and resolves from pyproject.toml and constraints.txt without hashes.
ARG DEPS_LOCK=requirements-image.lock
COPY wheelhouse/ /tmp/wheelhouse/
COPY pyproject.toml constraints.txt requirements-image.lock /opt/llm-gate/
# torch's C++ headers and its own test suite (~150 MB) serve no purpose at run time.
RUN if [ -n "${DEPS_LOCK}" ]; then \
      pip install ${PIP_ARGS} --extra-index-url "${TORCH_INDEX_URL}" --require-hashes --no-deps -r "/opt/llm-gate/${DEPS_LOCK}"; \
    else \
      python3 -c "import tomllib; print('\n'.join(tomllib.load(open('/opt/llm-gate/pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
      && pip install ${PIP_ARGS} --extra-index-url "${TORCH_INDEX_URL}" -c /opt/llm-gate/constraints.txt -r /tmp/requirements.txt; \
    fi \
 && pip check \
 && rm -rf "${VIRTUAL_ENV}"/lib/python3*/site-packages/torch/test "${VIRTUAL_ENV}"/lib/python3*/site-packages/torch/include

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

# ---- the gate's wheel (its build backend comes from the index, or the wheelhouse when hermetic)
FROM deps AS wheel
ARG PIP_ARGS=""
COPY README.md pyproject.toml /opt/llm-gate/src/
COPY gate /opt/llm-gate/src/gate
COPY templates /opt/llm-gate/src/templates
RUN pip wheel ${PIP_ARGS} --no-deps --wheel-dir /tmp/dist /opt/llm-gate/src

# ---- the image
FROM base
LABEL org.opencontainers.image.title="llm-quality-gate" \
      org.opencontainers.image.description="Gate pull requests on the quality of LLM outputs" \
      org.opencontainers.image.version="0.2.0" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=deps /opt/llm-gate/venv /opt/llm-gate/venv
COPY --from=models /opt/llm-gate/models /opt/llm-gate/models
COPY --from=wheel /tmp/dist/ /tmp/dist/
RUN pip install --no-index --no-deps /tmp/dist/*.whl \
 && rm -rf /tmp/dist \
 && llm-gate --version
WORKDIR /github/workspace
ENTRYPOINT ["llm-gate"]
CMD ["--help"]
