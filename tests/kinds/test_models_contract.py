"""The models a kind loads go through the contract (issue 33): `Kind.models_of` says which models a suite loads and
`Kind.model_keys` adds a kind's own keys under gate.yml's `models:` (as the stereotype kind adds `stereotype`).
A kind outside the package (the test kind, given a model key here) gets its key into gate.yml's schema, its
defaults and located errors, `models list` and `validate`, with no change to the core."""

from __future__ import annotations

import re
import sys
from dataclasses import replace

import pytest
from huggingface_hub import constants as hf_constants

from gate.config import GateConfig, ModelKey, ModelRole, ModelUse, json_schema
from gate.config.loader import parse_config
from gate.errors import ConfigError, ExitCode
from gate.kinds import KINDS, reload
from tests.kinds.wordcount import KIND as WORDCOUNT
from tests.support.cli import run_main

RANKER = ModelRole("ranker", "answer ranker")
KIND = replace(WORDCOUNT, model_keys=(ModelKey(RANKER, "org/ranker", "Answer ranker (wordcount suites)."),),
               models_of=lambda gate, suite: (ModelUse(RANKER, gate.models.model("ranker")),))
CLASHING = replace(WORDCOUNT, model_keys=(ModelKey(ModelRole("embedding", "embedding"), "org/e", "Mine."),))


def install(tmp_path, monkeypatch, target: str):
    site = tmp_path / "site"
    info = site / "gate_wordcount-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gate-wordcount\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[llm_quality_gate.kinds]\nwordcount = {target}\n")
    monkeypatch.syspath_prepend(str(site))
    reload()
    return site


@pytest.fixture
def ranked(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("LLM_GATE_MODEL_DIR", "INPUT_MODEL_DIR", "INPUT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    site = install(tmp_path, monkeypatch, "tests.kinds.test_models_contract:KIND")
    yield tmp_path
    monkeypatch.undo()
    sys.path[:] = [p for p in sys.path if p != str(site)]
    reload()


def test_the_built_in_kinds_add_models_stereotype_as_before():
    models = json_schema()["$defs"]["ModelsConfig"]["properties"]
    assert list(models) == ["embedding", "bertscore", "nli", "stereotype"]  # kinds' keys in registry order
    assert models["stereotype"]["default"] == "holistic-ai/bias_classifier_albertv2"
    assert models["nli"]["default"] == "cross-encoder/nli-deberta-v3-xsmall"  # rag's claim_faithfulness (opt-in)
    assert KINDS["stereotype"].model_keys[0].role.key == "stereotype"
    config = GateConfig.model_validate({"version": 1, "models": {"stereotype": "./mine"},
                                        "suites": {"s": {"kind": "stereotype", "records": "r.jsonl"}}})
    assert [(u.role.key, u.name) for u in KINDS["stereotype"].models_of(config, config.suites["s"])] == [
        ("stereotype", "./mine"), ("embedding", "sentence-transformers/all-MiniLM-L6-v2")]


def test_a_kinds_own_key_joins_models_with_its_default_schema_and_located_errors(ranked):
    schema = json_schema()
    assert schema["$defs"]["ModelsConfig"]["properties"]["ranker"]["description"] == "Answer ranker (wordcount suites)."
    assert schema["properties"]["models"]["default"]["ranker"] == "org/ranker"
    suites = {"w": {"kind": "wordcount", "records": "a.jsonl"}}
    assert GateConfig.model_validate({"version": 1, "suites": suites}).models.model("ranker") == "org/ranker"
    with pytest.raises(ConfigError) as raised:
        parse_config("version: 1\nmodels:\n  rankr: x\nsuites:\n  w: {kind: wordcount, records: a.jsonl}\n",
                     "gate.yml", metrics=KINDS)
    [problem] = raised.value.problems
    assert (problem.field, problem.line) == ("models.rankr", 3)
    assert "ranker" in problem.expected and problem.fix == "did you mean 'ranker'?"


def test_models_list_and_validate_ask_the_kind(ranked, monkeypatch, capsys):
    (ranked / "gate.yml").write_text("version: 1\nsuites:\n  w: {kind: wordcount, records: a.jsonl}\n")
    (ranked / "a.jsonl").write_text('{"model": "m", "response": "a b"}\n')
    monkeypatch.chdir(ranked)
    code, out, _ = run_main(monkeypatch, capsys, "models", "list")
    assert code == ExitCode.RUNTIME_FAILURE, out
    assert re.search(r"^ranker +org/ranker\n +-> NOT AVAILABLE OFFLINE", out, re.MULTILINE), out
    code, out, _ = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.RUNTIME_FAILURE, out
    # the runtime has no advice of its own for this role: it points at the key the kind declared
    assert "model org/ranker (answer ranker; w) -> NOT AVAILABLE OFFLINE" in out
    assert "point models.ranker at a local model directory" in out


def test_a_key_of_the_engines_is_refused(tmp_path, monkeypatch):
    try:
        with pytest.raises(ConfigError) as raised:  # when gate.yml's schema is built from the registered kinds
            install(tmp_path, monkeypatch, "tests.kinds.test_models_contract:CLASHING")
        assert "registered wrongly" in str(raised.value)
        assert "(embedding, bertscore)" in raised.value.problems[0].expected
    finally:
        monkeypatch.undo()
        sys.path[:] = [p for p in sys.path if p != str(tmp_path / "site")]
        reload()
