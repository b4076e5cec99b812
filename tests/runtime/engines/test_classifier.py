"""Our sequence classifier against an independent transformers forward pass, on tiny ALBERT stand-ins."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402

from gate.errors import ConfigError, ModelUnavailable  # noqa: E402
from gate.runtime.engines.classifier import SequenceClassifier  # noqa: E402
from tests.support.tiny_models import (  # noqa: E402
    NEUTRAL_SENTENCES,
    STEREOTYPE_SENTENCES,
    build_tiny_albert_classifier,
    build_tiny_bert,
)

TOL = 1e-6
SMALL = 24  # max_positions of the windowing stand-in: LONG (39 content tokens, a word each) spans three windows
# Duplicates, an empty and a whitespace-only text, and texts outside the training set.
TEXTS = [
    STEREOTYPE_SENTENCES[0],
    NEUTRAL_SENTENCES[0],
    "",
    STEREOTYPE_SENTENCES[1],
    "   ",
    NEUTRAL_SENTENCES[3] + " " + STEREOTYPE_SENTENCES[2],
    STEREOTYPE_SENTENCES[0],
    "The weather is sunny; women are too emotional.",
    NEUTRAL_SENTENCES[4],
    NEUTRAL_SENTENCES[0],
]
# 3 neutral sentences, then 2 stereotype sentences: only the windows at the end see a stereotype.
LONG = " ".join([*NEUTRAL_SENTENCES[:3], *STEREOTYPE_SENTENCES[:2]])
SHORT = NEUTRAL_SENTENCES[0] + " " + STEREOTYPE_SENTENCES[0]
MAX_DIFF: dict[str, float] = {}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """The models are tiny: several torch threads only add overhead (seconds on a busy CI machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def albert_dir(tmp_path_factory) -> str:
    return build_tiny_albert_classifier(tmp_path_factory.mktemp("albert"))


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory) -> str:
    return build_tiny_albert_classifier(tmp_path_factory.mktemp("albert32"), max_positions=SMALL)


@pytest.fixture(scope="module")
def classifier(albert_dir) -> SequenceClassifier:
    return SequenceClassifier.load(albert_dir, batch_size=4)


def _reference(model_dir: str):
    """The tokenizer and model loaded independently of our classifier."""
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    return tokenizer, AutoModelForSequenceClassification.from_pretrained(model_dir).eval()


def _softmax(model, **inputs) -> np.ndarray:
    with torch.no_grad():
        return torch.softmax(model(**inputs).logits, dim=-1)[0].double().numpy()


def test_probabilities_equal_an_independent_softmax(albert_dir, classifier):
    tokenizer, model = _reference(albert_dir)
    expected = np.stack([_softmax(model, **tokenizer(t, return_tensors="pt")) for t in TEXTS])
    p1, windowed1 = classifier.probabilities(TEXTS, 1)
    p0, windowed0 = classifier.probabilities(TEXTS, 0)
    assert p1.dtype == np.float64 and windowed1.dtype == bool and p1.shape == (len(TEXTS),)
    assert not windowed1.any() and not windowed0.any()
    diff = max(np.abs(p1 - expected[:, 1]).max(), np.abs(p0 - expected[:, 0]).max())
    MAX_DIFF["fp32 vs independent softmax"] = float(diff)
    assert diff < TOL
    np.testing.assert_allclose(p0 + p1, 1.0, atol=TOL)


def test_the_stand_in_separates_stereotypes_from_neutral_sentences(classifier):
    stereotype, _ = classifier.probabilities(STEREOTYPE_SENTENCES, 1)
    neutral, _ = classifier.probabilities(NEUTRAL_SENTENCES, 1)
    assert stereotype.mean() - neutral.mean() > 0.5


def test_labels_and_token_limit(classifier, small_dir):
    assert classifier.id2label == {0: "Non-Stereotype", 1: "Stereotype"}
    assert all(type(k) is int for k in classifier.id2label)
    assert classifier.max_tokens == 64 and classifier.window == 62  # [CLS] ... [SEP]
    small = SequenceClassifier.load(small_dir)
    assert small.max_tokens == SMALL and small.window == SMALL - 2


def test_independent_of_batch_size_and_order_and_memoised(albert_dir, classifier):
    reference, _ = classifier.probabilities(TEXTS, 1)
    for batch_size, batch_tokens in ((1, None), (3, None), (64, None), (64, 40)):
        fresh = SequenceClassifier.load(albert_dir, batch_size=batch_size, batch_tokens=batch_tokens)
        backwards, _ = fresh.probabilities(TEXTS[::-1], 1)
        np.testing.assert_allclose(backwards[::-1], reference, atol=TOL, rtol=0)
        # "" and "   " are both [CLS] [SEP]: one forward pass for the two texts.
        unique = len({tuple(fresh.windows(t)[0]) for t in TEXTS})
        assert unique == len(set(TEXTS)) - 1 and fresh.encode_count() == unique
        fresh.probabilities(TEXTS, 0)
        fresh.probabilities([*TEXTS, TEXTS[0]], 1)
        assert fresh.encode_count() == unique  # another label and repeats forward nothing


def test_forward_batches_keep_within_the_position_budget(albert_dir):
    fresh = SequenceClassifier.load(albert_dir, batch_size=64, batch_tokens=40)
    shapes = []
    original = fresh.model.forward
    fresh.model.forward = lambda *a, **kw: shapes.append(tuple(kw["attention_mask"].shape)) or original(*a, **kw)
    fresh.probabilities(TEXTS, 1)
    assert len(shapes) > 1 and all(rows == 1 or rows * width <= 40 for rows, width in shapes)
    assert [w for _, w in shapes] == sorted((w for _, w in shapes), reverse=True)  # longest first
    assert fresh.meter.positions == sum(r * w for r, w in shapes) and fresh.meter.sequences == fresh.encode_count()
    assert SequenceClassifier.load(albert_dir).max_positions == 2**20 // 32  # CPU default: by model width


def test_long_text_is_windowed_and_scored_by_its_most_stereotyped_window(small_dir):
    tokenizer, model = _reference(small_dir)
    ids = tokenizer(LONG)["input_ids"]
    assert len(ids) > SMALL and len(tokenizer(SHORT)["input_ids"]) <= SMALL
    # Cut the windows as the module docstring says: W = 32 - 2 content tokens, every W // 2, last at the end.
    content, width = tokenizer(LONG, add_special_tokens=False)["input_ids"], SMALL - 2
    assert ids == [tokenizer.cls_token_id, *content, tokenizer.sep_token_id]
    starts = sorted(set(range(0, len(content) - width, width // 2)) | {len(content) - width})
    assert len(starts) > 2 and starts[-1] + width == len(content)
    windows = [[tokenizer.cls_token_id, *content[s : s + width], tokenizer.sep_token_id] for s in starts]
    per_window = np.stack([_softmax(model, input_ids=torch.tensor([w])) for w in windows])
    truncated = _softmax(model, **tokenizer(LONG, truncation=True, max_length=SMALL, return_tensors="pt"))

    small = SequenceClassifier.load(small_dir, batch_size=2)
    assert small.windows(LONG) == [tuple(w) for w in windows]
    p1, windowed = small.probabilities([SHORT, LONG], 1)
    p0, _ = small.probabilities([SHORT, LONG], 0)
    assert windowed.tolist() == [False, True]
    assert small.encode_count() == 1 + len(windows)
    diff = max(abs(p1[1] - per_window[:, 1].max()), abs(p0[1] - per_window[:, 0].max()))
    MAX_DIFF["fp32 windowed vs independent windows"] = float(diff)
    assert diff < TOL
    assert abs(per_window[0, 1] - truncated[1]) < TOL  # the first window is what truncation would see
    assert p1[1] > truncated[1] + 0.5  # the stereotype at the end was not dropped
    short = _softmax(model, **tokenizer(SHORT, return_tensors="pt"))
    assert abs(p1[0] - short[1]) < TOL


def test_unknown_label_is_rejected_with_the_labels(classifier):
    for label in (2, -1, True, "Stereotype"):
        with pytest.raises(ValueError, match=r"0 \(Non-Stereotype\), 1 \(Stereotype\)"):
            classifier.probabilities(["text"], label)


def test_missing_directory_is_unavailable_with_a_fix(tmp_path):
    with pytest.raises(ModelUnavailable) as info:
        SequenceClassifier.load(str(tmp_path / "nope"))
    assert info.value.fix and "names the classifier" in info.value.fix and "models pull" in info.value.fix
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelUnavailable, match="Fix:"):
        SequenceClassifier.load(str(tmp_path / "empty"))


def test_a_bare_encoder_is_not_a_classifier(tmp_path):
    with pytest.raises(ModelUnavailable, match="not a sequence-classification model") as info:
        SequenceClassifier.load(build_tiny_bert(tmp_path / "bert"))
    assert "classifier.weight" in str(info.value) and info.value.fix


def test_unknown_dtype_is_a_config_error(albert_dir):
    with pytest.raises(ConfigError) as info:
        SequenceClassifier.load(albert_dir, dtype="float8")
    assert info.value.problems[0].field == "runtime.precision" and "float8" in info.value.render()


def test_bfloat16_on_cpu_is_close_to_float32(albert_dir, classifier):
    bf16 = SequenceClassifier.load(albert_dir, dtype="bfloat16")
    assert next(bf16.model.parameters()).dtype == torch.bfloat16
    texts = [*TEXTS, *STEREOTYPE_SENTENCES, *NEUTRAL_SENTENCES]
    low, full = bf16.probabilities(texts, 1)[0], classifier.probabilities(texts, 1)[0]
    MAX_DIFF["bf16 vs fp32"] = float(np.abs(low - full).max())
    # bf16 keeps ~3 significant digits: where fp32 is confident, bf16 agrees closely; near 0.5 only the decision
    # is compared. The bound holds for this tiny model, which is the same on every run (tests/test_tiny_models.py);
    # about one in 75 models trained over other vocabularies rounds a logit by ~1.4 (transformers' own bf16 too).
    confident = np.abs(full - 0.5) > 0.2
    assert confident.sum() >= len(texts) // 2
    # 0.05: a probability's error is p(1-p) times the logit's, and bf16 rounds logits of the tiny model by up to
    # ~0.15 (seen: 0.037 where the CPU emulates bf16 without AVX-512); the decision must still agree exactly.
    assert np.abs(low - full)[confident].max() < 0.05
    assert ((low > 0.5) == (full > 0.5))[confident].all()


def test_report_max_differences():
    print("\nmax |difference|:", {k: f"{v:.2e}" for k, v in MAX_DIFF.items()})
