"""foakit.files: reading names the file and the problem; writing is all or nothing."""

from __future__ import annotations

import pytest

from foakit.errors import FormatError
from foakit.files import read_text, write_atomic


def test_read_text_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\xff\xfe\x00not utf-8")
    with pytest.raises(FormatError, match=r"bad\.jsonl: not UTF-8 text"):
        read_text(bad)
    with pytest.raises(FormatError, match=r"missing\.csv: cannot read"):
        read_text(tmp_path / "missing.csv")
    with pytest.raises(FormatError, match="cannot read"):
        read_text(tmp_path)  # a folder
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf0,1")
    assert read_text(tmp_path / "bom.csv", encoding="utf-8-sig") == "0,1"


def test_write_atomic_replaces_whole_or_not_at_all(tmp_path):
    p = write_atomic(tmp_path / "sub" / "out.txt", ["a\n", "b\n"])
    assert p.read_text() == "a\nb\n"

    def chunks():
        yield "partial\n"
        raise RuntimeError("killed while writing")

    with pytest.raises(RuntimeError):
        write_atomic(p, chunks())
    assert p.read_text() == "a\nb\n"
    assert sorted(x.name for x in p.parent.iterdir()) == ["out.txt"]  # no temporary left
