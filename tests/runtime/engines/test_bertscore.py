"""Our BERTScore engine against the bert-score package (0.3.13), on the embedded MiniLM and a tiny BERT."""

from __future__ import annotations

import importlib
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

bert_score = pytest.importorskip("bert_score")
bert_score_utils = pytest.importorskip("bert_score.utils")

from gate.errors import ConfigError  # noqa: E402
from gate.runtime.engines.bertscore import BertScoreEngine, greedy_cos_idf  # noqa: E402
from gate.runtime.engines.rescale import load_rescale_baseline, rescale  # noqa: E402
from tests.support.tiny_models import FEEDBACK_SENTENCES, build_tiny_bert, build_tiny_roberta  # noqa: E402

TOL = 1e-4

# (candidate, reference): realistic feedback of different lengths, duplicates and one empty candidate.
PAIRS = [
    ("The function handles empty input correctly.", "Empty input is handled correctly by the function."),
    (
        "Good use of the singleton pattern.",
        "The singleton pattern is applied well; make the constructor private.",
    ),
    (
        "The loop is quadratic and too slow for large inputs. Consider a dictionary for constant-time "
        "lookups, and add a test with ten thousand elements to show the improvement.",
        "Performance: the nested loop makes the solution O(n^2). Use a hash map.",
    ),
    ("Missing error handling when the file cannot be opened.", "No error handling for missing files."),
    ("", "The answer does not explain the observer pattern."),
    ("Well done!", "Excellent work, the solution is correct and well tested."),
    ("Variable names like x and tmp are unclear.", "Use descriptive variable names instead of x and tmp."),
    ("The tests cover the happy path only.", "Edge cases are not tested; only the happy path is covered."),
    (
        "Good use of the singleton pattern.",
        "The singleton pattern is applied well; make the constructor private.",
    ),
    (
        "The recursion lacks a base case and will overflow the stack for any input.",
        "There is no base case in the recursive function.",
    ),
    ("Credits deducted: the interface is undocumented.", "The public interface lacks documentation."),
    ("The exception is swallowed silently.", "Catching and ignoring the exception hides real failures."),
    (
        "Great separation of concerns between parser and evaluator.",
        "Parser and evaluator are well separated.",
    ),
    ("The README does not say how to run the tests.", "Document how to run the test suite in the README."),
    (
        "Consider dependency injection so the service can be tested in isolation.",
        "Inject the repository into the service to make it testable.",
    ),
    ("Well done!", "Excellent work, the solution is correct and well tested."),
    ("The commit message should explain why the change was made.", "Explain the why in commit messages."),
    ("Partially correct: the adapter pattern is missing.", "The adapter pattern was not identified."),
    (
        "The thread pool is never shut down, leaking threads at exit.",
        "Shut down the executor to avoid leaks.",
    ),
    ("Clear, efficient and well tested.", "Clear, efficient and well tested."),
]
CANDS = [c for c, _ in PAIRS]
REFS = [r for _, r in PAIRS]
MAX_DIFF: dict[str, float] = {}


@pytest.fixture
def patched_bert_score(monkeypatch):
    """bert-score 0.3.13 calls `build_inputs_with_special_tokens([])` for an empty text, which
    transformers 5 tokenizers no longer have; give that one branch its transformers-4 meaning."""
    original = bert_score_utils.sent_encode

    def sent_encode(tokenizer, sent):
        if sent.strip() == "":
            return tokenizer.encode("", add_special_tokens=True)
        return original(tokenizer, sent)

    monkeypatch.setattr(bert_score_utils, "sent_encode", sent_encode)
    return bert_score.score


@pytest.fixture(scope="module")
def minilm_path(minilm_dir) -> str:
    return str(minilm_dir)


@pytest.fixture(scope="module")
def minilm(minilm_path) -> BertScoreEngine:
    return BertScoreEngine.load(minilm_path, layer=6)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory) -> str:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), max_positions=32)


@pytest.fixture(scope="module")
def tiny(tiny_dir) -> BertScoreEngine:
    return BertScoreEngine.load(tiny_dir, layer=2, batch_size=4)


def _assert_close(name, ours, theirs) -> None:
    pairs = zip((ours.precision, ours.recall, ours.f1), theirs, strict=True)
    diffs = [np.abs(np.asarray(o) - t.numpy()).max() for o, t in pairs]
    MAX_DIFF[name] = float(max(diffs))
    print(f"max |ours - bert_score| {name}: {MAX_DIFF[name]:.2e}")
    assert MAX_DIFF[name] <= TOL, f"{name}: P/R/F differ by {diffs}"


# --- equality with bert-score on the embedded MiniLM ---------------------------------------------
def test_model_facts(minilm):
    assert (minilm.max_tokens, minilm.layer, minilm.num_layers) == (512, 6, 6)


def test_token_ids_match_bert_score_sent_encode(minilm, minilm_path):
    theirs = bert_score_utils.get_tokenizer(minilm_path, use_fast=False)  # transformers', as bert-score loads it
    for text in CANDS + REFS + ["  padded with spaces  "]:
        if text.strip():
            assert list(minilm.token_ids(text)) == bert_score_utils.sent_encode(theirs, text)
    assert minilm.token_ids("   ") == (minilm.tokenizer.cls_token_id, minilm.tokenizer.sep_token_id)


def test_equals_bert_score(minilm, minilm_path, patched_bert_score):
    theirs = patched_bert_score(CANDS, REFS, model_type=minilm_path, num_layers=6)
    ours = minilm.score(CANDS, REFS)
    _assert_close("plain", ours, theirs)
    assert not ours.windowed.any()
    empty = CANDS.index("")
    assert (ours.precision[empty], ours.recall[empty], ours.f1[empty]) == (0.0, 0.0, 0.0)
    assert ours.f1[-1] == pytest.approx(1.0, abs=1e-5)  # identical texts


def test_equals_bert_score_with_other_batching(minilm_path, patched_bert_score):
    """Small, length-sorted batches pad differently from bert-score; the numbers still agree."""
    theirs = patched_bert_score(CANDS, REFS, model_type=minilm_path, num_layers=6)
    engine = BertScoreEngine.load(minilm_path, layer=6, batch_size=3)
    _assert_close("plain, batch 3", engine.score(CANDS, REFS), theirs)
    budgeted = BertScoreEngine.load(minilm_path, layer=6, batch_tokens=24)  # a few short texts per batch
    _assert_close("plain, 24 positions", budgeted.score(CANDS, REFS), theirs)
    assert budgeted.meter.sequences == len(set(CANDS + REFS)) and budgeted.meter.positions > budgeted.meter.tokens


def test_equals_bert_score_with_idf(minilm, minilm_path, patched_bert_score):
    theirs = patched_bert_score(CANDS, REFS, model_type=minilm_path, num_layers=6, idf=True, nthreads=0)
    ours = minilm.score(CANDS, REFS, idf_corpus=REFS)
    _assert_close("idf", ours, theirs)
    plain = minilm.score(CANDS, REFS)
    assert not np.allclose(ours.f1, plain.f1)  # idf really changes the weighting


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
def test_equals_bert_score_rescaled(minilm, minilm_path, patched_bert_score, tmp_path):
    baseline = tmp_path / "minilm-baseline.tsv"
    rows = [
        f"{layer},{0.30 + layer / 100:.6f},{0.31 + layer / 100:.6f},{0.305 + layer / 100:.6f}"
        for layer in range(7)
    ]
    baseline.write_text("LAYER,P,R,F\n" + "\n".join(rows) + "\n")
    theirs = patched_bert_score(
        CANDS,
        REFS,
        model_type=minilm_path,
        num_layers=6,
        lang="en",
        rescale_with_baseline=True,
        baseline_path=str(baseline),
    )
    b = load_rescale_baseline(minilm_path, 6, baseline_path=str(baseline))
    assert b == pytest.approx((0.36, 0.37, 0.365))
    ours = rescale(minilm.score(CANDS, REFS), b)
    _assert_close("rescaled", ours, theirs)


def test_packaged_baseline_is_read_like_bert_score():
    p, r, f = load_rescale_baseline("roberta-large", 17)
    assert 0.5 < p < 1 and 0.5 < r < 1 and 0.5 < f < 1


def test_missing_rescale_baseline_is_a_config_error(minilm_path):
    for name in (minilm_path, "sentence-transformers/all-MiniLM-L6-v2"):
        with pytest.raises(ConfigError) as err:
            load_rescale_baseline(name, 6)
        problem = err.value.problems[0]
        assert problem.field == "models.bertscore.rescale_with_baseline"
        assert "no rescale baseline" in problem.found
        assert "baseline_path" in problem.fix and "rescale_with_baseline: false" in problem.fix


def test_layer_out_of_range_is_a_config_error(tiny_dir):
    for layer in (3, -1):
        with pytest.raises(ConfigError) as err:
            BertScoreEngine.load(tiny_dir, layer=layer)
        problem = err.value.problems[0]
        assert problem.field == "models.bertscore.layer"
        assert "0 to 2" in problem.expected and problem.found == repr(layer)


# --- the tiny BERT: equality within the limit, windows beyond it ---------------------------------
@pytest.mark.parametrize("layer", [1, 2])
def test_tiny_bert_equals_bert_score(tiny_dir, layer):
    engine = BertScoreEngine.load(tiny_dir, layer=layer)
    cands, refs = list(FEEDBACK_SENTENCES[:15]), list(FEEDBACK_SENTENCES[15:])
    assert all(len(engine.token_ids(t)) <= engine.max_tokens for t in cands + refs)
    theirs = bert_score.score(cands, refs, model_type=tiny_dir, num_layers=layer)
    _assert_close(f"tiny layer {layer}", engine.score(cands, refs), theirs)
    theirs = bert_score.score(cands, refs, model_type=tiny_dir, num_layers=layer, idf=True, nthreads=0)
    _assert_close(f"tiny layer {layer} idf", engine.score(cands, refs, idf_corpus=refs), theirs)


LONG = " ".join(FEEDBACK_SENTENCES[:6])  # about 80 tokens, far beyond the tiny model's 32


def _forward(engine, ids) -> torch.Tensor:
    with torch.inference_mode():
        return engine.model(torch.tensor([ids]))[0][0].float()


def test_long_text_is_windowed_not_truncated(tiny):
    ids = tiny.token_ids(LONG)
    assert tiny.max_tokens == 32 and tiny.window == 30 and len(ids) > 2 * tiny.max_tokens
    states = tiny.token_states(LONG)
    assert states.shape[0] == len(ids)  # one state per token: nothing dropped
    scores = tiny.score([LONG, "short"], ["short", "short"])
    assert scores.windowed.tolist() == [True, False]


def test_window_states_come_from_a_direct_forward_of_the_window(tiny):
    ids = tiny.token_ids(LONG)
    content, w = ids[1:-1], tiny.window
    starts = [start for start, _ in tiny._windows(ids)]
    assert starts[0] == 0 and starts[1] == w // 2 and starts[-1] == len(content) - w
    states = torch.from_numpy(tiny.token_states(LONG))
    second = [ids[0], *content[starts[1] : starts[1] + w], ids[-1]]
    direct = _forward(tiny, second)
    middle = starts[1] + w // 2  # a content token in the middle of the second window
    torch.testing.assert_close(states[1 + middle], direct[1 + w // 2], atol=1e-5, rtol=1e-5)
    first = _forward(tiny, [ids[0], *content[:w], ids[-1]])
    last = _forward(tiny, [ids[0], *content[-w:], ids[-1]])
    torch.testing.assert_close(states[0], first[0], atol=1e-5, rtol=1e-5)  # leading CLS: first window
    torch.testing.assert_close(states[1], first[1], atol=1e-5, rtol=1e-5)  # text start: first window
    torch.testing.assert_close(states[-1], last[-1], atol=1e-5, rtol=1e-5)  # trailing SEP: last window
    torch.testing.assert_close(states[-2], last[-2], atol=1e-5, rtol=1e-5)  # text end: last window


def test_every_token_takes_its_state_from_the_window_where_it_is_most_central(tiny):
    ids = tiny.token_ids(LONG)
    content, w = ids[1:-1], tiny.window
    starts = list(range(0, len(content) - w, w // 2)) + [len(content) - w]
    direct = [_forward(tiny, [ids[0], *content[st : st + w], ids[-1]]) for st in starts]
    states = torch.from_numpy(tiny.token_states(LONG))
    for i in range(len(content)):
        margins = [min(i - st, st + w - 1 - i) if st <= i < st + w else -1 for st in starts]
        k = margins.index(max(margins))  # first maximum: ties go to the earlier window
        torch.testing.assert_close(states[1 + i], direct[k][1 + i - starts[k]], atol=1e-5, rtol=1e-5)


def test_a_differing_tail_beyond_the_limit_changes_the_score(tiny, tiny_dir):
    head = " ".join(FEEDBACK_SENTENCES[:3])  # > 32 tokens on its own
    cand = head + " " + FEEDBACK_SENTENCES[10]
    ref = head + " " + FEEDBACK_SENTENCES[20]
    truncated = bert_score.score([cand], [ref], model_type=tiny_dir, num_layers=2)[2].item()
    assert truncated == pytest.approx(1.0, abs=1e-5)  # bert-score only sees the identical head
    ours = tiny.score([cand, head], [ref, head])
    assert ours.windowed.all()
    assert ours.f1[0] < 0.99 and ours.f1[1] == pytest.approx(1.0, abs=1e-5)


# --- a tiny RoBERTa: prefix space, position offset ----------------------------------------------
@pytest.fixture(scope="module")
def roberta_dir(tmp_path_factory) -> str:
    return build_tiny_roberta(tmp_path_factory.mktemp("tiny-roberta"), max_positions=64)


def _prefix_space_tokenizer(model_type, use_fast=False):
    """bert-score's tokenizer as it behaves on transformers 4, where `encode(add_prefix_space=True)`
    took effect; transformers 5 only honours the setting when the tokenizer is created."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model_type, use_fast=use_fast, add_prefix_space=True)


def test_roberta_tokens_have_the_prefix_space_and_limit_of_bert_score(roberta_dir):
    engine = BertScoreEngine.load(roberta_dir, layer=2)
    assert engine.max_tokens == 64  # 66 position embeddings minus RoBERTa's padding_idx + 1
    honoured = _prefix_space_tokenizer(roberta_dir)
    for text in FEEDBACK_SENTENCES:
        assert len(engine.token_ids(text)) <= engine.max_tokens
        assert list(engine.token_ids(text)) == bert_score_utils.sent_encode(honoured, text)
    assert engine.tokenizer.convert_ids_to_tokens(list(engine.token_ids("The loop")))[1] == "\u0120The"


def test_tiny_roberta_equals_bert_score(roberta_dir, monkeypatch):
    monkeypatch.setattr(importlib.import_module("bert_score.score"), "get_tokenizer", _prefix_space_tokenizer)
    engine = BertScoreEngine.load(roberta_dir, layer=2)
    cands, refs = list(FEEDBACK_SENTENCES[:15]), list(FEEDBACK_SENTENCES[15:])
    theirs = bert_score.score(cands, refs, model_type=roberta_dir, num_layers=2)
    _assert_close("tiny roberta", engine.score(cands, refs), theirs)
    theirs = bert_score.score(cands, refs, model_type=roberta_dir, num_layers=2, idf=True, nthreads=0)
    _assert_close("tiny roberta idf", engine.score(cands, refs, idf_corpus=refs), theirs)


def test_long_roberta_text_stays_within_the_position_table(roberta_dir):
    engine = BertScoreEngine.load(roberta_dir, layer=2)
    assert len(engine.token_ids(LONG)) > 2 * engine.max_tokens
    scores = engine.score([LONG, LONG], [FEEDBACK_SENTENCES[0], LONG])
    assert scores.windowed.tolist() == [True, True]
    assert scores.f1[1] == pytest.approx(1.0, abs=1e-5)
    assert engine.token_states(LONG).shape[0] == len(engine.token_ids(LONG))


# --- memoization, precision, pure math -----------------------------------------------------------
def test_each_unique_text_is_forwarded_once(tiny_dir):
    engine = BertScoreEngine.load(tiny_dir, layer=2, batch_size=3)
    forwards = []
    original = engine.model.forward

    def counting_forward(*args, **kwargs):
        forwards.append(kwargs["attention_mask"].sum(dim=1).tolist())
        return original(*args, **kwargs)

    engine.model.forward = counting_forward
    a, b, c, d = FEEDBACK_SENTENCES[:4]
    first = engine.score([a, b, a], [c, c, d])
    assert engine.encode_count() == 4
    second = engine.score([d, a, FEEDBACK_SENTENCES[4]], [b, c, FEEDBACK_SENTENCES[5]])
    assert engine.encode_count() == 6
    assert sum(len(batch) for batch in forwards) == 6
    for batch in forwards:  # sorted by length, longest first
        assert batch == sorted(batch, reverse=True)
    fresh = BertScoreEngine.load(tiny_dir, layer=2)
    np.testing.assert_allclose(
        second.f1, fresh.score([d, a, FEEDBACK_SENTENCES[4]], [b, c, FEEDBACK_SENTENCES[5]]).f1, atol=1e-6
    )
    assert first.f1.shape == (3,)


def test_released_states_are_forgotten_and_encoded_again_alike(tiny_dir):
    engine = BertScoreEngine.load(tiny_dir, layer=2, batch_size=3)
    a, b, c, d = FEEDBACK_SENTENCES[:4]
    first = engine.score([a, b], [c, d])
    engine.release([a, c, "never seen"])
    assert engine.held() == 2 and engine.encode_count() == 4
    again = engine.score([a, b], [c, d])  # a and c forwarded again (other batch mates: the last bits may move)
    assert engine.held() == 4 and engine.encode_count() == 6
    np.testing.assert_allclose(again.f1, first.f1, atol=1e-6)
    engine.release([a, b, c, d])
    assert engine.held() == 0 and engine.score([a, b], [c, d]).f1.tolist() == first.f1.tolist()  # as first: bitwise


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_is_close_to_float32(tiny, tiny_dir, dtype):
    cands, refs = list(FEEDBACK_SENTENCES[:8]), list(FEEDBACK_SENTENCES[8:16])
    half = BertScoreEngine.load(tiny_dir, layer=2, dtype=dtype)
    assert next(half.model.parameters()).dtype == getattr(torch, dtype)
    ours = half.score(cands, refs)
    assert ours.f1.dtype == np.float64
    np.testing.assert_allclose(ours.f1, tiny.score(cands, refs).f1, atol=0.02)


def test_greedy_matching_is_pure_and_masks_padding():
    cand = torch.tensor([[[1.0, 0.0], [0.8, 0.6], [9.0, 9.0]]])  # third row is padding
    ref = torch.tensor([[[1.0, 0.0], [-1.0, -0.1]]])
    p, r, f = greedy_cos_idf(
        cand,
        torch.tensor([[True, True, False]]),
        torch.tensor([[1.0, 1.0, 0.0]]),
        ref,
        torch.tensor([[True, True]]),
        torch.tensor([[1.0, 1.0]]),
        torch.tensor([False]),
    )
    # the best match of reference token 2 is negative: it is kept (bert-score would take the 0 of the
    # padded row instead), and nothing is clipped
    best_neg = float(np.dot([0.8, 0.6], [-1.0, -0.1]) / np.hypot(1.0, 0.1))
    assert best_neg < 0
    assert p.item() == pytest.approx((1.0 + 0.8) / 2, abs=1e-6)
    assert r.item() == pytest.approx((1.0 + best_neg) / 2, abs=1e-6)
    assert f.item() == pytest.approx(2 * p.item() * r.item() / (p.item() + r.item()), abs=1e-6)
    p, r, f = greedy_cos_idf(
        cand,
        torch.tensor([[True, True, False]]),
        torch.tensor([[1.0, 1.0, 0.0]]),
        ref,
        torch.tensor([[True, True]]),
        torch.tensor([[1.0, 1.0]]),
        torch.tensor([True]),
    )
    assert (p.item(), r.item(), f.item()) == (0.0, 0.0, 0.0)  # an empty side scores 0


def test_input_validation(tiny):
    with pytest.raises(ValueError):
        tiny.score(["a"], ["a", "b"])
    with pytest.raises(ValueError):
        tiny.score(["a"], ["b"], idf_corpus=[])
    with pytest.raises(ConfigError):
        BertScoreEngine.load("/nonexistent", layer=1, dtype="float8")
    none = tiny.score([], [])
    assert none.f1.shape == (0,) and none.windowed.shape == (0,)
