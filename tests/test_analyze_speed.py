"""benchmarks/analyze_speed.py: the corpora it times (the timing itself is its own run)."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf


@pytest.fixture()
def speed(bench_script):
    return bench_script("analyze_speed")


def test_room_corpus_fills_the_hours_with_the_rendered_rooms_in_turn(speed, tmp_path):
    n = speed.make_room_corpus(str(tmp_path), 30.0 / 3600, unique=2)
    assert n == 3
    files = sorted(tmp_path.rglob("*.wav"))
    assert [f.relative_to(tmp_path).as_posix() for f in files] == [
        "d000/c00000.wav", "d000/c00001.wav", "d000/c00002.wav"]
    clips = [sf.read(f, always_2d=True) for f in files]
    assert all(sr == 16000 and x.shape == (160000, 4) for x, sr in clips)
    assert np.array_equal(clips[0][0], clips[2][0])
    assert not np.array_equal(clips[0][0], clips[1][0])
    for x, _ in clips:
        assert 0.85 < np.max(np.abs(x)) <= 0.9 + 1.0 / 32768
    # reverberant enough that the analysis takes its wet branch (onset support, leakage and
    # lead-in rules), which the dry corpus never reaches
    from foakit.analysis import analyze_samples, clip_diffuseness
    from foakit.params import AnalysisParams

    for x, sr in clips[:2]:
        res = analyze_samples(x.T.astype(np.float32), sr)
        psi = clip_diffuseness(res.frames["diffuseness"], res.frames["active"])
        assert psi >= AnalysisParams().dry_psi


def test_room_corpus_refuses_no_rooms(speed, tmp_path):
    with pytest.raises(ValueError, match="unique=0 must be >= 1"):
        speed.make_room_corpus(str(tmp_path), 0.01, unique=0)


def test_room_corpus_seed_chooses_the_rooms(speed, tmp_path):
    speed.make_room_corpus(str(tmp_path / "a"), 10.0 / 3600, unique=1, seed=0)
    speed.make_room_corpus(str(tmp_path / "b"), 10.0 / 3600, unique=1, seed=1)
    a, _ = sf.read(tmp_path / "a" / "d000" / "c00000.wav")
    b, _ = sf.read(tmp_path / "b" / "d000" / "c00000.wav")
    assert a.shape == b.shape and not np.array_equal(a, b)
