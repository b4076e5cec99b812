"""The only package that imports torch / transformers / sentence-transformers.

Importing `gate.runtime` itself is cheap: the heavy libraries are imported inside the functions
that need them, so `llm-gate --help`, `schema` and model-free suites never load torch.
"""
