import json

import pytest

from foakit.jsonl import append_records, read_records


def test_latest_record_per_key_torn_line_cut_corrupt_line_skipped(tmp_path):
    p = tmp_path / "r.jsonl"
    assert read_records(p) == {}
    append_records(p, [{"path": "a", "v": 1}, {"path": "b", "v": 1}])
    append_records(p, [])
    append_records(p, [{"path": "a", "v": 2}])
    with open(p, "ab") as fh:
        fh.write(b"not json\n" + b'{"v": 3}\n' + b'{"path": "c", "v"')  # no key; torn
    recs = read_records(p)
    assert recs == {"a": {"path": "a", "v": 2}, "b": {"path": "b", "v": 1}}
    assert p.read_bytes().endswith(b'{"v": 3}\n')  # the torn tail is gone from the file
    append_records(p, [{"path": "c", "v": 4}])
    assert read_records(p)["c"]["v"] == 4
    assert read_records(p, key="v").keys() == {1, 2, 3, 4}


def test_strict_json_unless_asked(tmp_path):
    p = tmp_path / "r.jsonl"
    with pytest.raises(ValueError):
        append_records(p, [{"path": "a", "x": float("nan")}])
    append_records(p, [{"path": "a", "x": float("nan")}], allow_nan=True)
    assert json.loads(p.read_text().splitlines()[0].replace("NaN", "null"))["x"] is None
