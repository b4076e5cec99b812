"""`gate.runtime.engines.wordpiece` against transformers' own tokenizer (`AutoTokenizer.from_pretrained`, as
bert-score and sentence-transformers load it): the same ids on thousands of generated texts, and None — transformers
loads it — for every checkpoint it does not reproduce."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gate.runtime.engines import wordpiece
from tests.support.tiny_models import build_tiny_bert

transformers = pytest.importorskip("transformers")
if int(transformers.__version__.split(".")[0]) < 5:
    pytest.skip("the native tokenizer reproduces transformers 5's BertTokenizer only", allow_module_level=True)

_PIECES = [
    "the", "cat", "sat", "Running", "unbelievably", "recursion", "O(n log n)", "e.g.", "3.14", "1,000", "don't",
    "café", "naïve", "Ångström", "résumé", "ﬁ", "Σίσυφος", "Привет", "مرحبا", "שָׁלוֹם", "नमस्ते", "中文", "日本語の文",
    "한국어", "😀", "👍🏽", "🇩🇪", "\u200b", "\ufeff", "\u00a0", "\u3000", "\x00", "\x0b", "\t", "\r\n", "\n\n", "  ",
    "[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "[sep]", "[ SEP ]", "x[MASK]y", "##ing", "—", "…", "«»", "©®™",
    "a" * 101, "b" * 99, "supercalifragilisticexpialidocious" * 4, "e\u0301", "A\u030a", "ǅ", "İ", "ß",
]


def _texts(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    texts = ["", " ", "hello world", "a " * 600]  # empty, blank, and longer than the model's limit
    for _ in range(n):
        k = rng.randint(1, 24)
        texts.append(rng.choice(["", " "]).join(rng.choice(_PIECES) for _ in range(k))
                     if rng.random() < 0.3 else " ".join(rng.choice(_PIECES) for _ in range(k)))
    return texts


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory) -> Path:
    return Path(build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), max_positions=32))


@pytest.mark.parametrize("which", ["minilm", "tiny"])
def test_ids_equal_transformers_tokenizer_on_generated_texts(which, minilm_dir, tiny_path):
    path = minilm_dir if which == "minilm" else tiny_path
    ours = wordpiece.load(path)
    assert ours is not None
    slow = transformers.AutoTokenizer.from_pretrained(str(path), use_fast=False)  # bert-score's
    fast = transformers.AutoTokenizer.from_pretrained(str(path))  # sentence-transformers'
    texts = _texts(2500 if which == "minilm" else 500)
    for text in texts:
        for special in (True, False):
            assert ours.encode(text, add_special_tokens=special) == slow.encode(
                text, add_special_tokens=special, verbose=False), (text, special)
    for max_length in (8, 256):
        for start in range(0, len(texts), 97):
            batch = texts[start: start + 97]
            mine = ours(batch, padding=True, truncation="longest_first", max_length=max_length, return_tensors="pt")
            theirs = fast(batch, padding=True, truncation="longest_first", max_length=max_length, return_tensors="pt")
            assert sorted(mine) == sorted(theirs)
            assert all(mine[k].dtype == theirs[k].dtype and mine[k].equal(theirs[k]) for k in theirs)
    assert ours(texts[:50], truncation=False)["input_ids"] == fast(texts[:50], truncation=False, verbose=False)[
        "input_ids"]
    assert ours("the cat sat") == dict(fast("the cat sat"))
    assert (len(ours), ours.all_special_tokens, ours.model_max_length) == (
        len(slow), slow.all_special_tokens, slow.model_max_length)
    assert [ours.cls_token_id, ours.sep_token_id, ours.pad_token_id, ours.unk_token_id, ours.mask_token_id] == [
        slow.cls_token_id, slow.sep_token_id, slow.pad_token_id, slow.unk_token_id, slow.mask_token_id]


def _copy(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        if (source / name).exists():
            shutil.copy(source / name, target / name)
    return target


def _edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _set(key, value):
    return lambda data: data.__setitem__(key, value)


CONFIG_EDITS = {
    "another class": _set("tokenizer_class", "DistilBertTokenizer"),
    "an unknown key": _set("do_something_new", True),
    "do_basic_tokenize off": _set("do_basic_tokenize", False),
    "never_split": _set("never_split", ["[FOO]"]),
    "left truncation": _set("truncation_side", "left"),
    "split special tokens": _set("split_special_tokens", True),
    "extra special tokens": _set("additional_special_tokens", ["[FOO]"]),
    "a token as a dict": _set("cls_token", {"__type": "AddedToken", "content": "[CLS]"}),
    "lower-casing off (tokenizer.json lower-cases)": _set("do_lower_case", False),
    "accents stripped (tokenizer.json keeps them)": _set("strip_accents", True),
    "chinese characters not split": _set("tokenize_chinese_chars", False),
    "a special token transformers would add": _set("mask_token", "[NEWMASK]"),
    "added_tokens_decoder with other flags": _set("added_tokens_decoder", {
        "0": {"content": "[PAD]", "lstrip": True, "rstrip": False, "single_word": False, "normalized": False,
              "special": True}}),
    "not a mapping": lambda data: data.clear() or data.update({"tokenizer_class": "BertTokenizer", "unk_token": 5}),
}


@pytest.mark.parametrize("edit", list(CONFIG_EDITS), ids=list(CONFIG_EDITS))
def test_a_tokenizer_config_it_does_not_reproduce_loads_through_transformers(edit, minilm_dir, tmp_path):
    target = _copy(minilm_dir, tmp_path / "model")
    (target / "special_tokens_map.json").unlink()  # else its tokens override the config's (next test)
    _edit_json(target / "tokenizer_config.json", CONFIG_EDITS[edit])
    assert wordpiece.load(target) is None


def test_special_tokens_map_overrides_the_config_as_in_transformers(minilm_dir, tmp_path):
    target = _copy(minilm_dir, tmp_path / "model")
    _edit_json(target / "tokenizer_config.json", lambda d: d.update(mask_token="[NEWMASK]", cls_token={"x": 1}))
    ours, theirs = wordpiece.load(target), transformers.AutoTokenizer.from_pretrained(str(target), use_fast=False)
    assert ours is not None and (ours.mask_token, ours.cls_token) == (theirs.mask_token, theirs.cls_token) == (
        "[MASK]", "[CLS]")
    assert all(ours.encode(text) == theirs.encode(text, verbose=False) for text in _texts(300, seed=2))


def test_lower_casing_off_would_change_the_ids(minilm_dir, tmp_path):
    """Why the config and tokenizer.json must agree: transformers rebuilds the normalizer from the config."""
    target = _copy(minilm_dir, tmp_path / "model")
    _edit_json(target / "tokenizer_config.json", _set("do_lower_case", False))
    theirs = transformers.AutoTokenizer.from_pretrained(str(target), use_fast=False)
    assert theirs.encode("Hello World", add_special_tokens=False) != wordpiece.load(minilm_dir).encode(
        "Hello World", add_special_tokens=False)


def test_added_tokens_decoder_listing_the_same_tokens_is_reproduced(minilm_dir, tmp_path):
    target = _copy(minilm_dir, tmp_path / "model")
    added = json.loads((target / "tokenizer.json").read_text(encoding="utf-8"))["added_tokens"]
    _edit_json(target / "tokenizer_config.json", _set("added_tokens_decoder", {
        str(t["id"]): {k: t[k] for k in ("content", "lstrip", "rstrip", "single_word", "normalized", "special")}
        for t in added}))
    ours, theirs = wordpiece.load(target), transformers.AutoTokenizer.from_pretrained(str(target), use_fast=False)
    assert ours is not None
    for text in _texts(200, seed=1):
        assert ours.encode(text) == theirs.encode(text, verbose=False)


TOKENIZER_EDITS = {
    "an added token": lambda d: d["added_tokens"].append({**d["added_tokens"][-1], "id": 30522, "content": "[NEW]"}),
    "a special token not special": lambda d: d["added_tokens"][0].__setitem__("special", False),
    "another model": lambda d: d["model"].__setitem__("type", "WordLevel"),
    "another unknown token": lambda d: d["model"].__setitem__("unk_token", "[PAD]"),
    "longer words": lambda d: d["model"].__setitem__("max_input_chars_per_word", 200),
    "another normalizer": lambda d: d.__setitem__("normalizer", {"type": "Lowercase"}),
    "another pre-tokenizer": lambda d: d.__setitem__("pre_tokenizer", {"type": "Whitespace"}),
}


@pytest.mark.parametrize("edit", list(TOKENIZER_EDITS), ids=list(TOKENIZER_EDITS))
def test_a_tokenizer_json_it_does_not_reproduce_loads_through_transformers(edit, minilm_dir, tmp_path):
    target = _copy(minilm_dir, tmp_path / "model")
    _edit_json(target / "tokenizer.json", TOKENIZER_EDITS[edit])
    assert wordpiece.load(target) is None


def test_missing_damaged_or_odd_files_load_through_transformers(minilm_dir, tmp_path, monkeypatch):
    cases = {}
    for name in ("no tokenizer.json", "garbled", "fifo", "added_tokens.json", "special map disagrees", "no config"):
        cases[name] = _copy(minilm_dir, tmp_path / name.replace(" ", "-"))
    (cases["no tokenizer.json"] / "tokenizer.json").unlink()
    (cases["garbled"] / "tokenizer.json").write_text('{"model": {"type": "WordPiece"', encoding="utf-8")
    (cases["fifo"] / "tokenizer.json").unlink()
    os.mkfifo(cases["fifo"] / "tokenizer.json")  # refused without blocking (gate.io.regular)
    (cases["added_tokens.json"] / "added_tokens.json").write_text('{"[NEW]": 30522}', encoding="utf-8")
    _edit_json(cases["special map disagrees"] / "special_tokens_map.json", _set("sep_token", "[SEP2]"))
    (cases["no config"] / "tokenizer_config.json").unlink()
    assert {name: wordpiece.load(path) for name, path in cases.items()} == dict.fromkeys(cases)
    monkeypatch.setattr(wordpiece.importlib.metadata, "version", lambda name: "4.57.1")
    assert wordpiece.load(minilm_dir) is None  # transformers 4: bert-score's use_fast=False is Python code


def test_the_engines_on_minilm_never_import_transformers(minilm_dir):
    """The point of the module: BERTScore and the embedder on MiniLM load with no transformers import at all."""
    code = (
        "import sys, json\n"
        "from gate.runtime.engines.bertscore import BertScoreEngine\n"
        "from gate.runtime.engines.embeddings import SentenceEmbedder\n"
        "from gate.runtime.engines.wordpiece import WordPieceTokenizer\n"
        f"engine = BertScoreEngine.load({str(minilm_dir)!r}, layer=6)\n"
        "engine.score(['a cat sat'], ['the cat sat'])\n"
        f"embedder = SentenceEmbedder.load({str(minilm_dir)!r})\n"
        "embedder.encode(['a cat sat', 'a much longer text about cats ' * 40])\n"
        "assert isinstance(engine.tokenizer, WordPieceTokenizer)\n"
        "assert isinstance(embedder.model.tokenizer, WordPieceTokenizer)\n"
        "libraries = ('transformers', 'sentence_transformers')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in libraries)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


CONSISTENT_VARIANTS = {  # the config and tokenizer.json agree: reproduced, whatever the flags
    "cased": ("do_lower_case", False, "lowercase"),
    "accents stripped": ("strip_accents", True, "strip_accents"),
    "accents kept while lower-casing": ("strip_accents", False, "strip_accents"),
    "chinese characters not split": ("tokenize_chinese_chars", False, "handle_chinese_chars"),
}


@pytest.mark.parametrize("variant", list(CONSISTENT_VARIANTS), ids=list(CONSISTENT_VARIANTS))
def test_other_normalizer_flags_are_reproduced_when_config_and_tokenizer_json_agree(variant, minilm_dir, tmp_path):
    key, value, normalizer_key = CONSISTENT_VARIANTS[variant]
    target = _copy(minilm_dir, tmp_path / "model")
    _edit_json(target / "tokenizer_config.json", _set(key, value))
    _edit_json(target / "tokenizer.json", lambda d: d["normalizer"].__setitem__(normalizer_key, value))
    ours, theirs = wordpiece.load(target), transformers.AutoTokenizer.from_pretrained(str(target), use_fast=False)
    assert ours is not None
    for text in _texts(400, seed=3):
        assert ours.encode(text, add_special_tokens=False) == theirs.encode(
            text, add_special_tokens=False, verbose=False), text
