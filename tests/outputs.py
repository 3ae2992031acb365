"""A small FOA corpus and the comparison of two analysis outputs, shared by the Dask tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile as sf

from foakit.corpus import read_frames

from .scenes import plane_wave_scene


def make_foa_corpus(root: Path, n: int, *, duration: float = 1.5) -> None:
    """``n`` FOA clips of one source each (directions, onsets and levels varied), with
    sensor noise (cheap to make, unlike a diffuse field) in every other clip."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        az = -170 + 340 * ((i * 37) % n) / max(n - 1, 1)
        on = 0.1 + 0.05 * (i % 4)
        x = plane_wave_scene([(az, 10 - i % 3 * 10, on, duration - 0.2)], duration=duration,
                             seed=i) * (0.5 + 0.1 * (i % 5))
        if i % 2:
            x += np.random.default_rng(i).normal(size=x.shape).astype(np.float32) * 1e-3
        sub = root / ("a" if i % 2 else "b")
        sub.mkdir(exist_ok=True)
        sf.write(sub / f"clip{i:03d}.wav", x.T, 16000, subtype="PCM_16")


def _lines(out: Path) -> list[str]:
    """clips.jsonl lines without the part file names (random), sorted."""
    rows = []
    for line in (out / "clips.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec.pop("frames_part")
        rows.append(json.dumps(rec, sort_keys=True))
    return sorted(rows)


def _frames(out: Path):
    return read_frames(out).sort_by([("path", "ascending"), ("frame", "ascending")])


def same_outputs(out: Path, ref: Path) -> None:
    assert _lines(out) == _lines(ref)
    a, b = _frames(out), _frames(ref)
    assert a.schema == b.schema and a.num_rows == b.num_rows > 0
    for name in a.column_names:  # NaN (no direction in a silent frame) equals NaN here
        x, y = (t[name].to_numpy(zero_copy_only=False) for t in (a, b))
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name
    m, r = (json.loads((d / "manifest.json").read_text()) for d in (out, ref))
    assert {k for k in m if m[k] != r.get(k)} <= {"created", "updated"}
