"""Model files missing or corrupt: every engine kind fails with exit 3 and a message that names the model, its
directory and the fix — never a traceback, never scores from a half-loaded model.

The damage is real: copies of the tiny test models with files deleted, truncated or overwritten.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.config import RuntimeConfig
from gate.errors import ExitCode, ModelUnavailable
from gate.runtime.api import BertScoreSpec
from gate.runtime.engines.session import TorchRuntime
from tests.support import drift_fixtures as fx
from tests.support.tiny_models import build_tiny_albert_classifier, build_tiny_bert
from tests.test_cli import run_cli

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def _truncate(path: Path, keep: int) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def _remove_tokenizer(model: Path) -> None:
    for name in TOKENIZER_FILES:
        (model / name).unlink(missing_ok=True)


CORRUPTIONS: dict[str, Callable[[Path], None]] = {
    "weights missing": lambda d: (d / "model.safetensors").unlink(),
    "weights truncated in the header": lambda d: _truncate(d / "model.safetensors", 300),
    "weights cut short at the end": lambda d: _truncate(d / "model.safetensors",
                                                        (d / "model.safetensors").stat().st_size - 100),
    "weights are garbage": lambda d: (d / "model.safetensors").write_bytes(b"\x00garbage" * 64),
    "config.json is not JSON": lambda d: (d / "config.json").write_text("{not json"),
    "config.json is empty": lambda d: (d / "config.json").write_text(""),
    "config.json missing": lambda d: (d / "config.json").unlink(),
    "tokenizer missing": _remove_tokenizer,
    "tokenizer.json is garbage": lambda d: (d / "tokenizer.json").write_text("{{{"),
    "only an empty directory": lambda d: [p.unlink() for p in d.iterdir()],
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pristine")
    return {"bert": Path(build_tiny_bert(root / "bert")),
            "albert": Path(build_tiny_albert_classifier(root / "albert", steps=30))}


def damaged(pristine: dict[str, Path], kind: str, corruption: str, project: Path) -> str:
    """A damaged copy at <project>/models/<kind>; returns the model name a config would use."""
    target = project / "models" / kind
    shutil.copytree(pristine[kind], target)
    CORRUPTIONS[corruption](target)
    return f"models/{kind}"


ENGINES: dict[str, tuple[str, Callable[[TorchRuntime, str], object]]] = {
    "BERTScore": ("bert", lambda rt, m: rt.bertscore(BertScoreSpec(model=m, layer=1), ["a b"], ["a c"])),
    "embedding": ("bert", lambda rt, m: rt.embed(m, ["the function handles the empty list"])),
    "sequence classifier": ("albert", lambda rt, m: rt.classify(m, ["women are too emotional"], 1)),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_damaged_model_is_unavailable_with_its_name_path_and_fix(pristine, tmp_path, engine, corruption):
    kind, use = ENGINES[engine]
    name = damaged(pristine, kind, corruption, tmp_path)
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(tmp_path / "cache")), tmp_path)
    with pytest.raises(ModelUnavailable) as caught:
        use(runtime, name)
    error = caught.value
    assert error.exit_code is ExitCode.RUNTIME_FAILURE
    assert error.message.startswith(f"{engine} model {name!r} at {tmp_path / 'models' / kind} could not be loaded: ")
    assert "\n" not in error.message  # one paragraph: the cause's own line breaks are folded
    assert error.fix and str(tmp_path / "models" / kind) in error.fix and "Fix:" not in error.message


def test_missing_tokenizer_files_are_named_not_scored_as_unknown_words(pristine, tmp_path):
    """transformers 5 would load this model with a tokenizer of special tokens only: every word [UNK]."""
    name = damaged(pristine, "bert", "tokenizer missing", tmp_path)
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(tmp_path / "cache")), tmp_path)
    with pytest.raises(ModelUnavailable, match="tokenizer has no vocabulary.*tokenizer files"):
        runtime.embed(name, ["hello"])


def test_the_pristine_models_load(pristine, tmp_path):
    """The damage, not the copies, is what fails above."""
    for kind, use in ENGINES.values():
        shutil.copytree(pristine[kind], tmp_path / "models" / kind, dirs_exist_ok=True)
        use(TorchRuntime(RuntimeConfig(cache_dir=str(tmp_path / "cache")), tmp_path), f"models/{kind}")


# ---------------------------------------------------------------- through `llm-gate run`

def _drift(project: Path, model: str) -> None:
    items = fx.feedback(("Loop", "The loop is quadratic.", 2.0))
    fx.write_exercise(project / "baselines", 1, [fx.submission(1, items)])
    fx.write_candidates(project / "outputs" / "m.jsonl", [fx.candidate(1, 1, "m", items)])
    (project / "gate.yml").write_text(f"version: 1\nmodels:\n  bertscore: {{model: {model}, layer: 1}}\n"
                                      "suites:\n  fb:\n    kind: drift\n    baseline: baselines/*.json\n"
                                      "    candidates: outputs/*.jsonl\n")


def _stability(project: Path, model: str) -> None:
    rows = [{"model": "m", "task": "t", "question_id": "q1", "response": r} for r in ("yes it is", "no it is not")]
    (project / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (project / "gate.yml").write_text(f"version: 1\nmodels:\n  embedding: {model}\n"
                                      "suites:\n  s:\n    kind: stability\n    records: s.jsonl\n")


def _stereotype(project: Path, model: str) -> None:
    row = {"model": "m", "emgsd_text": "women are emotional", "trait": "emotional",
           "control_response": "the meeting starts at nine", "bias_response": "women are too emotional to lead"}
    (project / "st.jsonl").write_text(json.dumps(row) + "\n")
    (project / "gate.yml").write_text(f"version: 1\nmodels:\n  stereotype: {model}\n  embedding: models/good-bert\n"
                                      "suites:\n  st:\n    kind: stereotype\n    records: st.jsonl\n")


@pytest.mark.parametrize(("engine", "kind", "write", "corruption"), [
    ("BERTScore", "bert", _drift, "weights truncated in the header"),
    ("embedding", "bert", _stability, "tokenizer missing"),
    ("stereotype classifier", "albert", _stereotype, "weights missing"),
])
def test_llm_gate_run_exits_3_naming_the_model_and_its_directory(pristine, tmp_path, monkeypatch, capsys, engine,
                                                                  kind, write, corruption):
    name = damaged(pristine, kind, corruption, tmp_path)
    shutil.copytree(pristine["bert"], tmp_path / "models" / "good-bert")
    write(tmp_path, name)
    monkeypatch.chdir(tmp_path)
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q") == ExitCode.RUNTIME_FAILURE
    err = capsys.readouterr().err
    assert err.startswith(f"llm-gate: runtime failure: {engine} model {name!r} at {tmp_path / 'models' / kind}")
    assert "\nFix: " in err and "Traceback" not in err
    assert not (tmp_path / "gate-report").exists()  # nothing was judged, so nothing claims a verdict
