"""Known-answer tests of foakit.synth: scenes, rendering, engines, writers."""

from __future__ import annotations

import csv
import json
import re
import time

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.bench.sobench.questions_synth import ENDINGS, GENERATED_TASKS, PREAMBLES, TEMPLATES
from foakit.bench.sobench.synth import make_demo_corpus, write_sobench_corpus
from foakit.bench.starss.synth import STARSS_CLASSES, starss_rows, write_starss_corpus
from foakit.conventions import angular_distance, to_internal, vector_to_direction, wrap_azimuth
from foakit.errors import BackendUnavailable, ParameterError
from foakit.synth import (
    KINDS,
    LABELS,
    Scene,
    Source,
    diffuse_noise,
    direct_snr_db,
    random_scene,
    render_scene,
    resolve_engine,
    room_geometry,
    room_impulse_response,
    source_signal,
    write_wav,
)

SR = 16000


def _have_pra() -> bool:
    try:
        resolve_engine("pyroomacoustics")
    except BackendUnavailable:
        return False
    return True


def intensity_direction(x: np.ndarray) -> tuple[float, float]:
    """Azimuth, elevation of the time-averaged pseudo-intensity W * (X, Y, Z)."""
    w, y, z, xx = x
    return tuple(float(v) for v in vector_to_direction(
        [np.mean(w * xx), np.mean(w * y), np.mean(w * z)]))


def diffuseness(x: np.ndarray) -> float:
    w, y, z, xx = x
    i = np.array([np.mean(w * xx), np.mean(w * y), np.mean(w * z)])
    e = np.mean(w**2 + xx**2 + y**2 + z**2) / 2
    return float(1 - np.linalg.norm(i) / e)


def schroeder_rt60(h: np.ndarray, sr: int) -> float:
    edc = np.cumsum(h[::-1] ** 2)[::-1]
    edc_db = 10 * np.log10(edc / edc[0] + 1e-30)
    i5, i25 = np.argmax(edc_db <= -5), np.argmax(edc_db <= -25)
    slope = np.polyfit(np.arange(i5, i25) / sr, edc_db[i5:i25], 1)[0]
    return -60.0 / slope


# --------------------------------------------------------------------------- anechoic


def test_anechoic_single_source_channel_ratios():
    az, el, d = 60.0, 20.0, 2.0
    x = render_scene(Scene([Source(az, el, d, 0.2, 1.2, "speech")], 1.5)).astype(float)
    assert x.shape == (4, int(1.5 * SR)) and x.dtype == np.float64
    w, y, z, xx = x
    ww = np.mean(w * w)
    u = np.deg2rad([az, el])
    assert np.mean(w * y) / ww == pytest.approx(np.sin(u[0]) * np.cos(u[1]), abs=1e-5)
    assert np.mean(w * z) / ww == pytest.approx(np.sin(u[1]), abs=1e-5)
    assert np.mean(w * xx) / ww == pytest.approx(np.cos(u[0]) * np.cos(u[1]), abs=1e-5)
    got_az, got_el = intensity_direction(x)
    assert got_az == pytest.approx(az, abs=0.01) and got_el == pytest.approx(el, abs=0.01)
    # direct sound starts exactly at onset_s (no propagation delay), amplitude 1/distance
    a = int(0.2 * SR)
    assert not np.any(x[:, :a]) and np.any(x[0, a : a + 200])
    assert np.sqrt(ww * len(w) / (SR * 1.0)) == pytest.approx(1 / d, rel=1e-3)
    assert not np.any(x[:, int(1.2 * SR) :])


@settings(derandomize=True, max_examples=12, deadline=None)
@given(az=st.floats(-180, 179.9), el=st.floats(-85, 85), kind=st.sampled_from(KINDS))
def test_direction_encoding_property(az, el, kind):
    scene = Scene([Source(az, el, 1.0, 0.0, 0.3, "x", kind=kind)], 0.3)
    got_az, got_el = intensity_direction(render_scene(scene).astype(float))
    assert angular_distance(got_az, got_el, az, el) < 0.05
    assert -180 <= scene.sources[0].azimuth_deg < 180


def test_moving_source_direction_and_motion_labels():
    s = Source(60.0, 0.0, 1.0, 0.0, 2.0, "engine", azimuth_end_deg=-30.0)
    assert s.motion == "left_to_right" and s.is_moving
    assert Source(10.0, 0.0, 1.0, 0.0, 2.0, "dog", azimuth_end_deg=25.0).motion == "stationary"
    # the shorter arc across the back: 170 -> -150 is +40 degrees (right to left)
    back = Source(170.0, 0.0, 1.0, 0.0, 2.0, "dog", azimuth_end_deg=-150.0)
    assert back.motion == "right_to_left" and back.mid_azimuth_deg == pytest.approx(-170.0)
    x = render_scene(Scene([s], 2.0)).astype(float)
    first, last = x[:, : SR // 5], x[:, -SR // 5 :]
    assert intensity_direction(first)[0] == pytest.approx(56.0, abs=2.0)
    assert intensity_direction(last)[0] == pytest.approx(-26.0, abs=2.0)


def test_render_is_reproducible_and_seeded():
    scene = random_scene(3, n_sources=2, snr_db=20.0, rt60_s=0.5)
    a = render_scene(scene, engine="ism")
    assert np.array_equal(a, render_scene(scene, engine="ism"))
    other = Scene.from_dict({**scene.to_dict(), "seed": scene.seed + 1})
    assert not np.array_equal(a, render_scene(other, engine="ism"))


def test_snr_is_measured_on_w_over_active_union():
    src = [Source(30, 0, 2.0, 1.0, 3.0, "speech"), Source(-90, 10, 1.0, 2.0, 4.5, "piano")]
    clean = render_scene(Scene(src, 6.0, seed=4)).astype(float)
    noisy = render_scene(Scene(src, 6.0, seed=4, snr_db=12.0)).astype(float)
    noise = noisy - clean
    active = slice(int(1.0 * SR), int(4.5 * SR))
    snr = 10 * np.log10(np.mean(clean[0, active] ** 2) / np.mean(noise[0] ** 2))
    assert snr == pytest.approx(12.0, abs=0.05)
    assert diffuseness(noise) > 0.9


def test_direct_snr_per_source_from_the_rendered_direct_sound():
    src = [Source(30, 0, 2.0, 1.0, 3.0, "speech"), Source(-90, 10, 1.0, 2.0, 4.5, "piano")]
    got = direct_snr_db(Scene(src, 6.0, seed=4, snr_db=12.0))
    for order in ([0, 1], [1, 0]):
        # a scene's first source draws the same signal alone as in the mixture
        first = src[order[0]]
        scene = Scene([src[i] for i in order], 6.0, seed=4, snr_db=12.0)
        alone = render_scene(Scene([first], 6.0, seed=4)).astype(float)
        mixed = render_scene(Scene(scene.sources, 6.0, seed=4)).astype(float)
        noise = render_scene(scene).astype(float) - mixed
        span = slice(int(first.onset_s * SR), int(first.offset_s * SR))
        want = 10 * np.log10(np.mean(alone[0, span] ** 2) / np.mean(noise[0] ** 2))
        assert direct_snr_db(scene)[0] == pytest.approx(want, abs=0.01)
    assert got[1] > got[0]  # nearer and not quieter
    one = Scene(src[:1], 6.0, seed=4, snr_db=12.0)  # one source: the scene SNR itself
    assert direct_snr_db(one)[0] == pytest.approx(12.0, abs=1e-9)
    assert direct_snr_db(Scene(src, 6.0, seed=4)) == [None, None]
    with pytest.raises(ParameterError, match="scene must be a Scene"):
        direct_snr_db(src)


def test_render_scene_places_given_dry_signals():
    src = [Source(-90, 10, 1.0, 2.0, 4.5, "piano"),
           Source(30, 0, 2.0, 1.0, 3.0, "speech", level_db=-6.0)]
    rng = np.random.default_rng(5)
    rec = rng.standard_normal(int(1.2 * SR)) * np.hanning(int(1.2 * SR))  # shorter than 2 s
    scene = Scene(src, 6.0, seed=4)
    got = render_scene(scene, signals=[None, rec]).astype(float)
    # None keeps the synthetic family: the first source alone renders as without signals
    other = render_scene(Scene(src[:1], 6.0, seed=4)).astype(float)
    first = got - other
    a, b = int(1.0 * SR), int(3.0 * SR)
    w = first[0, a:b]
    # zero-padded after the recording, faded, unit RMS over the source's span, then its
    # level and 1 / distance
    assert not np.any(np.abs(w[int(1.2 * SR):]) > 1e-6)
    assert np.sqrt(np.mean(w * w)) == pytest.approx(10 ** (-6 / 20) / 2.0, rel=1e-4)
    inner = slice(int(0.1 * SR), int(1.1 * SR))
    assert np.corrcoef(w[inner], rec[inner])[0, 1] > 0.9999
    assert not np.any(np.abs(first[:, :a]) > 1e-6) and not np.any(np.abs(first[:, b:]) > 1e-6)
    # a longer recording is cut to the span; the per-source SNR uses the same signals
    long = rng.standard_normal(10 * SR)
    noisy = Scene(src, 6.0, seed=4, snr_db=12.0)
    assert render_scene(noisy, signals=[long, long]).shape == (4, 6 * SR)
    assert direct_snr_db(noisy, signals=[None, long]) != direct_snr_db(noisy)
    assert np.array_equal(render_scene(noisy, signals=[None, None]), render_scene(noisy))
    for bad, msg in (([rec], "signals has 1 entries for 2 sources"),
                     ([None, rec[None, :]], r"signals\[1\] must be a non-empty 1-D array"),
                     ([np.zeros(SR), None], r"signals\[0\] is silent"),
                     ([None, np.full(SR, np.nan)], r"signals\[1\] has non-finite")):
        with pytest.raises(ParameterError, match=msg):
            render_scene(scene, signals=bad)


# --------------------------------------------------------------------------- signals, noise


@pytest.mark.parametrize("kind", KINDS)
def test_source_signal_families(kind):
    rng = np.random.default_rng(0)
    x = source_signal(kind, 3 * SR, SR, rng)
    assert x.shape == (3 * SR,) and np.all(np.isfinite(x))
    assert np.sqrt(np.mean(x**2)) == pytest.approx(1.0, rel=1e-9)
    assert abs(x[0]) < 1e-3 * np.abs(x).max() and abs(x[-1]) < 1e-3 * np.abs(x).max()
    spec = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(len(x), 1 / SR)
    assert spec[(f > 1000) & (f < 7000)].sum() / spec.sum() > 0.05  # usable for DOA
    assert not np.array_equal(x, source_signal(kind, 3 * SR, SR, np.random.default_rng(1)))


def test_source_signal_errors():
    with pytest.raises(ParameterError, match="kind='kazoo'"):
        source_signal("kazoo", 100, SR, np.random.default_rng(0))
    with pytest.raises(ParameterError, match="n=0"):
        source_signal("noise", 0, SR, np.random.default_rng(0))


def test_diffuse_noise_is_isotropic():
    x = diffuse_noise(4 * SR, SR, np.random.default_rng(1))
    assert x.shape == (4, 4 * SR)
    assert np.mean(x[0] ** 2) == pytest.approx(1.0)
    assert np.mean(x[1:] ** 2, axis=1) == pytest.approx([1 / 3] * 3, rel=0.1)
    assert diffuseness(x) > 0.9
    with pytest.raises(ParameterError, match="n_directions=2"):
        diffuse_noise(10, SR, np.random.default_rng(0), n_directions=2)


# --------------------------------------------------------------------------- rooms


@pytest.mark.parametrize("rt60", [0.4, 0.8])
def test_ism_rt60_drr_and_direct_path(rt60):
    src = Source(-120.0, 25.0, 2.5, 0.1, 1.0, "dog")
    scene = Scene([src], 1.5, rt60_s=rt60, room_dim=(9.0, 7.0, 4.0))
    h = room_impulse_response(scene, 0, engine="ism")
    assert schroeder_rt60(h[0], SR) == pytest.approx(rt60, rel=0.3)
    assert h[0, 0] == pytest.approx(1 / 2.5)
    az, el = intensity_direction(h[:, :1])
    assert angular_distance(az, el, -120.0, 25.0) < 1e-6
    late = h[:, int(0.1 * SR) :]
    assert diffuseness(late) > 0.8
    r_c = 0.057 * np.sqrt(9 * 7 * 4 / rt60)
    drr = (1 / 2.5**2) / np.sum(h[0, 1:] ** 2)
    assert 10 * np.log10(drr) == pytest.approx(20 * np.log10(r_c / 2.5), abs=1.0)
    rev = room_impulse_response(scene, 0, engine="ism", include_direct=False)
    assert rev[0, 0] == 0 and np.allclose(rev[:, 1:], h[:, 1:])


@pytest.mark.skipif(not _have_pra(), reason="pyroomacoustics not installed")
def test_pyroomacoustics_direct_path_sign_convention():
    for az, el in [(60.0, 20.0), (-135.0, -30.0), (170.0, 45.0)]:
        scene = Scene([Source(az, el, 2.0, 0.0, 1.0, "dog")], 1.0, rt60_s=0.4)
        h = room_impulse_response(scene, 0, engine="pyroomacoustics")
        got = intensity_direction(h[:, : SR // 1000])  # first ms: the direct path
        assert angular_distance(*got, az, el) < 2.0, (az, el, got)
        assert np.linalg.norm(h[0, : SR // 1000]) == pytest.approx(0.5, rel=0.15)
        assert schroeder_rt60(h[0], SR) == pytest.approx(0.4, rel=0.3)


@pytest.mark.skipif(not _have_pra(), reason="pyroomacoustics not installed")
def test_pyroomacoustics_render_matches_direction():
    scene = Scene([Source(-45.0, 10.0, 1.0, 0.5, 2.5, "speech")], 3.0, rt60_s=0.3)
    x = render_scene(scene, engine="pyroomacoustics").astype(float)
    az, el = intensity_direction(x)
    assert angular_distance(az, el, -45.0, 10.0) < 10.0


def test_engine_errors_and_room_geometry():
    scene = Scene([Source(0, 0, 4.0, 0, 1, "dog")], 1.0, rt60_s=0.5, room_dim=(3, 3, 3))
    with pytest.raises(ParameterError, match="room_dim"):
        render_scene(scene, engine="ism")
    with pytest.raises(ParameterError, match="engine='foo'"):
        render_scene(Scene([], 1.0), engine="foo")
    with pytest.raises(ParameterError, match="rt60_s"):
        big = Scene([Source(0, 0, 1.0, 0, 1, "dog")], 1.0, rt60_s=0.05, room_dim=(20, 20, 8))
        render_scene(big, engine="ism")
    ok = Scene([Source(90, 30, 3.0, 0, 1, "dog")], 1.0, rt60_s=0.5)
    room, mic = room_geometry(ok)
    pos = np.array(mic) + 3.0 * np.array([0, np.cos(np.pi / 6), 0.5])
    assert np.all(np.array(mic) >= 1.0) and np.all(np.array(room) - np.array(mic) >= 1.0)
    assert np.all(pos >= 0.5 - 1e-9) and np.all(np.array(room) - pos >= 0.5 - 1e-9)


# --------------------------------------------------------------------------- random scenes


def test_random_scene_reproducible_and_valid():
    for seed in range(25):
        a = random_scene(seed, n_sources=(1, 3), allow_motion=True, rt60_s=(0.3, 0.9),
                         snr_db=(10, 30))
        assert a == random_scene(seed, n_sources=(1, 3), allow_motion=True,
                                 rt60_s=(0.3, 0.9), snr_db=(10, 30))
        d = json.loads(json.dumps(a.to_dict()))
        assert Scene.from_dict(d) == a
        labels = [s.label for s in a.sources]
        assert len(set(labels)) == len(labels) and set(labels) <= set(LABELS)
        for s in a.sources:
            assert s.offset_s - s.onset_s >= 1.0 - 1e-9 and s.offset_s <= a.duration_s
            assert round(s.onset_s * 10) == pytest.approx(s.onset_s * 10, abs=1e-6)
            assert 0.8 <= s.distance_m <= 4.5 and -40 <= s.elevation_deg <= 40
        for i, s in enumerate(a.sources):
            for o in a.sources[i + 1 :]:
                t = np.linspace(0, 1, 5)
                sa = s.azimuth_at(s.onset_s + t * (s.offset_s - s.onset_s))[:, None]
                so = o.azimuth_at(o.onset_s + t * (o.offset_s - o.onset_s))[None, :]
                sa, so = np.broadcast_arrays(sa, so)
                sep = angular_distance(sa, np.full_like(sa, s.elevation_deg), so,
                                       np.full_like(so, o.elevation_deg))
                assert sep.min() >= 45.0 - 1e-6
        if len(a.sources) >= 2:
            spans = [(s.onset_s, s.offset_s) for s in a.sources]
            assert any(p[0] < q[1] and q[0] < p[1] for k, p in enumerate(spans)
                       for q in spans[k + 1 :])
    assert random_scene(1) != random_scene(2)
    gen = random_scene(np.random.default_rng(5))
    assert gen == random_scene(gen.seed)


def test_random_scene_without_overlap_and_errors():
    sc = random_scene(7, n_sources=3, overlap=False)
    spans = sorted((s.onset_s, s.offset_s) for s in sc.sources)
    assert all(b[0] >= a[1] + 0.3 - 1e-9 for a, b in zip(spans[:-1], spans[1:], strict=True))
    with pytest.raises(ParameterError, match="n_sources"):
        random_scene(0, n_sources=99)
    with pytest.raises(ParameterError, match="elevation_deg=95"):
        Source(0, 95, 1, 0, 1, "dog")
    with pytest.raises(ParameterError, match="offset_s"):
        Scene([Source(0, 0, 1, 0, 5, "dog")], 2.0)


# --------------------------------------------------------------------------- writers


def test_write_wav_fuma_roundtrip(tmp_path):
    scene = random_scene(11, n_sources=2, snr_db=25.0)
    x = render_scene(scene).astype(float)
    gain = write_wav(tmp_path / "f.wav", x, SR, channel_order="fuma")
    data, sr = sf.read(tmp_path / "f.wav", always_2d=True)
    assert sr == SR and data.shape == (x.shape[1], 4)
    assert sf.info(str(tmp_path / "f.wav")).subtype == "PCM_16"
    assert np.abs(data).max() == pytest.approx(0.9, abs=1e-4)
    back = to_internal(data.T, "fuma") / gain
    assert np.max(np.abs(back - x)) < 2.0 / 32768 / gain
    g2 = write_wav(tmp_path / "a.wav", x, SR, subtype="FLOAT")
    data2, _ = sf.read(tmp_path / "a.wav", always_2d=True, dtype="float32")
    assert g2 == 1.0 and np.array_equal(data2.T, x.astype(np.float32))
    with pytest.raises(ParameterError, match="channel_order='acn'"):
        write_wav(tmp_path / "b.wav", x, SR, channel_order="acn")


_KEYS = {"qa_id", "split", "audio_id", "audio_path", "task_name", "question_class",
         "answer_format", "question", "answer", "canonical_answer", "answer_meta"}


def _read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_sobench_corpus_records_match_truth(tmp_path):
    scenes = write_sobench_corpus(tmp_path / "c", n_clips=6, seed=3, engine="ism",
                                  duration_s=6.0, n_sources=(2, 3))
    qa = _read_jsonl(tmp_path / "c" / "qa" / "test.jsonl")
    truth = {t["audio_id"]: t for t in _read_jsonl(tmp_path / "c" / "truth" / "scenes.jsonl")}
    assert len(truth) == 6 and len({r["qa_id"] for r in qa}) == len(qa)
    assert {r["task_name"] for r in qa} >= set(GENERATED_TASKS) - {"multi_hop", "compare_distance",
                                                         "compare_elevation"}
    for r in qa:
        assert _KEYS <= set(r)
        assert re.fullmatch(r"qa_[0-9a-f]{20}", r["qa_id"])
        assert re.fullmatch(r"foa_[0-9a-f]{20}", r["audio_id"])
        assert r["audio_path"] == f"audio/test/{r['audio_id']}.wav" and r["split"] == "test"
        assert (tmp_path / "c" / r["audio_path"]).is_file()
        q = r["question"]
        assert q.startswith(PREAMBLES) and q.endswith(ENDINGS[r["task_name"]])
        assert q.count("Answer in one natural sentence") == 1
        scene = Scene.from_dict(truth[r["audio_id"]])
        src = [scene.sources[i] for i in r["source_refs"]]
        meta, canon, task = r["answer_meta"], r["canonical_answer"], r["task_name"]
        if task in ("estimate_azimuth", "estimate_elevation", "estimate_distance",
                    "onset_from_location", "relative_left_right", "identify_source_by_doa",
                    "identify_source_by_location", "spatial_temporal"):
            assert not any(s.is_moving for s in src)
        if task == "estimate_azimuth":
            assert meta["azimuth_deg"] == pytest.approx(src[0].azimuth_deg, abs=0.05)
            assert canon == f"{int(wrap_azimuth(round(src[0].azimuth_deg)))} degrees"
        elif task == "estimate_elevation":
            assert meta["elevation_deg"] == pytest.approx(src[0].elevation_deg, abs=0.05)
        elif task == "estimate_distance":
            assert meta["distance_m"] == pytest.approx(src[0].distance_m, abs=0.005)
            assert canon == f"{src[0].distance_m:.1f} m"
        elif task in ("detect_time", "spatial_temporal"):
            assert meta["time_span"] == [src[0].onset_s, src[0].offset_s]
            assert canon.endswith(f"{src[0].onset_s:.1f}s to {src[0].offset_s:.1f}s")
        elif task == "onset_from_location":
            assert meta["onset_time"] == src[0].onset_s and canon == f"{src[0].onset_s:.1f}s"
        elif task == "count_sources":
            assert meta["active_count"] == len(scene.sources) == int(canon)
        elif task == "relative_left_right":
            a, b = src
            left = np.sin(np.deg2rad(a.azimuth_deg)) > np.sin(np.deg2rad(b.azimuth_deg))
            assert canon == ("left" if left else "right")
        elif task == "compare_elevation":
            assert canon == ("higher" if src[0].elevation_deg > src[1].elevation_deg else "lower")
        elif task == "compare_distance":
            assert canon == ("closer" if src[0].distance_m < src[1].distance_m else "farther")
        elif task == "classify_motion":
            want = {"stationary": "stationary", "right_to_left": "moving left",
                    "left_to_right": "moving right"}[src[0].motion]
            assert canon == want
        elif task in ("identify_source_by_doa", "identify_source_by_location", "detect_source"):
            assert canon == src[0].label and src[0].label in r["answer"]
        else:
            assert task == "multi_hop" and canon in [s.label for s in scene.sources]
        if task in ("estimate_azimuth", "estimate_elevation", "estimate_distance",
                    "detect_time", "count_sources"):  # the regex fallback reads the answer
            first = float(re.search(r"[-+]?\d+(?:\.\d+)?", r["answer"]).group())
            assert first == pytest.approx(float(re.search(r"[-+]?\d+(?:\.\d+)?", canon).group()))
    for t in truth.values():
        data, sr = sf.read(tmp_path / "c" / t["audio_path"])
        assert sr == SR and data.shape == (int(6.0 * SR), 4) and t["wav_gain"] > 0
    # deterministic from the seed
    write_sobench_corpus(tmp_path / "d", n_clips=6, seed=3, engine="ism", duration_s=6.0,
                         n_sources=(2, 3))
    assert (tmp_path / "d/qa/test.jsonl").read_text() == (tmp_path / "c/qa/test.jsonl").read_text()
    assert [s.to_dict() for s in scenes] == [Scene.from_dict(t).to_dict() for t in truth.values()]


def test_question_templates_name_sources_like_sobench():
    for task in GENERATED_TASKS:
        assert len(TEMPLATES[task]) >= 3 and ENDINGS[task].startswith(
            "Answer in one natural sentence")
    scene = Scene([Source(50.0, 20.0, 1.0, 1.0, 3.0, "dog"),
                   Source(-170.0, -10.0, 3.0, 2.5, 6.0, "gong")], 8.0)
    from foakit.bench.sobench.questions_synth import make_qa_items

    seen = set()
    for k in range(40):
        for item in make_qa_items(scene, np.random.default_rng(k)):
            q = item["question"]
            seen.update(re.findall(r"the sound of the \w+|the (?:first|last) sound|the sound "
                                   r"coming from (?:the front-left|behind|about -?\d+ degrees "
                                   r"azimuth)", q))
    assert {"the sound of the dog", "the sound of the gong", "the first sound",
            "the last sound", "the sound coming from the front-left",
            "the sound coming from behind"} <= seen


def test_starss_corpus_csvs_match_truth(tmp_path):
    scenes = write_starss_corpus(tmp_path / "s", n_clips=3, seed=1, engine="ism",
                                 duration_s=5.0, allow_motion=True)
    truth = _read_jsonl(tmp_path / "s" / "truth" / "scenes.jsonl")
    for scene, t in zip(scenes, truth, strict=True):
        name = t["audio_id"]
        data, sr = sf.read(tmp_path / "s" / "foa_dev" / f"{name}.wav")
        assert sr == 24000 and data.shape == (5 * 24000, 4)
        with open(tmp_path / "s" / "metadata_dev" / f"{name}.csv", newline="") as fh:
            rows = [tuple(int(v) for v in row) for row in csv.reader(fh)]
        assert rows == starss_rows(scene) and all(len(r) == 6 for r in rows)
        for s in scene.sources:
            cls = STARSS_CLASSES.index(s.label)
            mine = [r for r in rows if r[1] == cls]
            frames = [r[0] for r in mine]
            assert frames == list(range(round(s.onset_s * 10), round(s.offset_s * 10)))
            assert all(r[5] == round(s.distance_m * 100) for r in mine)
            if not s.is_moving:
                assert {r[3] for r in mine} <= {round(s.azimuth_deg), round(s.azimuth_deg) - 360}
            else:
                assert abs(mine[0][3] - s.azimuth_deg) <= 1 + abs(s.azimuth_change_deg) / len(mine)
    moving = Scene([Source(0.0, 0.0, 1.0, 0.0, 1.0, "dog", azimuth_end_deg=90.0)], 1.0)
    got = [r[3] for r in starss_rows(moving)]
    assert np.allclose(got, 90 * (np.arange(10) + 0.5) / 10, atol=0.51)


def test_demo_corpus_is_quick_and_mixed(tmp_path):
    t0 = time.perf_counter()
    scenes = make_demo_corpus(tmp_path / "demo")
    assert time.perf_counter() - t0 < 10.0
    assert len(scenes) == 8 and sum(s.is_moving for sc in scenes for s in sc.sources) == 1
    assert {sc.rt60_s is None for sc in scenes} == {True, False}
    assert {len(sc.sources) for sc in scenes} == {1, 2, 3}
    assert len(list((tmp_path / "demo" / "audio" / "test").glob("foa_*.wav"))) == 8
    assert _read_jsonl(tmp_path / "demo" / "qa" / "test.jsonl")


def test_writers_label_where_recorded_sources_sound(tmp_path):
    """``recordings`` gives each clip's sources dry signals and the spans where they sound:
    the labels, truth lines and wav files follow that scene; a bad hook is refused."""
    import dataclasses

    def recordings(scene, rng):
        # each source keeps its onset and sounds for 1 s: a noise burst
        sources = [dataclasses.replace(s, offset_s=s.onset_s + 1.0) for s in scene.sources]
        sr = scene.sample_rate
        return (dataclasses.replace(scene, sources=sources),
                [rng.standard_normal(sr) for _ in sources])

    kw = dict(n_clips=2, seed=6, engine="ism", rt60_s=None, snr_db=None, n_sources=1,
              allow_motion=False, duration_s=4.0)
    plain = write_sobench_corpus(tmp_path / "p", **kw)
    scenes = write_sobench_corpus(tmp_path / "r", recordings=recordings, **kw)
    truth = _read_jsonl(tmp_path / "r" / "truth" / "scenes.jsonl")
    for before, scene, t in zip(plain, scenes, truth, strict=True):
        (src,) = t["sources"]
        assert src["onset_s"] == before.sources[0].onset_s
        assert src["offset_s"] == pytest.approx(src["onset_s"] + 1.0)
        assert scene.sources[0].offset_s == pytest.approx(src["offset_s"])
        data, sr = sf.read(tmp_path / "r" / t["audio_path"])
        w = data[:, 0]
        a, b = int(src["onset_s"] * sr), int(src["offset_s"] * sr)
        assert np.sqrt(np.mean(w[a:b] ** 2)) > 0.05 and not np.any(np.abs(w[b + 1:]) > 1e-3)
    starss = write_starss_corpus(tmp_path / "s", recordings=recordings, **kw)
    for scene, t in zip(starss, _read_jsonl(tmp_path / "s" / "truth" / "scenes.jsonl"),
                        strict=True):
        with open(tmp_path / "s" / "metadata_dev" / f"{t['audio_id']}.csv", newline="") as fh:
            rows = [tuple(int(v) for v in row) for row in csv.reader(fh)]
        assert rows == starss_rows(scene) and len(rows) == 10  # 1 s of 100 ms frames
    for bad in (lambda sc, rng: (sc, []), lambda sc, rng: (sc, None),
                lambda sc, rng: (sc.to_dict(), [None])):
        with pytest.raises(ParameterError, match="one signal \\(or None\\) per source"):
            write_sobench_corpus(tmp_path / "bad", recordings=bad, **kw)


def test_writers_label_what_a_turned_microphone_hears(tmp_path):
    """With ``mic_yaw`` the labels and questions give the directions in the turned
    microphone's frame (the wav's own intensity agrees); ``fan`` adds an unlabelled
    interferer; without either the corpus is unchanged."""
    kw = dict(n_clips=3, seed=4, engine="ism", rt60_s=None, snr_db=(30.0, 30.0),
              n_sources=1, allow_motion=False, duration_s=4.0)
    scenes = write_sobench_corpus(tmp_path / "y", mic_yaw=True, **kw)
    truth = _read_jsonl(tmp_path / "y" / "truth" / "scenes.jsonl")
    qa = _read_jsonl(tmp_path / "y" / "qa" / "test.jsonl")
    n_asked = 0
    for scene, t in zip(scenes, truth, strict=True):
        yaw, (src,) = t["mic_yaw_deg"], t["sources"]
        assert t["interferer"] is None and -180 <= yaw < 180 and yaw != 0
        assert src["azimuth_deg"] == pytest.approx(
            float(wrap_azimuth(scene.sources[0].azimuth_deg - yaw)))
        data, _ = sf.read(tmp_path / "y" / t["audio_path"])
        az, el = intensity_direction(to_internal(data.T, "ambix"))
        assert angular_distance(az, el, src["azimuth_deg"], src["elevation_deg"]) < 2.0
        asked = [r for r in qa if r["audio_id"] == t["audio_id"]
                 and r["task_name"] == "estimate_azimuth"]
        for r in asked:
            assert r["answer_meta"]["azimuth_deg"] == pytest.approx(src["azimuth_deg"], abs=0.05)
        n_asked += len(asked)
    assert n_asked >= 1
    write_sobench_corpus(tmp_path / "f", fan=1.0, **kw)
    for t in _read_jsonl(tmp_path / "f" / "truth" / "scenes.jsonl"):
        assert t["mic_yaw_deg"] == 0.0 and 5.0 <= t["interferer"]["snr_db"] <= 15.0
    write_sobench_corpus(tmp_path / "p", **kw)
    plain = _read_jsonl(tmp_path / "p" / "truth" / "scenes.jsonl")
    assert all("mic_yaw_deg" not in t and "interferer" not in t for t in plain)
    starss = write_starss_corpus(tmp_path / "s", mic_yaw=True, fan=1.0, **kw)
    for scene, t in zip(starss, _read_jsonl(tmp_path / "s" / "truth" / "scenes.jsonl"),
                        strict=True):
        with open(tmp_path / "s" / "metadata_dev" / f"{t['audio_id']}.csv", newline="") as fh:
            rows = [tuple(int(v) for v in row) for row in csv.reader(fh)]
        labelled = Scene.from_dict({**scene.to_dict(), "sources": t["sources"]})
        assert rows == starss_rows(labelled) and t["interferer"] is not None
    with pytest.raises(ParameterError, match="fan=1.5 must be in"):
        write_sobench_corpus(tmp_path / "bad", fan=1.5, **kw)
