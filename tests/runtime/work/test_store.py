"""The plan, the result store and its replay, without models: fake engines stand in for torch.

Exactness on real models is tests/runtime/work/test_sharding.py; here: blocks and shards, the file format,
every merge error, and that `StoreRuntime` answers exactly what was stored.
"""

from __future__ import annotations

import zipfile
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from gate.errors import ConfigError, InputError, RuntimeFailure
from gate.runtime.api import BERTSCORE, CLASSIFIER, EMBEDDING, BertScoreSpec, ClassifierLabels, Fingerprint
from gate.runtime.engines.device import SIMULATE_CPU, DeviceChoice
from gate.runtime.work.execute import execute
from gate.runtime.work.plan import EngineKey, RecordingRuntime, Shard, build_plan
from gate.runtime.work.replay import NotInStore, StoreRuntime
from gate.runtime.work.store import ResultStore

LABELS = ((0, "Non-Stereotype"), (1, "Stereotype"))
SPEC = BertScoreSpec(model="bert", layer=2)
BATCH = 2
CANDS = ["c1", "c2", "shared", "c4", "c5", "c6"]
REFS = ["r1", "r2", "r1", "r4", "r5", "r6"]  # "shared" and c1 meet r1: one component of three texts


class FakeBert:
    max_tokens = 8

    def __init__(self):
        self.blocks: list[tuple[str, ...]] = []
        self.released: list[tuple[str, ...]] = []

    def encode_block(self, texts):
        self.blocks.append(tuple(texts))

    def release(self, texts):
        self.released.append(tuple(texts))

    def score(self, candidates, references, idf_corpus=None):
        shift = 0.0 if idf_corpus is None else len(idf_corpus) / 100
        p = np.array([len(c) / 10 + shift for c in candidates])
        r = np.array([len(x) / 10 for x in references])
        return SimpleNamespace(precision=p, recall=r, f1=(p + r) / 2,
                               windowed=np.array([len(c) > 5 for c in candidates]))


class FakeEmbedder:
    dim = 3
    max_tokens = 5

    def encode_block(self, texts):
        return np.array([[len(t), t.count("e"), 1.0] for t in texts], dtype=np.float32)

    def truncated(self, text):
        return len(text) > self.max_tokens


class FakeClassifier:
    max_tokens = 16
    id2label = dict(LABELS)

    def classify_block(self, texts):
        pass

    def softmax_windows(self, text):
        if len(text) > 6:  # a "long" text: two windows
            return np.array([[0.9, 0.1], [0.2, 0.8]], dtype=np.float32), True
        return np.array([[0.75, 0.25]], dtype=np.float32), False


class FakeTorchRuntime:
    """What `work.execute` needs of a TorchRuntime."""

    device = choice = DeviceChoice("cpu", "float32", "cpu")
    config = SimpleNamespace(batch_size=BATCH, batch_tokens=None)

    def __init__(self, weights: str = "sha256:w1"):
        self.weights, self.bert = weights, FakeBert()

    def engine_for(self, spec):
        return self.bert, spec.layer

    def embedder(self, name):
        return FakeEmbedder()

    def classifier(self, name):
        return FakeClassifier()

    def classifier_labels(self, name):
        return ClassifierLabels(LABELS, self.fingerprint(name))

    def fingerprint(self, name, extra=()):
        return Fingerprint(name, self.weights, (("dtype", "float32"),), (("torch", "2.0"), *((e, "1") for e in extra)))


def record(texts=("a text", "another text", "a longer text here", "a text")) -> list:
    recorder = RecordingRuntime(FakeTorchRuntime().classifier_labels, lambda spec: spec.layer)
    recorder.bertscore(SPEC, CANDS, REFS)
    recorder.bertscore(replace(SPEC, idf=True), CANDS[:2], REFS[:2], ["r1", "r2"])
    recorder.classifier_labels("clf")
    recorder.classify("clf", list(texts), 1)
    recorder.embed("emb", [*texts, "x"])
    return recorder.requests


def shard_files(tmp_path, n=3, requests=None, weights="sha256:w1", block_texts=3):
    plan = build_plan(requests or record(), block_texts, BATCH)
    return [execute(plan, FakeTorchRuntime(weights), Shard(i, n)).save(tmp_path / f"shard-{i}.npz")
            for i in range(1, n + 1)]


def problems(exc) -> list:
    return list(exc.value.problems)


# ---------------------------------------------------------------- plan and shards


def test_recording_runtime_answers_placeholders_of_the_right_shape():
    recorder = RecordingRuntime(FakeTorchRuntime().classifier_labels, lambda spec: 6)
    vectors = recorder.embed("m", ["a", "b", "a"]).vectors
    assert vectors.shape[0] == 3 and np.array_equal(vectors[0], vectors[2])
    assert not np.array_equal(vectors[0], vectors[1])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1)
    assert recorder.embed("m", []).vectors.shape[0] == 0
    assert recorder.classify("c", ["a", "b"], 1).probability == (0.5, 0.5)
    assert recorder.classifier_labels("c").id2label == LABELS  # real labels: scorers choose by name
    scores = recorder.bertscore(BertScoreSpec(model="b"), ["a"], ["b"])
    assert scores.f1 == (0.5,) and scores.layer == 6 and scores.windowed == (False,)
    assert [r.engine for r in recorder.requests] == [EngineKey(EMBEDDING, "m"), EngineKey(EMBEDDING, "m"),
                                                     EngineKey(CLASSIFIER, "c"), EngineKey(CLASSIFIER, "c"),
                                                     EngineKey(BERTSCORE, "b", 6)]


def test_blocks_keep_components_whole_in_first_appearance_order():
    plan = build_plan(record(), 3, BATCH)
    bert, clf, emb = plan.engines
    assert [e.key.kind for e in plan.engines] == [BERTSCORE, CLASSIFIER, EMBEDDING]  # first-request order
    assert bert.texts == (*CANDS, "r1", "r2", "r4", "r5", "r6")
    # components {c1, shared, r1} {c2, r2} {c4, r4} ...: packed whole, never split across blocks
    assert [b.texts for b in bert.blocks] == [("c1", "shared", "r1"), ("c2", "r2"), ("c4", "r4"), ("c5", "r5"),
                                              ("c6", "r6")]
    assert [b.number for b in (*bert.blocks, *clf.blocks, *emb.blocks)] == list(range(plan.total_blocks))
    assert [len(b.texts) for b in emb.blocks] == [3, 1]  # 4 unique texts, each its own component
    assert [len(c.pairs) for c in bert.calls] == [6, 2]  # the idf request is another call
    big = build_plan(record(), 100, BATCH)
    assert [len(e.blocks) for e in big.engines] == [1, 1, 1]


def test_plan_digest_depends_on_work_not_on_sharding():
    assert build_plan(record(), 3, BATCH).digest == build_plan(record(), 3, BATCH).digest
    assert build_plan(record(), 3, BATCH).digest != build_plan(record(), 4, BATCH).digest  # other batch mates
    assert build_plan(record(), 3, BATCH).digest != build_plan(record(("a text", "changed")), 3, BATCH).digest
    assert build_plan(record(), 3, BATCH).digest != build_plan(record(), 3, BATCH + 1).digest  # other batches
    assert build_plan(record(), 3, BATCH).digest != build_plan(record(), 3, BATCH, 512).digest  # position budget
    with pytest.raises(ValueError, match=r"batches of \(texts, positions\) \(3, None\)"):
        execute(build_plan(record(), 3, 3), FakeTorchRuntime())
    with pytest.raises(ValueError, match=r"\(2, 512\), the runtime's are \(2, None\)"):
        execute(build_plan(record(), 3, BATCH, 512), FakeTorchRuntime())


@pytest.mark.parametrize("text", ["0/3", "4/3", "x", "3", "1/0", "-1/3", "", "1/3/5", "1.5/3"])
def test_shard_must_be_i_of_n(text):
    with pytest.raises(ConfigError) as err:
        Shard.parse(text)
    problem = err.value.problems[0]
    assert problem.field == "--shard" and problem.found == repr(text) and "1 <= i <= N" in problem.expected


def test_shards_own_disjoint_blocks_covering_all():
    shards = [Shard.parse(f" {i} / 4 ") for i in range(1, 5)]
    assert str(shards[1]) == "2/4"
    assert [[b for b in range(10) if s.owns(b)] for s in shards] == [[0, 4, 8], [1, 5, 9], [2, 6], [3, 7]]


# ---------------------------------------------------------------- store and replay


def test_shards_merge_to_the_unsharded_store(tmp_path):
    plan = build_plan(record(), 3, BATCH)
    runtime = FakeTorchRuntime()
    whole = execute(plan, runtime, None)
    assert runtime.bert.released == runtime.bert.blocks  # each block's token states go once it is scored
    merged = ResultStore.merge([ResultStore.load(p) for p in shard_files(tmp_path)])
    assert merged.complete and merged.shard == Shard(1, 1) and whole.complete
    for a, b in zip(whole.engines, merged.engines, strict=True):
        assert a.info == b.info and a.encoded == b.encoded and a.flags == b.flags
        assert a.values.keys() == b.values.keys()
        assert all(np.array_equal(a.values[k], b.values[k]) and a.values[k].dtype == b.values[k].dtype
                   for k in a.values)
    assert [e.encoded for e in whole.engines] == [11, 3, 4]


def test_replay_answers_what_was_stored():
    runtime = StoreRuntime(execute(build_plan(record(), 3, BATCH), FakeTorchRuntime(), None))
    texts = ["a text", "a longer text here", "a text"]
    probs = runtime.classify("clf", texts, 1)
    f32 = [float(np.float32(x)) for x in (0.25, 0.8, 0.75, 0.9)]
    assert probs.probability == (f32[0], f32[1], f32[0]) and probs.windowed == (False, True, False)  # window max
    assert runtime.classify("clf", texts, 0).probability == (f32[2], f32[3], f32[2])
    assert probs.max_tokens == 16 and probs.fingerprint.weights == "sha256:w1"
    assert runtime.classifier_labels("clf").id2label == LABELS
    with pytest.raises(ValueError, match="not one of the classifier's labels"):
        runtime.classify("clf", texts, 2)
    embedded = runtime.embed("emb", ["x", "a text"])
    assert embedded.vectors.dtype == np.float32 and embedded.vectors.tolist() == [[1, 0, 1], [6, 1, 1]]
    assert embedded.truncated == (False, True) and embedded.max_tokens == 5  # "a text" is over the fake's limit
    assert embedded.truncation_note("texts").startswith("1 of 2 texts exceed the embedding model's 5-token limit")
    assert runtime.embed("emb", []).vectors.shape == (0, 3)
    scores = runtime.bertscore(SPEC, ["c6", "shared"], ["r6", "r1"])
    assert scores.precision == (0.2, 0.6) and scores.recall == (0.2, 0.2) and scores.windowed == (False, True)
    assert scores.layer == 2 and scores.max_tokens == 8 and dict(scores.fingerprint.params)["layer"] == 2
    idf = runtime.bertscore(replace(SPEC, idf=True), ["c1"], ["r1"], ["r1", "r2"])
    assert idf.precision == (0.22,)  # the idf request's own result


def test_replay_refuses_what_was_not_planned():
    store = execute(build_plan(record(), 3, BATCH), FakeTorchRuntime(), None)
    runtime = StoreRuntime(store)
    for ask in (lambda: runtime.embed("emb", ["never seen"]), lambda: runtime.embed("other-model", ["x"]),
                lambda: runtime.bertscore(SPEC, ["c1"], ["r2"]),
                lambda: runtime.bertscore(replace(SPEC, idf=True), ["c1"], ["r1"], ["r1"]),
                lambda: runtime.classify("clf", ["new"], 1)):
        with pytest.raises(NotInStore, match="re-run the shards"):
            ask()
    with pytest.raises(RuntimeFailure, match="shard 1/2 only"):
        StoreRuntime(execute(build_plan(record(), 3, BATCH), FakeTorchRuntime(), Shard(1, 2)))


def test_file_holds_no_pickle(tmp_path):
    path = shard_files(tmp_path, n=1)[0]
    with np.load(path, allow_pickle=False) as npz:
        assert all(npz[name].dtype != object for name in npz.files)


# ---------------------------------------------------------------- merge errors


def test_missing_shard_is_named(tmp_path):
    files = shard_files(tmp_path)
    with pytest.raises(InputError) as err:
        ResultStore.merge([ResultStore.load(files[0]), ResultStore.load(files[2])])
    problem = problems(err)[0]
    assert "shard 2/3 missing" in problem.found and "shard-1.npz (1/3)" in problem.found
    assert "every shard" in problem.fix


def test_duplicate_shard_is_named(tmp_path):
    files = shard_files(tmp_path)
    copy = tmp_path / "copy.npz"
    copy.write_bytes(files[1].read_bytes())
    with pytest.raises(InputError) as err:
        ResultStore.merge([ResultStore.load(p) for p in (*files, copy)])
    problem = problems(err)[0]
    assert problem.file == str(copy) and "shard 2/3 again" in problem.found and str(files[1]) in problem.found


def test_mixed_shard_counts_are_named(tmp_path):
    three = shard_files(tmp_path / "a")
    two = shard_files(tmp_path / "b", n=2)
    with pytest.raises(InputError) as err:
        ResultStore.merge([ResultStore.load(p) for p in (*three[:2], two[1])])
    problem = problems(err)[0]
    assert problem.file == str(two[1]) and problem.found == "shard 2/2" and "shard of 3" in problem.expected


def test_shard_of_changed_inputs_is_named(tmp_path):
    files = shard_files(tmp_path / "a")
    changed = shard_files(tmp_path / "b", requests=record(("a text", "an edited text")))
    with pytest.raises(InputError) as err:
        ResultStore.merge([ResultStore.load(p) for p in (*files[:2], changed[2])])
    problem = problems(err)[0]
    assert problem.file == str(changed[2]) and "other inputs" in problem.found and "same config" in problem.fix


def test_shard_of_other_weights_is_named(tmp_path):
    files = shard_files(tmp_path / "a")
    other = shard_files(tmp_path / "b", weights="sha256:w2")
    with pytest.raises(InputError) as err:
        ResultStore.merge([ResultStore.load(p) for p in (*files[:2], other[2])])
    problem = problems(err)[0]
    assert problem.file == str(other[2]) and problem.record == "bertscore model bert"
    assert problem.found == "weights sha256:w2 instead of sha256:w1" and "same models" in problem.fix


def test_shards_on_other_hardware_merge_with_a_note(tmp_path):
    stores = [ResultStore.load(p) for p in shard_files(tmp_path)]
    assert ResultStore.merge(stores).notes == ()  # one machine: nothing to note
    # the kernels are injected, not the host's: the note must not depend on which CPU runs the test
    stores = [replace(s, environment={**s.environment, "kernels": kernels})
              for s, kernels in zip(stores, ("AVX512", "AVX512", "AVX2"), strict=True)]
    note = ResultStore.merge(stores).notes[0]
    assert "different hardware" in note and '"AVX2"' in note and '"AVX512"' in note


@pytest.mark.parametrize("simulated", ["avx2", "avx512"])
def test_a_shard_records_the_kernels_the_probe_reports(tmp_path, fresh_probe, monkeypatch, simulated):
    monkeypatch.setenv(SIMULATE_CPU, simulated)
    [path] = shard_files(tmp_path, n=1)
    assert ResultStore.load(path).environment == {"device": "cpu", "dtype": "float32", "kernels": simulated.upper()}


@pytest.mark.parametrize("damage", ["truncate", "bitflip", "garbage", "foreign", "manifest", "schema", "missing"])
def test_unreadable_file_is_an_input_error_naming_it(tmp_path, damage):
    path = shard_files(tmp_path, n=1)[0]
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "bitflip":  # inside the BERTScore values: the archive's CRC-32 catches it
        flipped = bytearray(data)
        flipped[data.index(b"e0_rows.npy") + 200] ^= 0x01
        path.write_bytes(bytes(flipped))
    elif damage == "garbage":
        path.write_bytes(b"\x80\x04not a numpy file at all")
    elif damage == "foreign":
        np.savez(path, x=np.arange(3))
    elif damage in ("manifest", "schema"):
        with zipfile.ZipFile(path) as z:
            members = {name: z.read(name) for name in z.namelist() if name != "manifest.npy"}
        manifest = b'{"format": "llm-gate model work", "schema": 99}' if damage == "schema" else b'{"broken'
        np.savez(path, manifest=np.frombuffer(manifest, np.uint8))
        with zipfile.ZipFile(path, "a") as z:
            for name, content in members.items():
                z.writestr(name, content)
    else:
        path.unlink()
    with pytest.raises(InputError) as err:
        ResultStore.load(path)
    assert problems(err)[0].file == str(path)
    assert "Traceback" not in str(err.value)
