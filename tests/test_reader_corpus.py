"""The expression reader on the phrasing corpus (tests/data/phrasings): every dev phrasing
read as its line says; the held-out quarter is measured apart (never tuned on)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from foakit.bench.reader import read

DATA = Path(__file__).resolve().parent / "data" / "phrasings"


def corpus(split: str) -> list[dict]:
    rows = []
    for f in sorted(DATA.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                if r["split"] == split:
                    rows.append(r)
    return rows


def _same(got, want) -> bool:
    if isinstance(want, list) and isinstance(got, list | tuple):
        if want and isinstance(want[0], str):
            return list(got) == want
        return len(got) == len(want) and all(
            (g is None and w is None) or (g is not None and w is not None and
                                          math.isclose(g, w, abs_tol=1e-3))
            for g, w in zip(got, want, strict=True))
    if isinstance(want, float) and isinstance(got, int | float):
        return math.isclose(got, want, abs_tol=1e-3)
    return got == want


def check(row: dict) -> list[str]:
    """What the reading gets wrong: missing or different fields, unread cue words."""
    r = read(row["text"])
    s = r.summary()
    bad = [f"{k}: got {s.get(k)!r}, want {v!r}" for k, v in row["expect"].items()
           if not (_same(s.get(k), v) or k == "azimuth_deg" and s.get(k) is not None and
                   math.isclose((s[k] - v + 180.0) % 360.0, 180.0, abs_tol=1e-6))]
    if r.unread:
        bad.append(f"unread {[u[2] for u in r.unread]}")
    return bad


def test_corpus_has_every_kind_with_ten_forms_a_quarter_held_out():
    rows = corpus("dev") + corpus("heldout")
    kinds = {r["kind"] for r in rows}
    assert {"time_point", "interval", "open_interval", "clip_part", "duration", "direction",
            "height_distance", "count", "sound_list", "temporal_relation",
            "spatial_relation"} <= kinds
    for k in kinds:
        mine = [r for r in rows if r["kind"] == k]
        assert len(mine) >= 10
        assert sum(r["split"] == "heldout" for r in mine) >= len(mine) // 4
        assert len({r["register"] for r in mine}) >= 3


@pytest.mark.parametrize("row", corpus("dev"), ids=lambda r: r["text"][:40])
def test_dev_phrasing_read_as_expected(row):
    assert check(row) == []


def heldout_report() -> dict:
    """Per kind: held-out phrasings read right (all expected fields, nothing unread)."""
    out: dict[str, list] = {}
    for row in corpus("heldout"):
        out.setdefault(row["kind"], []).append((row["text"], check(row)))
    return out


if __name__ == "__main__":
    rep = heldout_report()
    tot = ok = 0
    for kind, rows in rep.items():
        good = sum(not b for _, b in rows)
        tot, ok = tot + len(rows), ok + good
        print(f"{kind}: {good}/{len(rows)}")
        for text, b in rows:
            if b:
                print(f"   {text!r}: {b}")
    print(f"held-out phrasings read right: {ok}/{tot}")
