"""Writing is atomic: a failed write leaves the old file whole and no temporary behind; CSV cells keep full
precision and leave unmeasured values blank. (Moved from tests/test_io.py; the shared atomic writer under every
whole-file write is tests/test_io_atomic.py.)"""

from __future__ import annotations

import os

import pytest

from gate import io


def test_atomic_write_replaces_whole_file_and_cleans_up_on_failure(in_tmp, monkeypatch):
    target = in_tmp / "out" / "report.json"
    io.write_json_atomic(target, {"verdict": "pass", "x": float("nan")})
    assert target.read_text() == '{\n  "verdict": "pass",\n  "x": null\n}\n'

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        io.write_text_atomic(target, "half")
    assert target.read_text().startswith('{\n  "verdict"')  # the old file is intact
    assert os.listdir(target.parent) == ["report.json"]  # no temporary left behind


def test_csv_writes_full_precision_and_blanks_for_unmeasured(in_tmp):
    io.write_csv_atomic(in_tmp / "items.csv", ["a", "b", "c"], [[0.1 + 0.2, None, True]])
    assert (in_tmp / "items.csv").read_text() == "a,b,c\n0.30000000000000004,,true\n"


def test_containers_below_the_inline_depth_are_one_line_each_and_the_value_is_unchanged():
    import json
    import math

    from gate.io.write import to_json

    value = {"schema": 1, "suites": [{"name": "s", "groups": [{"key": {"model": "m"}, "metrics": {"f1": math.nan}},
                                                             {"key": {"model": "é<\u2028"}, "metrics": {}}]}],
             "empty": {}, 3: None, "tuple": (1.5, -0.0, math.inf)}
    plain = json.loads(to_json(value))
    for depth in range(6):
        text = to_json(value, inline_below=depth)
        assert json.loads(text) == plain and text.endswith("}\n")
    lines = to_json(value, inline_below=4).splitlines()
    assert '        {"key": {"model": "m"}, "metrics": {"f1": null}},' in lines  # a group: one line, NaN as null
    assert plain["3"] is None and plain["tuple"] == [1.5, -0.0, None]
