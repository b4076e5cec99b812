"""bert-score's baseline rescaling, (x - b) / (1 - b), with its packaged LAYER,P,R,F files.

Unlike bert-score, a model without a baseline is an error naming the fix, never a silent no-op.
"""

from __future__ import annotations

import csv
import importlib.util
import os
from pathlib import Path

import numpy as np

from gate import io
from gate.errors import ConfigError, Problem
from gate.runtime.engines.scores import RawBertScores


def _config_error(title: str, **problem) -> ConfigError:
    return ConfigError(title, [Problem(**problem)])


def load_rescale_baseline(
    model_name: str, layer: int, lang: str = "en", baseline_path: str | None = None
) -> tuple[float, float, float]:
    """(P, R, F) baseline of `layer` from `baseline_path`, else from bert-score's packaged
    `rescale_baseline/{lang}/{model_name}.tsv`; a header, then rows LAYER,P,R,F (comma or tab)."""
    path = baseline_path or _packaged_baseline(model_name, lang)
    row = _baseline_row(path, layer) if path and os.path.isfile(path) else None
    if row is not None:
        return row
    if not baseline_path:
        detail = f"{path} has no row for layer {layer}" if path else "bert-score ships no file for it"
        raise _missing_baseline(model_name, layer, lang, detail)
    raise _config_error(
        "BERTScore rescaling",
        field="models.bertscore.baseline_path",
        expected=f"a readable LAYER,P,R,F file with a row for layer {layer}",
        found=f"no row for layer {layer} in {baseline_path}" if os.path.isfile(baseline_path)
        else f"no file at {baseline_path}",
        fix="point baseline_path at a file that covers the layer, or choose a layer the file covers",
    )


def _baseline_row(path: str, layer: int) -> tuple[float, float, float] | None:
    lines = [line for line in io.read_text(Path(path), "rescale baseline").splitlines() if line.strip()]
    delimiter = "\t" if lines and "\t" in lines[0] and "," not in lines[0] else ","
    for row in csv.reader(lines[1:], delimiter=delimiter):
        try:
            values = [float(v) for v in row[:4]]
        except ValueError:
            continue
        if len(values) == 4 and values[0] == layer:  # bert-score reads the baseline as float32
            return tuple(float(np.float32(v)) for v in values[1:])  # type: ignore[return-value]
    return None


def _packaged_baseline(model_name: str, lang: str) -> str | None:
    spec = importlib.util.find_spec("bert_score")  # finds the package without importing it
    parts = [*model_name.split("/"), lang]
    if not model_name or os.path.isabs(model_name) or ".." in parts or "/" in lang or spec is None:
        return None
    for root in spec.submodule_search_locations or []:
        path = os.path.join(root, "rescale_baseline", lang, f"{model_name}.tsv")
        if os.path.isfile(path):
            return path
    return None


def _missing_baseline(model_name: str, layer: int, lang: str, detail: str) -> ConfigError:
    return _config_error(
        "BERTScore rescaling",
        field="models.bertscore.rescale_with_baseline",
        expected="a rescale baseline for the model",
        found=f"no rescale baseline exists for model {model_name!r}, layer {layer}, lang {lang!r} ({detail})",
        fix="set `baseline_path:` to a file with rows LAYER,P,R,F, or set `rescale_with_baseline: false`",
    )


def rescale(scores: RawBertScores, baseline: tuple[float, float, float]) -> RawBertScores:
    """bert-score's rescaling, (x - b) / (1 - b) for P, R and F separately (in float32 like it)."""
    b = np.asarray(baseline, dtype=np.float32)
    p, r, f = (
        ((np.asarray(x, dtype=np.float32) - b[i]) / (1 - b[i])).astype(np.float64)
        for i, x in enumerate((scores.precision, scores.recall, scores.f1))
    )
    return RawBertScores(p, r, f, scores.windowed.copy())
