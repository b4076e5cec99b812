"""`gate.baselines.comparison`, the I/O around snapshots: where a snapshot lives, reading one (missing, broken,
valid), which baseline input files it covers, whether this pull request touches them, and the age of drift's
kept baseline outputs. Digests are checked against hashlib directly."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gate.baselines.comparison import (
    baseline_files,
    comparisons,
    inputs_digest,
    read_snapshot,
    snapshot_path,
    stale_output_baselines,
    write_snapshot,
)
from gate.baselines.snapshots import Snapshot
from gate.config import GateConfig
from gate.errors import ConfigError, InputError
from gate.kinds.drift import DriftDetails, DriftSettings, ExerciseFacts
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.stability.config import StabilitySuiteConfig
from gate.results import SuiteResult

NOW = datetime(2026, 11, 22, tzinfo=timezone.utc)


def drift(baseline) -> DriftSuiteConfig:
    return DriftSuiteConfig(kind="drift", baseline=baseline, candidates=["c/*.jsonl"])


def config(baselines=None, **suites) -> GateConfig:
    return GateConfig(version=1, suites=suites or {"s": drift(["b/*.json"])}, baselines=baselines or {})


def result(name="s", kind="drift", details=None) -> SuiteResult:
    return SuiteResult(name, kind, {"f1": 0.8}, (), (), (), details=details)


def blessed(suite="s", kind="drift", digest=None, created="2026-11-01T00:00:00Z") -> Snapshot:
    return Snapshot(gate="g", suite=suite, kind=kind, created_at=created, commit="abc", fingerprint={},
                    inputs_digest=digest, metrics={"f1": 0.8})


def digest_of(*paths: Path) -> str:
    """sha256 over each file's name then its bytes, in path order (what a snapshot records)."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


# ---------------------------------------------------------------- paths and files


def test_snapshot_path_is_one_file_per_suite_under_the_configured_dir(in_tmp):
    assert snapshot_path(config(), in_tmp, "s") == in_tmp / "baselines" / "metrics" / "s.json"
    assert snapshot_path(config({"dir": "snaps"}), in_tmp, "x") == in_tmp / "snaps" / "x.json"


def test_a_snapshot_dir_outside_the_workspace_is_a_config_error(in_tmp):
    (in_tmp / "ws").mkdir()
    with pytest.raises(ConfigError) as caught:
        snapshot_path(config({"dir": "../elsewhere"}), in_tmp / "ws", "s")
    assert caught.value.problems[0].field == "baselines.dir" and "outside" in caught.value.problems[0].found


def test_baseline_files_are_the_suites_baseline_globs_sorted_once(in_tmp):
    (in_tmp / "b").mkdir()
    for name in ("ex-2.json", "ex-1.json", "notes.txt"):
        (in_tmp / "b" / name).write_text("{}")
    files = baseline_files(drift(["b/*.json", "b/ex-1.json"]), in_tmp)
    assert files == [in_tmp / "b" / "ex-1.json", in_tmp / "b" / "ex-2.json"]
    assert baseline_files(drift("b/ex-2.json"), in_tmp) == [in_tmp / "b" / "ex-2.json"]  # one string, one glob


def test_a_kind_without_baseline_files_has_none_and_no_digest(in_tmp):
    stability = StabilitySuiteConfig(kind="stability", records=["r.jsonl"])
    assert baseline_files(stability, in_tmp) == [] and inputs_digest(stability, in_tmp) is None


def test_inputs_digest_covers_names_and_contents(in_tmp):
    (in_tmp / "b").mkdir()
    first, second = in_tmp / "b" / "ex-1.json", in_tmp / "b" / "ex-2.json"
    first.write_text('{"a": 1}')
    second.write_text('{"b": 2}')
    suite = drift(["b/*.json"])
    assert inputs_digest(suite, in_tmp) == digest_of(first, second)
    second.write_text('{"b": 3}')
    assert inputs_digest(suite, in_tmp) == digest_of(first, second)


# ---------------------------------------------------------------- reading a snapshot


def test_no_snapshot_file_reads_as_none(in_tmp):
    assert read_snapshot(in_tmp / "none.json") is None
    (in_tmp / "dir.json").mkdir()
    assert read_snapshot(in_tmp / "dir.json") is None  # not a file: no snapshot


def test_a_written_snapshot_reads_back_equal(in_tmp):
    snap = blessed(digest="d")
    write_snapshot(in_tmp / "baselines" / "s.json", snap)
    assert read_snapshot(in_tmp / "baselines" / "s.json") == snap
    assert json.loads((in_tmp / "baselines" / "s.json").read_text())["schema"] == 2


def test_a_snapshot_that_is_not_json_is_a_located_input_error(in_tmp):
    (in_tmp / "s.json").write_text('{"schema": 1,\n  oops}')
    with pytest.raises(InputError) as caught:
        read_snapshot(in_tmp / "s.json")
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.expected) == ("s.json", 2, "valid JSON")
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("document, expected", [
    ({"schema": 7}, "snapshot schema 2, found 7 (int) (written by a newer llm-quality-gate)"),
    ([], "a JSON object, found list"),
    ({**blessed().to_dict(), "metrics": "x"}, "'metrics' to be a dict, found 'x'"),
])
def test_a_snapshot_of_the_wrong_shape_says_how_to_fix_it(in_tmp, document, expected):
    (in_tmp / "s.json").write_text(json.dumps(document))
    with pytest.raises(InputError) as caught:
        read_snapshot(in_tmp / "s.json")
    [problem] = caught.value.problems
    assert problem.file == "s.json" and problem.expected == expected
    assert "llm-gate baseline bless" in problem.fix


# ---------------------------------------------------------------- comparisons


def test_comparisons_look_up_each_suites_snapshot(in_tmp):
    (in_tmp / "b").mkdir()
    (in_tmp / "b" / "ex.json").write_text("{}")
    digest = digest_of(in_tmp / "b" / "ex.json")
    gate = config(s=drift(["b/*.json"]), t=drift(["b/*.json"]), u=drift(["b/*.json"]))
    write_snapshot(in_tmp / "baselines" / "metrics" / "s.json", blessed("s", digest=digest))
    write_snapshot(in_tmp / "baselines" / "metrics" / "t.json", blessed("t", digest="stale digest"))
    found = comparisons(gate, [result("s"), result("t"), result("u")], in_tmp, NOW)
    assert found["s"].comparable and found["s"].path == "baselines/metrics/s.json"
    assert found["s"].age_days == pytest.approx(21.0) and not found["s"].stale
    assert found["t"].differences == ("baseline input files changed since the snapshot was blessed",)
    assert found["u"].snapshot is None and found["u"].path == "baselines/metrics/u.json"
    assert all(c.changed_in_pr == () for c in found.values())  # changed files unknown


def test_comparisons_name_the_baseline_files_this_pull_request_changes(in_tmp):
    (in_tmp / "b").mkdir()
    for name in ("ex-1.json", "ex-2.json"):
        (in_tmp / "b" / name).write_text("{}")
    write_snapshot(in_tmp / "baselines" / "metrics" / "s.json", blessed())
    changed = [in_tmp / "b" / "ex-2.json", in_tmp / "baselines" / "metrics" / "s.json", in_tmp / "README.md"]
    [found] = comparisons(config(), [result()], in_tmp, NOW, changed=changed).values()
    assert found.changed_in_pr == ("baselines/metrics/s.json", "b/ex-2.json")


def test_comparisons_honour_the_maximum_age(in_tmp):
    (in_tmp / "b").mkdir()
    (in_tmp / "b" / "ex.json").write_text("{}")
    write_snapshot(in_tmp / "baselines" / "metrics" / "s.json", blessed(created="2026-11-01T00:00:00Z"))
    [stale] = comparisons(config({"max_age_days": 20}), [result()], in_tmp, NOW).values()
    [never] = comparisons(config({"max_age_days": None}), [result()], in_tmp, NOW).values()
    assert stale.stale and not never.stale and never.age_days == pytest.approx(21.0)


# ---------------------------------------------------------------- drift's kept baseline outputs


def exercises(*stamps: str | None) -> DriftDetails:
    """A drift result's details whose exercises' oldest baseline outputs are `stamps`."""
    settings = DriftSettings(bertscore_model="m", layer=6, idf=False, rescale_with_baseline=False, max_tokens=510,
                             credit_drift_mode="total", models=("m",), exercises=len(stamps), windowed_submissions=0)
    return DriftDetails(settings=settings, exercises={
        str(i): ExerciseFacts(file=f"ex-{i}.json", title=None, baseline_model=None, generated_at=None,
                              oldest_baseline_at=stamp, submissions=1) for i, stamp in enumerate(stamps)})


def test_stale_output_baselines_report_the_oldest_past_the_limit():
    results = [result("old", details=exercises("2026-10-01T00:00:00Z", "2026-08-24T00:00:00Z", None)),
               result("fresh", details=exercises("2026-11-12T00:00:00Z")),
               result("none"),
               result("empty", details=exercises(None))]
    assert stale_output_baselines(results, NOW, 60) == {"old": ("2026-08-24T00:00:00Z", pytest.approx(90.0))}


def test_stale_output_baselines_need_a_limit_and_a_readable_date():
    results = [result("old", details=exercises("2020-01-01T00:00:00Z")), result("bad", details=exercises("someday"))]
    assert stale_output_baselines(results, NOW, None) == {}
    assert set(stale_output_baselines(results, NOW, 1)) == {"old"}
