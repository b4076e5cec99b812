"""BERTScore's layer: the one gate.yml names, else bert-score's default for a model it knows (read from
bert-score's source without importing it: the planning pass of a fully cached run imports no torch)."""

from __future__ import annotations

import functools
from pathlib import Path

from gate.errors import ConfigError, Problem
from gate.runtime.api import BertScoreSpec


def resolve_layer(spec: BertScoreSpec) -> int:
    return spec.layer if spec.layer is not None else _default_layer(spec.model)


def _default_layer(model: str) -> int:
    """bert-score's default layer for models it knows; anything else must say which layer."""
    model2layers = _bert_score_layers()
    short = model.split("/")[-1] if model.startswith(("FacebookAI/", "google-bert/")) else model
    if short in model2layers:
        return model2layers[short]
    raise ConfigError("BERTScore model", [Problem(
        field="models.bertscore.layer", expected=f"a layer number for {model!r} (bert-score has no default for it)",
        found="null", fix="set `layer:`, e.g. 6 for all-MiniLM-L6-v2 or 17 for roberta-large")])


@functools.cache
def _bert_score_layers() -> dict[str, int]:
    """bert-score's `model2layers`, read from its source: importing `bert_score.utils` imports torch and
    transformers (seconds), and the planning pass of a run whose outputs are all cached needs only this table."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec("bert_score")
    if spec is None or not spec.submodule_search_locations:
        return {}
    source = Path(next(iter(spec.submodule_search_locations))) / "utils.py"
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "model2layers"
                                                for t in node.targets):
            return {str(k): int(v) for k, v in ast.literal_eval(node.value).items()}
    from bert_score.utils import model2layers  # the table is no longer a literal: ask the module

    return dict(model2layers)
