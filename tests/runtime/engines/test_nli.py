"""The NLI engine against an independent transformers forward pass on a tiny ALBERT pair classifier, its windows
over long premises, its labels, its errors, and its trip through the plan, the store, the cache and the replay."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import json  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402

from gate.config import RuntimeConfig  # noqa: E402
from gate.errors import ConfigError, ModelUnavailable  # noqa: E402
from gate.runtime.engines.entailment import entailment_labels, pair_text, split_pair  # noqa: E402
from gate.runtime.engines.nli import PairClassifier  # noqa: E402
from gate.runtime.engines.session import TorchRuntime, resolve_layer  # noqa: E402
from gate.runtime.work.cache import ArrayCache  # noqa: E402
from gate.runtime.work.execute import execute  # noqa: E402
from gate.runtime.work.plan import RecordingRuntime, build_plan  # noqa: E402
from gate.runtime.work.replay import StoreRuntime  # noqa: E402
from gate.runtime.work.store import ResultStore  # noqa: E402
from tests.support.tiny_models import NLI_FACTS, build_tiny_bert, build_tiny_nli, nli_pairs  # noqa: E402

TOL = 1e-5
SMALL = 32  # max_positions of the windowing stand-in
# Training pairs, then pairs it never saw: a claim against two joined facts, an empty claim, an empty premise.
PAIRS = [(p, h) for p, h, _ in nli_pairs()] + [
    (NLI_FACTS[0][0] + " " + NLI_FACTS[1][0], NLI_FACTS[1][1]),
    (NLI_FACTS[2][0], ""),
    ("", NLI_FACTS[3][1]),
    (NLI_FACTS[0][0], NLI_FACTS[0][1]),  # a repeat
]


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def nli_dir(tmp_path_factory) -> str:
    return build_tiny_nli(tmp_path_factory.mktemp("nli"))


@pytest.fixture(scope="module")
def engine(nli_dir) -> PairClassifier:
    return PairClassifier.load(nli_dir, batch_size=4)


def _root(model_dir: str) -> Path:
    """The workspace a runtime may read both the module's model and a test's directory from (pytest's base)."""
    return Path(model_dir).parent


def _independent(model_dir: str, pairs) -> np.ndarray:
    """softmax(logits) of AutoModelForSequenceClassification on tokenizer(premise, hypothesis), one pair at a time."""
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    rows = []
    with torch.no_grad():
        for premise, hypothesis in pairs:
            rows.append(torch.softmax(model(**tokenizer(premise, hypothesis, return_tensors="pt")).logits,
                                      dim=-1)[0].double().numpy())
    return np.stack(rows)


def test_probabilities_equal_an_independent_forward_pass(nli_dir, tmp_path):
    expected = _independent(nli_dir, PAIRS)
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(tmp_path / "cache"), batch_size=3), _root(nli_dir))
    got = runtime.entail(nli_dir, [p for p, _ in PAIRS], [h for _, h in PAIRS])
    # labels by name: contradiction 0, entailment 1, neutral 2 (tiny_models.NLI_LABELS)
    assert np.abs(np.array(got.entailment) - expected[:, 1]).max() <= TOL
    assert np.abs(np.array(got.contradiction) - expected[:, 0]).max() <= TOL
    assert np.abs(np.array(got.neutral) - expected[:, 2]).max() <= TOL
    assert not any(got.windowed) and got.max_tokens == 64 and got.fingerprint.model == nli_dir


def test_the_stand_in_separates_entailed_claims(engine):
    pairs = nli_pairs()
    windows, _ = engine.probabilities([pair_text(p, h) for p, h, _ in pairs])
    entail = np.array([w[0, 1] for w in windows])
    labels = np.array([label for _, _, label in pairs])
    assert entail[labels == 1].min() > 0.5 > entail[labels != 1].max()


def test_token_type_ids_reach_the_model(engine):
    """ALBERT's segment embeddings are part of the pair's encoding: the engine forwards the tokenizer's types."""
    (ids, types), = engine.windows(pair_text(*PAIRS[0]))
    assert set(types) == {0, 1} and len(types) == len(ids)


def test_a_long_premise_is_windowed_and_entailed_by_any_window(tmp_path):
    small = build_tiny_nli(tmp_path / "small", max_positions=SMALL)
    engine = PairClassifier.load(small, batch_size=2)
    premise = " ".join(fact[0] for fact in NLI_FACTS)  # the third fact sits in the middle
    text = pair_text(premise, NLI_FACTS[2][1])
    windows = engine.windows(text)
    assert len(windows) > 1 and all(len(ids) <= SMALL for ids, _ in windows)
    hypothesis = engine.tokenizer(NLI_FACTS[2][1], add_special_tokens=False)["input_ids"]
    sep = engine.tokenizer.sep_token_id
    for ids, types in windows:  # [CLS] premise window [SEP] the whole hypothesis [SEP]
        assert ids[0] == engine.tokenizer.cls_token_id and ids[-1] == sep
        assert list(ids[-1 - len(hypothesis):-1]) == hypothesis and ids[-2 - len(hypothesis)] == sep
        assert types == (0,) * (len(ids) - len(hypothesis) - 1) + (1,) * (len(hypothesis) + 1)
    probs, windowed = engine.softmax_windows(text)
    assert windowed and probs.shape == (len(windows), 3)
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(tmp_path / "cache")), tmp_path)
    got = runtime.entail(small, [premise], [NLI_FACTS[2][1]])
    assert got.windowed == (True,) and got.entailment[0] == pytest.approx(float(probs[:, 1].max()), abs=1e-7)
    best = probs[int(probs[:, 1].argmax())]
    assert got.contradiction[0] == pytest.approx(float(best[0]), abs=1e-7)


def test_labels_are_read_by_name():
    assert entailment_labels({0: "CONTRADICTION", 1: "Entailment", 2: "NEUTRAL"}, "x").entailment == 1
    two_way = entailment_labels({0: "entailment", 1: "not_entailment"}, "x")
    assert (two_way.entailment, two_way.neutral, two_way.contradiction) == (0, None, None)
    assert split_pair(pair_text('a "quoted" [SEP]', "b\n")) == ('a "quoted" [SEP]', "b\n")
    assert pair_text("a b", "c") != pair_text("a", "b c")


def test_a_model_without_an_entailment_label_is_a_located_error(tmp_path):
    path = build_tiny_nli(tmp_path / "nli", id2label={0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(ConfigError) as caught:
        PairClassifier.load(path)
    problem = caught.value.problems[0]
    assert problem.file == str(tmp_path / "nli" / "config.json") and problem.field == "id2label"
    assert "entailment" in problem.expected and "LABEL_0" in problem.found
    assert "the gate.yml field that names the NLI model" in problem.fix


def test_a_bad_model_directory_is_a_located_error(tmp_path, nli_dir):
    with pytest.raises(ModelUnavailable, match="no model directory"):
        PairClassifier.load(str(tmp_path / "missing"))
    with pytest.raises(ModelUnavailable, match="classification head"):
        PairClassifier.load(build_tiny_bert(tmp_path / "bert"))
    broken = tmp_path / "broken"
    shutil.copytree(nli_dir, broken)
    (broken / "config.json").write_text("{ not json")
    from gate.config import ModelRole, ModelUse

    role = ModelRole("nli", "NLI model", engine="nli")  # what a suite's kind hands the runtime (`Kind.models_of`)
    runtime = TorchRuntime(RuntimeConfig(cache_dir=str(tmp_path / "cache")), tmp_path,
                           roles=[ModelUse(role, str(broken))])
    with pytest.raises(ModelUnavailable) as caught:
        runtime.entail(str(broken), ["a"], ["b"])
    assert "NLI model" in str(caught.value) and "models.nli" in (caught.value.fix or "")


def test_plan_execute_store_and_cache_replay_exactly(nli_dir, tmp_path):
    premises, hypotheses = [p for p, _ in PAIRS], [h for _, h in PAIRS]
    config, root = RuntimeConfig(cache_dir=str(tmp_path / "cache")), _root(nli_dir)
    direct = TorchRuntime(config, root).entail(nli_dir, premises, hypotheses)
    recorder = RecordingRuntime(lambda name: None, resolve_layer)  # type: ignore[arg-type,return-value]
    placeholder = recorder.entail(nli_dir, premises, hypotheses)
    assert len(placeholder.entailment) == len(PAIRS)
    plan = build_plan(recorder.requests, 100, config.batch_size)
    assert [e.key.kind for e in plan.engines] == ["nli"] and len(plan.engines[0].texts) == len(set(PAIRS))
    cache = ArrayCache(tmp_path / "cache", 2**30)
    store = execute(plan, TorchRuntime(config, root), cache=cache)
    cache.finish()
    replayed = StoreRuntime(ResultStore.load(store.save(tmp_path / "work.npz"))).entail(nli_dir, premises, hypotheses)
    assert replayed.entailment == pytest.approx(direct.entailment, abs=1e-6)
    assert replayed.fingerprint.comparable_to(direct.fingerprint)
    warm_cache = ArrayCache(tmp_path / "cache", 2**30)
    warm = execute(plan, TorchRuntime(config, root), cache=warm_cache)  # every pair cached: no model loads
    assert warm.engines[0].encoded == 0
    assert StoreRuntime(warm).entail(nli_dir, premises, hypotheses).entailment == replayed.entailment
    manifest = json.loads(bytes(np.load(tmp_path / "work.npz")["manifest"]).decode())
    assert manifest["engines"][0]["kind"] == "nli"


def test_a_roberta_pair_model_without_token_types(tmp_path):
    """RoBERTa's pair template (<s> A </s></s> B </s>), no token_type_ids, positions offset by the padding index:
    equal to the independent forward pass within the limit, windows within it beyond."""
    from transformers import RobertaConfig, RobertaForSequenceClassification

    from tests.support.tiny_models import FEEDBACK_SENTENCES, build_tiny_roberta

    path = build_tiny_roberta(tmp_path / "roberta")
    torch.manual_seed(7)
    config = RobertaConfig.from_pretrained(path, num_labels=3, id2label={0: "CONTRADICTION", 1: "NEUTRAL",
                                                                          2: "ENTAILMENT"})
    RobertaForSequenceClassification(config).eval().save_pretrained(path)
    engine = PairClassifier.load(path, batch_size=2)
    assert engine.labels.entailment == 2 and engine.max_tokens == 32
    pairs = [("Missing error handling.", "Good."), (FEEDBACK_SENTENCES[2], "Good.")]  # 12 and 31 tokens
    windows, flags = engine.probabilities([pair_text(p, h) for p, h in pairs])
    expected = _independent(path, pairs)
    assert not any(flags) and all(not types for seq in pairs for _, types in engine.windows(pair_text(*seq)))
    assert max(float(np.abs(w[0] - e).max()) for w, e in zip(windows, expected, strict=True)) <= TOL
    long = pair_text(" ".join(FEEDBACK_SENTENCES[:6]), FEEDBACK_SENTENCES[7])
    sequences = engine.windows(long)
    assert len(sequences) > 1 and all(len(ids) <= 32 for ids, _ in sequences)
    probs, windowed = engine.softmax_windows(long)
    assert windowed and probs.shape == (len(sequences), 3) and np.allclose(probs.sum(axis=1), 1, atol=1e-6)


def test_a_long_claim_is_cut_to_half_the_room_and_flagged(tmp_path):
    small = build_tiny_nli(tmp_path / "small", max_positions=SMALL)
    engine = PairClassifier.load(small)
    claim = " ".join(fact[1] for fact in NLI_FACTS)  # ~30 tokens: more than the 29 a pair leaves for both texts
    text = pair_text(NLI_FACTS[0][0], claim)
    [(ids, types)] = engine.windows(text)  # the claim keeps what the short premise leaves: one sequence
    assert len(ids) <= SMALL and types.count(1) - 1 == (SMALL - 3) - len(
        engine.tokenizer(NLI_FACTS[0][0], add_special_tokens=False)["input_ids"])
    assert engine.softmax_windows(text)[1] is True  # cut: flagged although one sequence
