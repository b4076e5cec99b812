# The llm-quality-gate image: `docker run` locally, or the Docker action in a workflow.
# The base image is a build argument so networks without Docker Hub can build on a local base.
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.title="llm-quality-gate" \
      org.opencontainers.image.description="Gate pull requests on the quality of LLM outputs" \
      org.opencontainers.image.version="0.1.0"

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1

WORKDIR /opt/llm-gate

# Dependencies first (the slow layer), CPU torch from the PyTorch index.
COPY constraints.txt ./
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -c constraints.txt torch

COPY pyproject.toml README.md ./
COPY gate ./gate
COPY templates ./templates
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -c constraints.txt .

ENTRYPOINT ["llm-gate"]
CMD ["--help"]
