"""The model runtime: the only package that imports torch / transformers / sentence-transformers.

A run measures in three passes so that its model work can be cached and sharded exactly: *plan* (the scorers
run against a recorder that answers placeholders; what they asked for becomes a deterministic plan of text
blocks, `work/plan.py` -- hence the rule in `api.py` that the texts a scorer requests never depend on the
values it gets back), *execute* (each block is encoded in one engine call on the torch engines, its texts
found in the persistent cache adopted, into a `ResultStore`, `work/execute.py`, `work/cache.py`,
`work/store.py`; an engine whose every output is cached is not even loaded, `work/cached.py`, so a run where
nothing changed never imports torch; shard i of N executes only its blocks and the merge joins the stores) and
*replay* (the scorers run again against `StoreRuntime`, which answers bitwise what the engines computed,
`work/replay.py`).
`api.py` is what scorers see (the `ModelRuntime` protocol and its plain result types), `engines/` holds the
torch side (model resolution, device, BERTScore, embedder, classifier, NLI, `TorchRuntime`), `work/` the
plan/execute/store/replay/cache machinery, and `facade.py` the few calls the pipeline makes. A new model
engine goes in `engines/` with its kind in `api.py` and a runner in `work/execute.py`. Importing
`gate.runtime` is cheap and imports nothing (the image's model layer runs `engines/models.py` with only this
file and that one copied); torch is imported inside the functions that need it, so `llm-gate --help`,
`schema` and model-free suites never load it.
"""
