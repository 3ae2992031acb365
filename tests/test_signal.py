"""foakit.signal: decoding, clip measures, stereo relations, fingerprints, the runner."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given
from hypothesis import strategies as st

from foakit.errors import AudioError, ParameterError
from foakit.jsonl import read_records
from foakit.signal import (
    decode_bytes,
    error_kind,
    find_duplicates,
    fingerprint,
    fingerprint_distance,
    measure_clip,
    mp3_support,
    read_any,
    run_items,
    speech_activity,
    stereo_measures,
)
from foakit.signal import sounds as S

SR = 16000


def _speech(seed=0, dur=6.0, voice="male", snr=None, noise="pink"):
    rng = np.random.default_rng(seed)
    x, spans = S.speech_like(dur, SR, rng, voice=voice)
    if snr is not None:
        x = S.mix_at_snr(x, spans, S.noise_like(dur, SR, rng, family=noise), snr, SR)
    return x, spans


def _bytes(x, sr, fmt, subtype=None):
    b = io.BytesIO()
    sf.write(b, np.asarray(x).T if np.ndim(x) == 2 else x, sr, format=fmt, subtype=subtype)
    return b.getvalue()


needs_mp3 = pytest.mark.skipif(not mp3_support()["mp3"], reason="libsndfile without MP3")


# -- decoding -----------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["WAV", "FLAC", "OGG", pytest.param("MP3", marks=needs_mp3)])
@pytest.mark.parametrize("channels", [1, 2])
def test_decode_bytes_every_format_gives_channels_by_samples(fmt, channels):
    x, _ = _speech(dur=1.0)
    data = np.stack([x] * channels) * np.array([[1.0], [0.5]])[:channels]
    s, sr = decode_bytes(_bytes(data, 22050 if fmt != "MP3" else 24000, fmt), name="a")
    assert s.dtype == np.float32 and s.shape[0] == channels
    assert sr in (22050, 24000)
    assert abs(s.shape[1] - data.shape[1]) <= 1200


def test_decode_errors_name_the_item_and_the_kind():
    wav = _bytes(np.zeros(16000, np.float32) + 0.1, SR, "WAV", "PCM_16")
    cases = {b"": "empty", b"not audio at all" * 50: "not_audio", wav[: len(wav) // 2]:
             "truncated"}
    for data, kind in cases.items():
        with pytest.raises(AudioError) as ei:
            decode_bytes(data, name="item-7")
        assert str(ei.value).startswith("item-7: ")
        assert ei.value.kind == kind == error_kind(ei.value)
        assert "BytesIO" not in str(ei.value)


def test_decode_refuses_non_finite_samples():
    data = _bytes(np.array([0.1, np.nan, 0.2] * 100, np.float32), SR, "WAV", "FLOAT")
    with pytest.raises(AudioError, match="NaN or Inf"):
        decode_bytes(data, name="nan.wav")


@needs_mp3
def test_a_cut_mp3_is_truncated(tmp_path):
    x, _ = _speech(dur=3.0)
    data = _bytes(x, SR, "MP3")
    with pytest.raises(AudioError, match="truncated") as ei:
        decode_bytes(data[: len(data) * 2 // 3], name="cut.mp3")
    assert error_kind(ei.value) == "truncated"


def test_read_any_missing_and_real_file(tmp_path):
    with pytest.raises(AudioError, match="no such file") as ei:
        read_any(tmp_path / "nope.wav")
    assert error_kind(ei.value) == "missing"
    x, _ = _speech(dur=1.0)
    sf.write(tmp_path / "a.flac", x, SR)
    s, sr = read_any(tmp_path / "a.flac")
    assert s.shape == (1, len(x)) and sr == SR


def test_mp3_support_reports_the_libsndfile_version():
    info = mp3_support()
    assert info["libsndfile"] == sf.__libsndfile_version__
    assert info["mp3"] == (info["reason"] is None)


@given(st.binary(max_size=300))
def test_decode_bytes_never_raises_anything_but_audio_error(data):
    try:
        s, sr = decode_bytes(data, name="fuzz")
    except AudioError as exc:
        assert exc.kind in ("empty", "not_audio", "truncated", "no_frames", "non_finite",
                            "unsupported")
    else:
        assert s.ndim == 2 and sr > 0


# -- clip measures -----------------------------------------------------------------------

def test_measures_of_speech_in_noise_track_the_mixing_snr():
    for snr in (5.0, 20.0):
        x, _ = _speech(seed=1, snr=snr, noise="white")
        m = measure_clip(x[None], SR)
        assert m.channels == 1 and m.stereo is None
        assert abs(m.duration_s - 6.0) < 1e-6
        assert m.speech_share > 0.4
        assert m.snr_db is not None and abs(m.snr_db - snr) < 4.0
        assert m.loudness_lufs is not None and -40 < m.loudness_lufs < -10
        assert m.clipped_share == 0.0


def test_silence_clipping_dc_and_short_clips():
    z = measure_clip(np.zeros((1, SR), np.float32), SR)
    assert z.peak_dbfs is None and z.silent_share == 1.0 and z.loudness_lufs is None
    assert z.snr_db is None and z.speech_share == 0.0
    x, _ = _speech(seed=2)
    clipped = measure_clip(np.clip(4 * x, -1, 1)[None], SR)
    assert clipped.clipped_share > 0.001
    scaled = measure_clip((0.5 * np.clip(4 * x, -1, 1))[None], SR)  # clipped, then scaled
    assert scaled.clipped_share > 0.001
    assert measure_clip(x[None], SR).clipped_share < 1e-4
    dc = measure_clip((x + 0.2)[None], SR)
    assert abs(dc.dc_offset - 0.2) < 0.01
    short = measure_clip(x[None, : SR // 4], SR)
    assert short.loudness_lufs is None
    d = short.to_dict()
    assert set(d) >= {"duration_s", "sample_rate", "channels", "peak_dbfs", "clipped_share",
                      "dc_offset", "rms_dbfs", "noise_floor_dbfs", "silent_share",
                      "active_share", "speech_share", "speech_segments", "snr_db",
                      "loudness_lufs", "stereo"}
    assert all(type(v) in (int, float, str, list, type(None), bool, dict) for v in d.values())


def test_measure_clip_rejects_bad_shapes():
    for bad in (np.zeros(10), np.zeros((3, 100)), np.zeros((1, 0))):
        with pytest.raises(ParameterError):
            measure_clip(bad, SR)
    with pytest.raises(ParameterError, match="sr"):
        measure_clip(np.zeros((1, 10)), 0)


def test_stereo_relations():
    x, _ = _speech(seed=3, snr=20)
    other, _ = _speech(seed=4, snr=20)
    same = stereo_measures(np.stack([x, x]))
    assert same["identical"] and same["downmix_loss_db"] == 0.0 and not same["inverted"]
    inv = stereo_measures(np.stack([x, -x]))
    assert inv["inverted"] and inv["correlation"] < -0.99 and inv["downmix_loss_db"] < -60
    dead = stereo_measures(np.stack([x, np.zeros_like(x)]))
    assert dead["dead_channel"] == "right" and not dead["inverted"]
    assert stereo_measures(np.stack([1e-4 * x, x]))["dead_channel"] == "left"
    wide = stereo_measures(np.stack([x, other]))
    assert not wide["identical"] and wide["dead_channel"] is None and not wide["inverted"]
    assert -4.5 < wide["downmix_loss_db"] < -1.5
    # an inverted pair cancels in the downmix; the speech is measured on one channel
    m = measure_clip(np.stack([x, -x]), SR)
    assert m.stereo["inverted"] and m.speech_share > 0.4
    with pytest.raises(ParameterError):
        stereo_measures(np.zeros((1, 10)))


# -- speech activity ---------------------------------------------------------------------

def test_speech_activity_api_and_segments():
    x, spans = _speech(seed=5, voice="female", dur=8.0, snr=20)
    a = speech_activity(x, SR)
    assert a.times.shape == a.prob.shape == a.active.shape
    assert np.all((a.prob >= 0) & (a.prob <= 1)) and a.active.dtype == bool
    assert abs(a.share - a.active.mean()) < 1e-12
    truth = S.truth_frames(spans, a.times)
    assert np.mean(a.active == truth) > 0.8
    for on, off in a.segments:
        assert 0 <= on < off <= 8.0 + 0.03
    assert speech_activity(np.zeros(0), SR).share == 0.0
    with pytest.raises(ParameterError):
        speech_activity(np.zeros((2, 100)), SR)
    with pytest.raises(ParameterError, match="hop_s"):
        speech_activity(x, SR, hop_s=1.0)


@pytest.mark.parametrize("family", ["melody", "chords", "drums", "bells"])
def test_music_is_not_speech(family):
    x = S.music_like(6.0, 44100, np.random.default_rng(6), family=family)
    assert speech_activity(x, 44100).share <= 0.1


@pytest.mark.parametrize("family", ["rain", "wind", "footsteps", "water", "machine"])
def test_environments_are_not_speech(family):
    x = S.environment_like(6.0, 22050, np.random.default_rng(7), family=family)
    assert speech_activity(x, 22050).share <= 0.1


def test_speech_activity_is_rate_independent():
    from scipy.signal import resample_poly

    x, spans = _speech(seed=8, snr=15)
    a = speech_activity(x, SR)
    b = speech_activity(resample_poly(x, 441, 160), 44100)
    n = min(len(a.active), len(b.active))
    assert np.mean(a.active[:n] == b.active[:n]) > 0.95


# -- fingerprints ------------------------------------------------------------------------

def test_fingerprint_matches_copies_across_formats_rates_and_levels():
    from scipy.signal import resample_poly

    x, _ = _speech(seed=9, snr=25)
    fps = {"a": fingerprint(x[None], SR),
           "a_quiet_44k": fingerprint(0.3 * resample_poly(x, 441, 160), 44100),
           "a_stereo": fingerprint(np.stack([x, x]), SR)}
    if mp3_support()["mp3"]:
        s, sr = decode_bytes(_bytes(x, SR, "MP3"), name="m")
        fps["a_mp3"] = fingerprint(s, sr)
    for i in range(12):
        y, _ = _speech(seed=100 + i, snr=25)
        fps[f"other{i}"] = fingerprint(y[None], SR)
    fps["silent"] = fingerprint(np.zeros((1, len(x))), SR)
    fps["silent2"] = fingerprint(np.zeros((1, len(x))), SR)
    groups = find_duplicates(fps)
    assert groups == [sorted(k for k in fps if k.startswith("a"))]
    assert fingerprint_distance(fps["a"], fps["other0"]) > 0.3
    assert fingerprint_distance(fps["silent"], fps["a"]) == 1.0


# -- the runner --------------------------------------------------------------------------

def _measure_file(item):
    s, sr = read_any(item["path"])
    return {"duration_s": round(s.shape[1] / sr, 3)}


def _items(folder):
    out = []
    for name in sorted(os.listdir(folder)):
        p = os.path.join(folder, name)
        st_ = os.stat(p)
        out.append({"key": name, "path": p, "sig": f"{st_.st_size}:{st_.st_mtime_ns}"})
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_run_items_records_every_item_resumes_and_retries(tmp_path, workers):
    audio = tmp_path / "audio"
    audio.mkdir()
    for i in range(7):
        sf.write(audio / f"c{i}.wav", np.full(800 * (i + 1), 0.1, np.float32), 8000)
    (audio / "bad.wav").write_bytes(b"RIFF....junk")
    ck = tmp_path / "out" / "measures.jsonl"
    r = run_items(_items(audio), _measure_file, checkpoint=ck, workers=workers,
                  batch_size=2)
    assert len(r.records) == 8 and r.analysed == 8 and r.failed == 1
    assert r.records["bad.wav"]["status"] == "error"
    assert r.records["bad.wav"]["error_kind"] == "not_audio"
    assert r.records["c3.wav"]["duration_s"] == 0.4
    again = run_items(_items(audio), _measure_file, checkpoint=ck, workers=workers)
    assert again.analysed == 0 and again.loaded == 8 and again.failed == 1
    sf.write(audio / "bad.wav", np.full(80, 0.1, np.float32), 8000)  # fixed: new sig
    fixed = run_items(_items(audio), _measure_file, checkpoint=ck, workers=workers)
    assert fixed.analysed == 1 and fixed.failed == 0
    assert read_records(ck, key="key")["bad.wav"]["status"] == "ok"


def test_run_items_retry_errors_and_bad_arguments(tmp_path):
    items = [{"key": "x", "path": str(tmp_path / "missing.wav"), "sig": "1"}]
    ck = tmp_path / "m.jsonl"
    assert run_items(items, _measure_file, checkpoint=ck, workers=1).failed == 1
    assert run_items(items, _measure_file, checkpoint=ck, workers=1).analysed == 0
    r = run_items(items, _measure_file, checkpoint=ck, workers=1, retry_errors=True)
    assert r.analysed == 1 and r.records["x"]["error_kind"] == "missing"
    with pytest.raises(ParameterError, match="twice"):
        run_items(items * 2, _measure_file, checkpoint=tmp_path / "n.jsonl", workers=1)
    with pytest.raises(ParameterError, match="workers"):
        run_items(items, _measure_file, checkpoint=ck, workers=0)


def _boom(item):
    raise RuntimeError("bug")


def test_run_items_an_internal_error_is_recorded(tmp_path):
    r = run_items([{"key": "a"}, {"key": "b"}], _boom, checkpoint=tmp_path / "m.jsonl",
                  workers=1)
    assert r.failed == 2 and r.records["a"]["error_kind"] == "internal"
    assert "RuntimeError: bug" in r.records["a"]["error"]


# -- writers and figures -----------------------------------------------------------------

def test_report_writers_and_figures(tmp_path):
    import json

    from foakit.signal import figures, report

    flags = [{"key": "a", "task_name": "speech_QA", "kind": "silent", "value": 1.0,
              "reason": "every frame below -60 dBFS | really", "figure": "figures/a.png"},
             {"key": "b", "task_name": "sound_QA", "kind": "clipped", "value": 0.02,
              "reason": "2 % of samples at full scale"}]
    counts = report.count_flags(flags, group="task_name")
    assert counts == {"by_kind": {"clipped": 1, "silent": 1},
                      "by_group": {"sound_QA": {"clipped": 1}, "speech_QA": {"silent": 1}},
                      "items_flagged": 2}
    report.write_jsonl(tmp_path / report.FLAGS_FILE, flags)
    assert [json.loads(line)["key"] for line in
            (tmp_path / report.FLAGS_FILE).read_text().splitlines()] == ["a", "b"]
    report.write_json(tmp_path / report.SUMMARY_FILE, {"counts": {"items": 3}})
    with pytest.raises(ValueError):
        report.write_json(tmp_path / "bad.json", {"x": float("nan")})
    x, _ = _speech(seed=11, dur=3.0, snr=20)
    p = figures.plot_activity(np.stack([x, x]), SR, tmp_path / "figures" / "a.png",
                              title="a", note="silent")
    assert p.stat().st_size > 1000
    dists = figures.plot_distributions({"snr_db": {"speech_QA": [10.0, None, 12.0],
                                                   "sound_QA": [None]},
                                        "empty": {"x": [None]}}, tmp_path / "figures")
    assert [d.name for d in dists] == ["dist_snr_db.png"]
    idx = report.write_index(tmp_path / report.INDEX_FILE, title="T",
                             summary={"counts": {"items": 3, "failed": 0}, "flags": counts},
                             flags=flags, group="task_name",
                             figures=["figures/dist_snr_db.png"], notes=["Rules."])
    text = idx.read_text()
    assert "| speech_QA | 0 | 1 |" in text and "[fig](figures/a.png)" in text
    assert "really" in text and "| really" not in text  # a pipe in a reason is escaped
    assert report.safe_name("a/b c?.wav") == "a_b_c_.wav"


def test_sounds_reject_bad_parameters():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError):
        S.speech_like(0.0, SR, rng)
    with pytest.raises(ParameterError):
        S.speech_like(1.0, SR, rng, voice="robot")
    with pytest.raises(ParameterError):
        S.music_like(1.0, 4000, rng)
    with pytest.raises(ParameterError):
        S.environment_like(1.0, SR, rng, family="x")
    with pytest.raises(ParameterError):
        S.noise_like(1.0, SR, rng, family="x")
    with pytest.raises(ParameterError):
        S.mix_at_snr(np.zeros(10), [], np.zeros(11), 0.0, SR)


_PULLED: list[int] = []
_PULLED_AT_FIRST_WORK: list[int] = []


def _note_pulled(item):
    if not _PULLED_AT_FIRST_WORK:
        _PULLED_AT_FIRST_WORK.append(len(_PULLED))
    return {}


def test_run_items_pulls_items_lazily_from_a_generator(tmp_path):
    def gen():
        for i in range(30):
            _PULLED.append(i)
            yield {"key": f"k{i}", "sig": "s"}

    ck = tmp_path / "m.jsonl"
    r = run_items(gen(), _note_pulled, checkpoint=ck, workers=1, batch_size=2)
    assert len(r.records) == 30 and r.failed == 0
    # the first batch runs before the rest of the corpus is pulled (3 batches queued)
    assert _PULLED_AT_FIRST_WORK == [6]
    _PULLED.clear()
    r2 = run_items(gen(), _note_pulled, checkpoint=ck, workers=2)
    assert r2.loaded == 30 and r2.analysed == 0 and len(_PULLED) == 30


@pytest.mark.parametrize("sr", [8000, 11025, 48000])
def test_every_family_renders_at_low_and_high_rates(sr):
    rng = np.random.default_rng(12)
    x, spans = S.speech_like(3.0, sr, rng, voice="child")
    assert x.shape == (3 * sr,) and spans and np.isfinite(x).all()
    for fam in S.MUSIC_FAMILIES:
        assert np.isfinite(S.music_like(1.0, sr, rng, family=fam)).all()
    for fam in S.ENVIRONMENT_FAMILIES:
        assert np.isfinite(S.environment_like(1.0, sr, rng, family=fam)).all()
    for fam in S.NOISE_FAMILIES:
        assert S.noise_like(1.0, sr, rng, family=fam).shape == (sr,)
    m = measure_clip(x[None], sr)
    assert m.loudness_lufs is not None and abs(m.duration_s - 3.0) < 1e-9
