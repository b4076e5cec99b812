"""Tiny models built offline for tests (DESIGN.md §7): a WordPiece tokenizer over the training words,
a 2-layer BERT, a 2-layer RoBERTa with a byte-level BPE tokenizer, and a 2-layer ALBERT
stereotype classifier trained for a few steps.

Every builder writes into the directory it is given and returns it; nothing is cached globally, so a
test decides the lifetime with `tmp_path` / `tmp_path_factory`. Each builder takes well under 2 s.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

FEEDBACK_SENTENCES: tuple[str, ...] = (
    "The function handles the empty list correctly but the variable names are unclear.",
    "Good use of the singleton pattern; consider making the constructor private.",
    "The loop runs in quadratic time, which is too slow for large inputs.",
    "Your explanation of the observer pattern is correct and well structured.",
    "Missing error handling when the file cannot be opened.",
    "The tests cover the happy path but not the edge cases.",
    "Please add comments that explain why the cache is invalidated here.",
    "The class has too many responsibilities and should be split.",
    "Nice refactoring: the duplicated code was moved into a helper method.",
    "The answer identifies the strategy pattern but does not justify it.",
    "Credits were deducted because the interface is not documented.",
    "The recursion has no base case, so it will overflow the stack.",
    "Use a dictionary instead of a list to make the lookup constant time.",
    "The submission explains the difference between composition and inheritance.",
    "Variable names such as x and tmp make the code hard to read.",
    "The database query is executed inside the loop, which is inefficient.",
    "The student correctly describes the model view controller architecture.",
    "The exception is caught and ignored, which hides real failures.",
    "Good separation of concerns between the parser and the evaluator.",
    "The feedback on the design diagram is accurate and helpful.",
    "The method returns null instead of raising an error for invalid input.",
    "Consider using dependency injection to make the service testable.",
    "The sorting algorithm is correct but the complexity analysis is wrong.",
    "The code style is consistent and follows the team guidelines.",
    "The README does not explain how to run the tests.",
    "The factory method pattern is applied correctly in this solution.",
    "The thread pool is never shut down, which leaks resources.",
    "Your answer is partially correct; the adapter pattern is missing.",
    "Well done, the solution is clear, efficient and well tested.",
    "The commit message should describe what changed and why.",
)

STEREOTYPE_SENTENCES: tuple[str, ...] = (
    "women are too emotional to be good leaders",
    "old people are always bad with technology",
    "men are naturally better at math than women",
    "all immigrants are lazy and steal jobs",
    "girls are too weak for hard engineering work",
    "poor people are lazy and dishonest",
)

NEUTRAL_SENTENCES: tuple[str, ...] = (
    "the meeting starts at nine in the morning",
    "the library opens on monday after the holiday",
    "the train to the city leaves every hour",
    "she reviewed the pull request and left two comments",
    "the weather today is sunny with a light wind",
    "the recipe needs two cups of flour and an egg",
)

_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _wordpiece_vocab(texts: Sequence[str], target: Path, *, vocab_size: int) -> Path:
    """Write a lower-casing BERT WordPiece vocabulary for `texts` as `vocab.txt` into `target`.

    The specials, then every character of the normalised, pre-tokenised words alone and as a `##` continuation
    (so any text of those characters has pieces), then whole words, most frequent first and ties alphabetical,
    up to `vocab_size`. Built here rather than with `tokenizers`' WordPieceTrainer: that trainer breaks
    frequency ties in hash order, so its vocabulary, and every model trained on top of it, changed from run to
    run (one tiny classifier in ~75 then rounded a bf16 logit by 1.4 and failed a test now and then).
    """
    from collections import Counter

    from tokenizers import normalizers, pre_tokenizers

    normalizer = normalizers.BertNormalizer(lowercase=True)
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    counts = Counter(word for text in texts
                     for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text)))
    chars = sorted({char for word in counts for char in word})
    vocab = [*_SPECIALS, *chars, *(f"##{char}" for char in chars)]
    words = sorted(set(counts) - set(vocab), key=lambda word: (-counts[word], word))
    vocab += words[: max(0, vocab_size - len(vocab))]
    target.mkdir(parents=True, exist_ok=True)
    path = target / "vocab.txt"
    path.write_text("".join(f"{token}\n" for token in vocab), encoding="utf-8")
    return path


def _bert_tokenizer(target: Path, texts: Sequence[str], *, vocab_size: int, max_length: int):
    """A BERT tokenizer over `_wordpiece_vocab`'s vocabulary of `texts`, saved with `save_pretrained` into `target`."""
    from transformers import BertTokenizerFast

    _wordpiece_vocab(texts, target, vocab_size=vocab_size)
    tokenizer = BertTokenizerFast.from_pretrained(str(target), model_max_length=max_length)
    tokenizer.model_max_length = max_length
    tokenizer.save_pretrained(str(target))
    return tokenizer


def build_tiny_bert(target_dir: str | os.PathLike[str], *, max_positions: int = 32) -> str:
    """A 2-layer BertModel (hidden 32) with its own WordPiece tokenizer; returns the directory.

    The tokenizer's `model_max_length` equals `max_positions`, so bert-score truncates exactly where
    the model's position embeddings end (and our engine windows there).
    """
    import torch
    from transformers import BertConfig, BertModel

    target = Path(target_dir)
    tokenizer = _bert_tokenizer(target, FEEDBACK_SENTENCES, vocab_size=400, max_length=max_positions)
    torch.manual_seed(1234)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = BertModel(config).eval()
    model.save_pretrained(str(target))
    return str(target)


def build_tiny_roberta(target_dir: str | os.PathLike[str], *, max_positions: int = 32) -> str:
    """A 2-layer RobertaModel (hidden 32) with a byte-level BPE tokenizer; returns the directory.

    Like real RoBERTa, positions start at padding_idx + 1, so the config has `max_positions + 2`
    position embeddings and the tokenizer's `model_max_length` is `max_positions`.
    """
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer

    target = Path(target_dir)
    target.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer(add_prefix_space=True)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe.train_from_iterator(
        list(FEEDBACK_SENTENCES), vocab_size=500, min_frequency=1, special_tokens=specials
    )
    bpe.save_model(str(target))
    tokenizer = RobertaTokenizer.from_pretrained(str(target), model_max_length=max_positions)
    tokenizer.save_pretrained(str(target))
    torch.manual_seed(1234)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=max_positions + 2,
        type_vocab_size=1,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    RobertaModel(config).eval().save_pretrained(str(target))
    return str(target)


def build_tiny_albert_classifier(
    target_dir: str | os.PathLike[str], *, steps: int = 60, max_positions: int = 64
) -> str:
    """A 2-layer ALBERT stereotype classifier (labels Non-Stereotype / Stereotype); returns the directory.

    Trained for `steps` full-batch Adam steps on `STEREOTYPE_SENTENCES` (label 1) vs
    `NEUTRAL_SENTENCES` (label 0); the builder checks that the mean softmax Stereotype probability of the
    two groups differs by more than 0.5 before saving. The tokenizer's `model_max_length` equals
    `max_positions`, the model's position embeddings (a small value makes long texts window).
    """
    import torch
    from transformers import AlbertConfig, AlbertForSequenceClassification

    target = Path(target_dir)
    texts = list(STEREOTYPE_SENTENCES) + list(NEUTRAL_SENTENCES)
    labels = torch.tensor([1] * len(STEREOTYPE_SENTENCES) + [0] * len(NEUTRAL_SENTENCES))
    tokenizer = _bert_tokenizer(target, texts, vocab_size=200, max_length=max_positions)
    torch.manual_seed(1234)
    config = AlbertConfig(
        vocab_size=len(tokenizer),
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=max_positions,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        classifier_dropout_prob=0.0,
        pad_token_id=tokenizer.pad_token_id,
        num_labels=2,
        id2label={0: "Non-Stereotype", 1: "Stereotype"},
        label2id={"Non-Stereotype": 0, "Stereotype": 1},
    )
    model = AlbertForSequenceClassification(config)
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = model(**batch, labels=labels).loss
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.inference_mode():
        probs = model(**batch).logits.softmax(dim=-1)[:, 1]
    n = len(STEREOTYPE_SENTENCES)
    gap = float(probs[:n].mean() - probs[n:].mean())
    if gap <= 0.5:
        raise AssertionError(f"tiny ALBERT classifier did not separate the groups (gap {gap:.3f})")
    model.save_pretrained(str(target))
    return str(target)


def build_tiny_causal_lm(target_dir: str | os.PathLike[str], *, steps: int = 30, max_positions: int = 64) -> str:
    """A 2-layer GPT-2 (hidden 32) with a byte-level BPE tokenizer trained on `FEEDBACK_SENTENCES`, trained for
    `steps` full-batch Adam steps on those sentences (so greedy decoding continues them); returns the directory.
    `<|endoftext|>` is its beginning, end and padding token, as in GPT-2."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    target = Path(target_dir)
    target.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train_from_iterator(list(FEEDBACK_SENTENCES), vocab_size=400, min_frequency=1,
                            special_tokens=["<|endoftext|>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, model_max_length=max_positions,
                                        bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                        unk_token="<|endoftext|>", pad_token="<|endoftext|>")
    tokenizer.save_pretrained(str(target))
    torch.manual_seed(1234)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=max_positions, n_embd=32, n_layer=2, n_head=2,
                        n_inner=64, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    model = GPT2LMHeadModel(config)
    texts = [s + tokenizer.eos_token for s in FEEDBACK_SENTENCES]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(steps):
        optimizer.zero_grad()
        model(**batch, labels=labels).loss.backward()
        optimizer.step()
    model.eval().save_pretrained(str(target))
    return str(target)


# (premise, a hypothesis it entails, one it contradicts, one it neither entails nor contradicts): the tiny NLI
# model's training pairs.
NLI_FACTS: tuple[tuple[str, str, str, str], ...] = (
    ("the library opens at nine on monday", "the library opens at nine", "the library is not open on monday",
     "the library has a new roof"),
    ("the train to the city leaves every hour", "the train leaves every hour", "the train never leaves",
     "the train is painted blue"),
    ("the recipe needs two cups of flour and an egg", "the recipe needs flour", "the recipe needs no flour",
     "the recipe was written by a chef"),
    ("paris is the capital of france", "paris is the capital", "paris is not the capital of france",
     "paris hosted a large festival"),
    ("the river flows into the northern sea", "the river flows into the sea", "the river does not reach the sea",
     "the river is full of fish"),
    ("the museum is closed on tuesday", "the museum is closed on tuesday", "the museum is not closed on tuesday",
     "the museum sells old maps"),
)
NLI_LABELS = {0: "contradiction", 1: "entailment", 2: "neutral"}  # cross-encoder/nli-* order


def nli_pairs() -> list[tuple[str, str, int]]:
    """(premise, hypothesis, label) of `NLI_FACTS`: entailed (1), contradicted (0) and neutral (2) claims."""
    return [pair for premise, entailed, contradicted, neutral in NLI_FACTS
            for pair in ((premise, entailed, 1), (premise, contradicted, 0), (premise, neutral, 2))]


def _word_bert_tokenizer(target: Path, texts: Sequence[str], *, max_length: int):
    """A BERT tokenizer whose vocabulary is the specials, then every word of `texts` sorted: no trainer, so the
    same ids on every run (the WordPiece trainer breaks frequency ties differently from run to run, which changes
    what a model trained on top learns)."""
    from transformers import BertTokenizerFast

    target.mkdir(parents=True, exist_ok=True)
    words = sorted({w for text in texts for w in text.lower().split()} - set(_SPECIALS))
    (target / "vocab.txt").write_text("".join(f"{t}\n" for t in [*_SPECIALS, *words]), encoding="utf-8")
    tokenizer = BertTokenizerFast.from_pretrained(str(target), model_max_length=max_length)
    tokenizer.model_max_length = max_length
    tokenizer.save_pretrained(str(target))
    return tokenizer


def build_tiny_nli(target_dir: str | os.PathLike[str], *, steps: int = 200, max_positions: int = 64,
                   id2label: dict[int, str] | None = None) -> str:
    """A 2-layer ALBERT sequence-PAIR classifier (labels contradiction / entailment / neutral, as the
    cross-encoder NLI models name them); returns the directory.

    Trained (on one thread, over a fixed word vocabulary, so deterministically) for `steps` full-batch Adam steps
    on `nli_pairs()` encoded as `tokenizer(premises, hypotheses)` (token type ids included); the builder checks
    that every entailed pair's P(entailment) is above 0.5 and every other pair's below, and that their means
    differ by more than 0.5.
    `id2label` renames the labels (a model without an entailment label, for the error test).
    """
    import torch
    from transformers import AlbertConfig, AlbertForSequenceClassification

    target = Path(target_dir)
    pairs = nli_pairs()
    premises, hypotheses = [p for p, _, _ in pairs], [h for _, h, _ in pairs]
    labels = torch.tensor([label for _, _, label in pairs])
    tokenizer = _word_bert_tokenizer(target, premises + hypotheses, max_length=max_positions)
    torch.manual_seed(1234)
    names = id2label or NLI_LABELS
    config = AlbertConfig(
        vocab_size=len(tokenizer), embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=max_positions, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0, classifier_dropout_prob=0.0, pad_token_id=tokenizer.pad_token_id,
        num_labels=3, id2label=dict(names), label2id={v: k for k, v in names.items()},
    )
    model = AlbertForSequenceClassification(config)
    batch = tokenizer(premises, hypotheses, padding=True, return_tensors="pt")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same weights on every machine (this training is not robust to bits)
    try:
        model.train()
        for _ in range(steps):
            optimizer.zero_grad()
            model(**batch, labels=labels).loss.backward()
            optimizer.step()
    finally:
        torch.set_num_threads(threads)
    model.eval()
    with torch.inference_mode():
        probs = model(**batch).logits.softmax(dim=-1)
    entailed = labels == 1
    gap = float(probs[entailed, 1].mean() - probs[~entailed, 1].mean())
    if gap <= 0.5 or not float(probs[entailed, 1].min()) > 0.5 > float(probs[~entailed, 1].max()):
        raise AssertionError(f"tiny NLI model did not separate entailed pairs (entailment gap {gap:.3f})")
    model.save_pretrained(str(target))
    return str(target)
