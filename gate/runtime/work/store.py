"""`ResultStore`: the model work of a run (or of one shard of it), saved to one file and merged exactly.

Results are keyed by content (`plan.entry_key`): an embedding per text, a classifier's softmax per window
per text (so any label can be answered), raw BERTScore P/R/F per pair (rescaling is applied when the
scores are read, `gate.runtime.work.replay`). The file is an `.npz` (arrays, read with allow_pickle=False)
holding a JSON manifest as bytes: no pickle anywhere, so a foreign file cannot run code.

Merging checks what makes shards belong together (same plan digest, same N, each shard once, the same
models and libraries) and says which file differs and how to fix it.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

import numpy as np

from gate.errors import InputError, Problem
from gate.io import read_binary, write_stream_atomic
from gate.runtime.api import Fingerprint
from gate.runtime.work.plan import EngineKey, Shard

FORMAT = "llm-gate model work"
SCHEMA = 2  # 2: entry keys length-prefixed (plan.entry_key), no longer JSON-encoded
_RERUN = "re-run the shard that wrote it (`llm-gate run --shard i/N`) and pass its new file"


@dataclass(frozen=True)
class EngineInfo:
    """What an engine's results were computed with, and what a reader needs beyond the values."""

    key: EngineKey
    fingerprint: Fingerprint  # as `TorchRuntime.fingerprint` gives it for the model
    max_tokens: int = 0  # BERTScore and classifier: over it, windows; embedder: over it, truncation
    dim: int = 0  # embedder
    id2label: tuple[tuple[int, str], ...] = ()  # classifier, NLI


@dataclass(frozen=True, eq=False)
class EngineResults:
    info: EngineInfo
    values: Mapping[str, np.ndarray]  # entry key -> vector (dim,) | softmax (windows, labels) | P/R/F (3,)
    flags: Mapping[str, bool]  # entry key -> windowed (BERTScore, classifier) or truncated (embeddings)
    encoded: int  # texts this store encoded for the engine


@dataclass(frozen=True, eq=False)
class ResultStore:
    plan_digest: str
    block_texts: int
    total_blocks: int
    shard: Shard  # 1/1 for an unsharded run and for a merged store
    blocks: tuple[int, ...]  # the blocks computed
    engines: tuple[EngineResults, ...]  # in plan order
    environment: Mapping[str, str]  # device, dtype, CPU/GPU: bitwise equality needs the same on every shard
    notes: tuple[str, ...] = ()
    source: str = ""  # the file it was loaded from, for messages

    @property
    def complete(self) -> bool:
        return set(self.blocks) == set(range(self.total_blocks))

    def engine(self, key: EngineKey) -> EngineResults | None:
        return next((e for e in self.engines if e.info.key == key), None)

    def require_plan(self, digest: str) -> None:
        """The merged shards must have been computed for the run that reads them."""
        if digest != self.plan_digest:
            raise InputError("the model work does not fit this run", [Problem(
                file=self.source or None,
                expected=f"model work planned for this run's inputs (plan {digest[:12] or 'with other models'})",
                found=f"plan {self.plan_digest[:12]}: the shards ran with other inputs, gate.yml, --suite or --model",
                fix="merge with exactly the inputs, config and options the shards ran with, or re-run the shards")])

    # ------------------------------------------------------------ files

    def save(self, path: Path) -> Path:
        """Write atomically (a crashed shard leaves no half file that a merge could pick up)."""
        arrays: dict[str, np.ndarray] = {"manifest": np.frombuffer(self._manifest().encode("utf-8"), np.uint8)}
        for i, engine in enumerate(self.engines):
            keys = list(engine.values)
            rows = [np.atleast_2d(engine.values[k]) for k in keys]
            dtype = np.float64 if engine.info.key.kind == "bertscore" else np.float32
            arrays[f"e{i}_keys"] = np.array(keys, dtype="<U64")
            arrays[f"e{i}_flags"] = np.array([engine.flags[k] for k in keys], dtype=bool)
            arrays[f"e{i}_offsets"] = np.cumsum([0, *(len(r) for r in rows)], dtype=np.int64)
            arrays[f"e{i}_rows"] = (np.concatenate(rows).astype(dtype) if rows else np.zeros((0, 0), dtype))
        path = Path(path)
        # an artifact: permissions as the reports'. (numpy's stub types every keyword of savez as allow_pickle's bool)
        write_stream_atomic(path, lambda out: np.savez(out, **arrays))  # type: ignore[arg-type]
        return path

    def _manifest(self) -> str:
        return json.dumps({
            "format": FORMAT, "schema": SCHEMA, "plan_digest": self.plan_digest, "block_texts": self.block_texts,
            "total_blocks": self.total_blocks, "shard": str(self.shard), "blocks": list(self.blocks),
            "environment": dict(self.environment), "notes": list(self.notes),
            "engines": [{"kind": e.info.key.kind, "name": e.info.key.name, "layer": e.info.key.layer,
                         "max_tokens": e.info.max_tokens, "dim": e.info.dim,
                         "id2label": [list(x) for x in e.info.id2label], "encoded": e.encoded,
                         "fingerprint": _fingerprint_json(e.info.fingerprint)} for e in self.engines],
        }, sort_keys=True)

    @classmethod
    def load(cls, path: Path) -> ResultStore:
        """Read a file `save` wrote; anything else (truncated, corrupt, foreign) is an InputError naming it."""
        path = Path(path)
        stage = "not a readable .npz archive (truncated or damaged?)"
        try:
            arrays = read_binary(path, _npz_arrays)
            stage = "an archive without a valid model-work manifest"
            manifest = json.loads(bytes(arrays["manifest"]).decode("utf-8"))
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise _Foreign("no llm-gate model-work manifest")
            if manifest.get("schema") != SCHEMA:
                raise _Foreign(f"schema {manifest.get('schema')!r}; this llm-gate reads schema {SCHEMA}")
            stage = "a manifest that does not match its arrays"
            return cls._from(manifest, arrays, str(path))
        except FileNotFoundError:
            raise InputError("model-work file not found", [Problem(
                file=str(path), expected="a file written by `llm-gate run --shard i/N`", found="no such file",
                fix="check the path, or download the shard's artifact")]) from None
        except (_Foreign, OSError, EOFError, ValueError, KeyError, TypeError, IndexError, AttributeError,
                zipfile.BadZipFile) as exc:  # what np.load, json and a malformed manifest raise
            detail = str(exc) if isinstance(exc, _Foreign) else f"{type(exc).__name__}"
            raise InputError("unreadable model-work file", [Problem(
                file=str(path), expected="a complete model-work file written by `llm-gate run --shard i/N`",
                found=f"{stage}: {detail}", fix=_RERUN)]) from None

    @classmethod
    def _from(cls, manifest: dict, arrays: Mapping[str, np.ndarray], source: str) -> ResultStore:
        engines = []
        for i, e in enumerate(manifest["engines"]):
            keys, flags, offsets, rows = (arrays[f"e{i}_{n}"] for n in ("keys", "flags", "offsets", "rows"))
            if not (len(keys) == len(flags) == len(offsets) - 1 and (len(keys) == 0 or offsets[-1] == len(rows))):
                raise _Foreign(f"the arrays of engine {i} do not fit together")
            info = EngineInfo(EngineKey(str(e["kind"]), str(e["name"]), e["layer"]), _fingerprint(e["fingerprint"]),
                              int(e["max_tokens"]), int(e["dim"]), tuple((int(k), str(v)) for k, v in e["id2label"]))
            single = info.key.kind not in ("classifier", "nli")  # one row per entry, 1-D as the engines give it
            values = {str(k): rows[offsets[j]] if single else rows[offsets[j]:offsets[j + 1]]
                      for j, k in enumerate(keys)}
            engines.append(EngineResults(info, values, {str(k): bool(f) for k, f in zip(keys, flags, strict=True)},
                                         int(e["encoded"])))
        return cls(str(manifest["plan_digest"]), int(manifest["block_texts"]), int(manifest["total_blocks"]),
                   _shard(manifest["shard"]), tuple(int(b) for b in manifest["blocks"]), tuple(engines),
                   {str(k): str(v) for k, v in manifest["environment"].items()}, tuple(manifest["notes"]), source)

    # ------------------------------------------------------------ merging

    @staticmethod
    def merge(stores: Sequence[ResultStore]) -> ResultStore:
        """The complete store of N shard stores; every mismatch is an InputError naming the file."""
        if not stores:
            raise InputError("nothing to merge", [Problem(
                expected="the files of all N shards (`llm-gate run --shard i/N`)", found="no file",
                fix="pass every shard's model-work file")])
        first = stores[0]
        _check(stores, lambda s: s.plan_digest != first.plan_digest, lambda s: Problem(
            file=s.source, field="plan", expected=f"the plan of {first.source} ({first.plan_digest[:12]})",
            found=f"plan {s.plan_digest[:12]}: computed from other inputs, gate.yml, --suite or --model",
            fix="run every shard on the same commit with the same config and options"),
            "model-work files of different runs")
        _check(stores, lambda s: s.shard.count != first.shard.count, lambda s: Problem(
            file=s.source, field="shard", expected=f"a shard of {first.shard.count} (like {first.source})",
            found=f"shard {s.shard}", fix="merge the files of one sharded run: the same N everywhere"),
            "model-work files of different shardings")
        _check_shards(stores)
        _check(stores, lambda s: _engines_differ(first, s) is not None, lambda s: Problem(
            file=s.source, record=_differs(first, s)[0], expected=f"the same as in {first.source}",
            found=_differs(first, s)[1], fix="run every shard with the same models, libraries and precision "
            "(the same image), then merge again"), "model-work files computed with different models")
        engines = tuple(_merged_engine([s.engines[i] for s in stores]) for i in range(len(first.engines)))
        blocks = tuple(sorted(b for s in stores for b in s.blocks))
        environments = {json.dumps(dict(s.environment), sort_keys=True) for s in stores}
        notes = () if len(environments) == 1 else (
            "The shards ran on different hardware (" + "; ".join(sorted(environments)) + "): values may differ "
            "from an unsharded run in the last bits.",)
        merged = ResultStore(first.plan_digest, first.block_texts, first.total_blocks, Shard(1, 1), blocks, engines,
                             dict(first.environment), notes, ", ".join(s.source for s in stores))
        if not merged.complete:  # cannot happen for shards of one plan; a guard against hand-made files
            raise InputError("incomplete model work", [Problem(
                file=merged.source, expected=f"blocks 0..{first.total_blocks - 1}",
                found=f"blocks {sorted(set(range(first.total_blocks)) - set(blocks))} missing", fix=_RERUN)])
        return merged


def _npz_arrays(stream: IO[bytes]) -> dict[str, np.ndarray]:
    with np.load(stream, allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}


class _Foreign(ValueError):
    """A readable file that is not (this version of) a model-work file."""


def _shard(text: str) -> Shard:
    index, count = (int(x) for x in str(text).split("/"))
    if not 1 <= index <= count:
        raise _Foreign(f"shard {text!r}")
    return Shard(index, count)


def _check(stores, differs, problem, title: str) -> None:
    problems = [problem(s) for s in stores[1:] if differs(s)]
    if problems:
        raise InputError(title, problems)


def _differs(first: ResultStore, other: ResultStore) -> tuple[str, str]:
    """How `other`'s engines differ from `first`'s (called only where they do)."""
    return _engines_differ(first, other) or ("", "")


def _check_shards(stores: Sequence[ResultStore]) -> None:
    count = stores[0].shard.count
    seen: dict[int, str] = {}
    problems: list[Problem] = []
    for store in stores:
        if store.shard.index in seen:
            problems.append(Problem(file=store.source, field="shard", expected="each shard once",
                                    found=f"shard {store.shard} again (also {seen[store.shard.index]})",
                                    fix="pass each shard's file once"))
        seen.setdefault(store.shard.index, store.source)
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        given = ", ".join(f"{s.source} ({s.shard})" for s in stores)
        problems.append(Problem(field="shard", expected=f"all {count} shards", found=f"shard {', '.join(missing)} "
                                f"missing; given: {given}", fix="pass the file of every shard i/N, i = 1..N"))
    if problems:
        raise InputError("the shards do not add up", problems)


def _engines_differ(first: ResultStore, other: ResultStore) -> tuple[str, str] | None:
    """(which engine, what differs) between two shards of one plan, or None."""
    if len(first.engines) != len(other.engines):
        return "engines", f"{len(other.engines)} engines instead of {len(first.engines)}"
    for mine, theirs in zip(first.engines, other.engines, strict=True):
        a, b = mine.info, theirs.info
        where = f"{a.key.kind} model {a.key.name}"
        fa, fb = a.fingerprint, b.fingerprint
        for label, x, y in (("model", a.key, b.key), ("weights", fa.weights, fb.weights),
                            ("libraries", dict(fa.libraries), dict(fb.libraries)), ("params", fa.params, fb.params),
                            ("max_tokens", a.max_tokens, b.max_tokens), ("dim", a.dim, b.dim),
                            ("labels", a.id2label, b.id2label)):
            if x != y:
                return where, f"{label} {y} instead of {x}"
    return None


def _merged_engine(parts: Sequence[EngineResults]) -> EngineResults:
    values: dict[str, np.ndarray] = {}
    flags: dict[str, bool] = {}
    for part in parts:
        values.update(part.values)
        flags.update(part.flags)
    return replace(parts[0], values=values, flags=flags, encoded=sum(p.encoded for p in parts))


def _fingerprint_json(fingerprint: Fingerprint) -> dict:
    return {"model": fingerprint.model, "weights": fingerprint.weights, "params": [list(p) for p in fingerprint.params],
            "libraries": [list(x) for x in fingerprint.libraries], "source": fingerprint.source}


def _fingerprint(value: dict) -> Fingerprint:
    return Fingerprint(model=str(value["model"]), weights=str(value["weights"]),
                       params=tuple((str(k), v) for k, v in value["params"]),
                       libraries=tuple((str(k), str(v)) for k, v in value["libraries"]), source=str(value["source"]))
