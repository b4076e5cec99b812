"""transformers, silenced where the gate loads a model through it.

transformers' own "Loading weights" bars and warnings would drown the gate's output in CI logs. Each engine calls
`quiet_transformers` just before it loads through transformers, never earlier: a run whose models the gate loads
itself (`gate.runtime.engines.bert`, `gate.runtime.engines.wordpiece`) does not import transformers at all (~0.55 s).
"""

from __future__ import annotations


def quiet_transformers() -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
