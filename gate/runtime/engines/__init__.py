"""The torch side of the runtime: model resolution (`models`), device and precision (`device`), the engines
(`bertscore` with `rescale`, `embeddings`, `classifier`, `nli` — a sequence-pair classifier, its labels and
results in the torch-free `entailment` — sharing `tokens` and `batching`) and `session`'s
`TorchRuntime`, which loads each model once per run and is the `ModelRuntime` that really runs models.

Nothing is imported here: `bertscore`, `classifier`, `nli` and `tokens` import torch at module level, and the image's
model layer runs `models` on its own; import the module you need. A new engine is a module here with an
`encode_block`-style entry point, loaded by `TorchRuntime` and run by a runner in `gate.runtime.work.execute`.
"""
