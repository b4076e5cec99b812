"""Property-based fuzzing of every input parser: whatever the bytes, a loader either loads or raises the
gate's own `InputError` (`ConfigError` for gate.yml) whose every problem says what was expected and
how to fix it — never another exception, never a traceback for the user.

Deterministic and bounded for CI: derandomized, a fixed number of examples, no deadline.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate import io as gate_io
from gate.config.loader import parse_config
from gate.errors import ConfigError, InputError, Problem
from gate.kinds import KINDS as REGISTERED
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import load_drift
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.records import load_heuristic
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.records import load_rag
from gate.kinds.stability.config import StabilitySuiteConfig
from gate.kinds.stability.records import load_stability
from gate.kinds.stereotype.config import StereotypeSuiteConfig
from gate.kinds.stereotype.records import load_stereotype
from tests.badinputs.projects import (
    drift_candidate,
    exercise,
    gate_yml,
    heuristic_record,
    rag_record,
    stability_record,
    stereotype_record,
    xlsx_bytes,
)
from tests.conftest import EXAMPLES

# CI: a fixed, derandomized sample. GATE_FUZZ_EXAMPLES=5000 fuzzes deeper, with fresh randomness, locally.
_DEEP = os.environ.get("GATE_FUZZ_EXAMPLES")
FUZZ = settings(max_examples=int(_DEEP or 100), derandomize=not _DEEP, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---------------------------------------------------------------- value strategies

scalars = (st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=12) | st.sampled_from(["", " ", "NaN", "inf", "-1", "[1, 2]", "[NaN]", "7", "m"]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)

GOOD = {
    "drift": drift_candidate(),
    "stereotype": stereotype_record(),
    "stability": stability_record(),
    "rag": rag_record(),
    "heuristic": heuristic_record(),
}


@st.composite
def records(draw, kind: str) -> object:
    """Mostly the kind's record with some fields dropped or replaced by anything; sometimes anything."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    record = dict(GOOD[kind])
    for name in list(record):
        action = draw(st.integers(0, 5))
        if action == 0:
            del record[name]
        elif action == 1:
            record[name] = draw(json_values)
    if draw(st.booleans()):
        record[draw(st.text(max_size=8))] = draw(json_values)
    return record


@st.composite
def submissions(draw) -> list:
    """The baseline's submissions with fields dropped or replaced, at every depth of `baseline_feedback`."""
    subs = exercise()["submissions"]
    paths = [("id",), ("text",), ("baseline_feedback",), ("baseline_feedback", "feedback"),
             ("baseline_feedback", "feedback", 0), ("baseline_feedback", "feedback", 0, "credits")]
    for _ in range(draw(st.integers(1, 3))):
        *parents, last = draw(st.sampled_from(paths))
        node = draw(st.sampled_from(subs))
        for part in parents:
            node = node[part] if isinstance(node, (dict, list)) and part in (node if isinstance(node, dict)
                                                                             else range(len(node))) else None
        fits = isinstance(node, dict) if isinstance(last, str) else isinstance(node, list) and last < len(node)
        if not fits:
            continue  # an earlier change replaced this branch
        if draw(st.booleans()) and isinstance(last, str):
            node.pop(last, None)
        else:
            node[last] = draw(json_values)
    return subs


def as_jsonl(items: list) -> bytes:
    return "".join(json.dumps(item, allow_nan=True) + "\n" for item in items).encode()


def as_json(items: list) -> bytes:
    return json.dumps(items if len(items) != 1 else items[0], allow_nan=True, indent=1).encode()


def as_csv(items: list) -> bytes:
    rows = [item for item in items if isinstance(item, dict)]
    header = list(dict.fromkeys(k for row in rows for k in row))
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    for row in rows:
        writer.writerow([json.dumps(row.get(k)) if isinstance(row.get(k), (list, dict)) else row.get(k, "")
                         for k in header])
    return buffer.getvalue().encode()


def as_xlsx(items: list) -> bytes:
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    def cell(value: object) -> object:
        if isinstance(value, (list, dict)):
            value = json.dumps(value)
        return ILLEGAL_CHARACTERS_RE.sub("", value) if isinstance(value, str) else value

    rows = [item for item in items if isinstance(item, dict)]
    header = list(dict.fromkeys(k for row in rows for k in row))
    return xlsx_bytes([cell(k) for k in header], *([cell(row.get(k)) for k in header] for row in rows))


def as_seed_file(items: list) -> bytes:
    """The stereotype seed's evaluation file: entries under `results`, the model named once."""
    return json.dumps({"model": "m", "date": "2025-09-30", "results": items}, allow_nan=True).encode()


SERIALISERS = {".jsonl": as_jsonl, ".json": as_json, ".csv": as_csv, ".xlsx": as_xlsx}
TABLES = (".csv", ".xlsx")


@st.composite
def mangled(draw, content: bytes) -> bytes:
    """`content` with a few bytes flipped, cut short or spliced with anything (invalid UTF-8 included)."""
    action = draw(st.integers(0, 3))
    if action == 0 or not content:
        return content
    at = draw(st.integers(0, len(content) - 1))
    if action == 1:
        return content[:at]
    if action == 2:
        return content[:at] + draw(st.binary(min_size=1, max_size=6)) + content[at + 1:]
    splice = draw(st.sampled_from([b"\xff", b"\x00", b"NaN", b"\n", b'"', b",", b"{", b"]"]))
    return content[:at] + splice + content[at:]


# ---------------------------------------------------------------- the property


def assert_clear(exc: InputError) -> None:
    assert exc.problems, exc
    for problem in exc.problems:
        assert isinstance(problem, Problem)
        assert problem.expected and problem.fix, f"problem without expectation or fix: {problem.render()}"
    assert len(str(exc)) < 50_000


def loads_or_clear_error(load, *args) -> object:
    try:
        return load(*args)
    except InputError as exc:
        assert_clear(exc)
        return None


SUITES = {
    "stereotype": (load_stereotype, StereotypeSuiteConfig(kind="stereotype", records=["in/*"])),
    "stability": (load_stability, StabilitySuiteConfig(kind="stability", records=["in/*"])),
    "rag": (load_rag, RagSuiteConfig(kind="rag", records=["in/*"])),
    "heuristic": (load_heuristic, HeuristicSuiteConfig(kind="heuristic", records=["in/*"])),
    "drift": (load_drift, DriftSuiteConfig(kind="drift", baseline=["base/*.json"], candidates=["in/*"])),
}


@FUZZ
@given(kind=st.sampled_from(sorted(SUITES)), suffix=st.sampled_from(sorted(SERIALISERS)), data=st.data())
def test_suite_loaders_load_or_explain(kind, suffix, data):
    items = data.draw(st.lists(records(kind), min_size=0, max_size=4))
    if suffix in TABLES and kind in ("drift", "stereotype", "rag"):
        suffix = ".jsonl"  # these kinds read no tables
    serialise = as_seed_file if kind == "stereotype" and suffix == ".json" and data.draw(st.booleans()) \
        else SERIALISERS[suffix]
    content = serialise(items)
    if suffix != ".xlsx":  # a workbook's bytes hold its save time: mangling them would not replay
        content = data.draw(mangled(content))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "in").mkdir()
        (root / "in" / f"records{suffix}").write_bytes(content)
        if kind == "drift":
            (root / "base").mkdir()
            baseline = data.draw(st.sampled_from([exercise(), exercise(7, data.draw(st.lists(json_values, max_size=3))),
                                                  exercise(7, data.draw(submissions())), data.draw(json_values)]))
            (root / "base" / "ex.json").write_bytes(data.draw(mangled(json.dumps(baseline, allow_nan=True).encode())))
        load, config = SUITES[kind]
        loaded = loads_or_clear_error(load, "s", config, root)
    if loaded is not None:  # loaded: something to score
        assert loaded.candidates if kind in ("rag", "drift") else loaded.records


@FUZZ
@given(suffix=st.sampled_from([".jsonl", ".json", ".csv", ".xlsx", ".txt"]), content=st.binary(max_size=300))
def test_readers_return_records_or_problems_for_any_bytes(suffix, content):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"f{suffix}"
        path.write_bytes(content)
        found, problems = gate_io.read_records([path], tables=True)
        document, more = gate_io.read_json_document(path)
    assert found or problems
    for problem in [*problems, *more]:
        assert problem.expected and problem.fix, problem.render()
    assert all(isinstance(r.data, dict) for r in found)
    assert (document is None) == bool(more)


# ---------------------------------------------------------------- gate.yml

CONFIG_KEYS = ["version", "name", "models", "runtime", "suites", "report", "publish", "baselines", "history"]
SUITE_KEYS = ["kind", "records", "baseline", "candidates", "checks", "models", "rubric", "expected", "k",
              "description", "unmeasured", "overall_weights", "judge", "significance", "bertscore"]
KINDS = ["drift", "stereotype", "stability", "rag", "heuristic", "drfit", None, 3]
yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


@st.composite
def configs(draw) -> dict:
    suite = {key: draw(yaml_values) for key in draw(st.lists(st.sampled_from(SUITE_KEYS), max_size=5, unique=True))}
    suite["kind"] = draw(st.sampled_from(KINDS))
    if draw(st.booleans()):
        suite["checks"] = {draw(st.sampled_from(["final_score_mean", "bertscore_f1", "mrr", "x"])):
                           {draw(st.sampled_from(["min", "max", "warn", "scope", "max_decrease"])): draw(yaml_values)}}
    config = {key: draw(yaml_values) for key in draw(st.lists(st.sampled_from(CONFIG_KEYS), max_size=4, unique=True))}
    config.setdefault("version", draw(st.sampled_from([1, 1, 2, "1", None])))
    config["suites"] = {draw(st.sampled_from(["s", "a b", "../x", "", "ok-1"])): suite}
    return config


def parses_or_clear_error(text: str) -> None:
    try:
        parse_config(text, "gate.yml", metrics=REGISTERED)
    except ConfigError as exc:
        assert_clear(exc)


@FUZZ
@given(config=configs())
def test_config_from_structured_yaml(config):
    parses_or_clear_error(yaml.safe_dump(config, allow_unicode=True))


EXAMPLE = (EXAMPLES / "gate.yml").read_text()


@FUZZ
@given(base=st.sampled_from([EXAMPLE, gate_yml("heuristic"), gate_yml("rag")]), data=st.data())
def test_config_from_mangled_text(base, data):
    lines = base.splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.integers(0, 3))
        if action == 0:
            del lines[at]
        elif action == 1:
            lines.insert(at, lines[at])  # duplicate keys
        elif action == 2:
            lines[at] = lines[at][: data.draw(st.integers(0, len(lines[at])))] + data.draw(st.text(max_size=8)) + "\n"
        else:
            lines[at] = data.draw(st.sampled_from(["\t", "  ", "- ", "? ", "&a ", "*a ", "!!python/none ", "{", "'"])) \
                + lines[at]
        if not lines:
            lines = [""]
    parses_or_clear_error("".join(lines))


@FUZZ
@given(text=st.text(max_size=200))
def test_config_from_any_text(text):
    parses_or_clear_error(text)
