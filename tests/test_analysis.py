import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.analysis import FRAME_COLUMNS, analyze_samples, detect_activity
from foakit.conventions import angular_distance
from foakit.errors import ParameterError
from foakit.events import NO_DISTANCE
from foakit.kernels.activity import cone_levels, median_f32, percentile_pair
from foakit.params import AnalysisParams

from .scenes import plane_wave_scene


@pytest.mark.slow
@settings(max_examples=12)
@given(st.floats(-180, 179.9), st.floats(-75, 75))
def test_anechoic_plane_wave_direction_within_2_degrees(az, el):
    x = plane_wave_scene([(az, el, 0.5, 2.5)], duration=3.0, snr_db=20)
    res = analyze_samples(x, 16000)
    assert len(res.events) == 1 and res.n_sources == 1
    ev = res.events[0]
    assert angular_distance(ev.azimuth_deg, ev.elevation_deg, az, el) < 2.0
    assert abs(((ev.azimuth_deg - az) + 180) % 360 - 180) < 2.0
    assert abs(ev.elevation_deg - el) < 2.0
    assert abs(ev.onset_s - 0.5) < 0.1 and abs(ev.offset_s - 2.5) < 0.1
    assert ev.motion == "stationary"
    assert -180 <= ev.azimuth_deg < 180


def test_overlapping_sources_become_separate_events():
    truth = [(60, 20, 1.0, 6.0), (-100, -10, 4.0, 9.0)]
    x = plane_wave_scene(truth, duration=10.0, snr_db=10)
    res = analyze_samples(x, 16000)
    assert res.n_sources == 2 and len(res.events) == 2
    for (az, el, on, off), ev in zip(truth, sorted(res.events, key=lambda e: e.onset_s),
                                     strict=True):
        assert angular_distance(ev.azimuth_deg, ev.elevation_deg, az, el) < 3
        assert abs(ev.onset_s - on) < 0.2 and abs(ev.offset_s - off) < 0.2
    # the frame table knows which source is where
    src = res.frames["source"]
    t = res.frames["time_s"]
    assert set(src[(t > 2) & (t < 3.5)]) == {res.events[0].source}


def test_moving_source_is_one_event_with_motion():
    from foakit.conventions import encode_plane_wave

    sr, n = 16000, 16000 * 6
    s = np.random.default_rng(2).normal(size=n) * 0.1
    az = np.linspace(80, -80, n)  # from the left to the right
    x = encode_plane_wave(s, az, 0.0).astype(np.float32)
    res = analyze_samples(x, sr)
    assert len(res.events) == 1
    ev = res.events[0]
    assert ev.motion == "left_to_right"
    assert ev.azimuth_start_deg > 40 and ev.azimuth_end_deg < -40
    x2 = encode_plane_wave(s, az[::-1], 0.0).astype(np.float32)
    assert analyze_samples(x2, sr).events[0].motion == "right_to_left"


def test_silent_clip_has_no_events():
    res = analyze_samples(np.zeros((4, 32000), np.float32), 16000)
    assert res.events == [] and res.n_sources == 0
    assert not res.frames["active"].any()


def test_mono_and_stereo_get_activity_but_no_directions():
    x = plane_wave_scene([(0, 0, 1.0, 2.0)], duration=3.0, snr_db=20)
    for ch in (x[:1], x[:2]):
        res = analyze_samples(ch, 16000)
        assert res.n_sources is None and len(res.events) == 1
        ev = res.events[0]
        assert ev.azimuth_deg is None and ev.elevation_deg is None
        assert abs(ev.onset_s - 1.0) < 0.1 and abs(ev.offset_s - 2.0) < 0.1
        assert np.isnan(res.frames["azimuth_deg"]).all()


def test_frame_table_columns_and_times():
    x = plane_wave_scene([(0, 0, 0.2, 0.8)], duration=1.0)
    res = analyze_samples(x, 16000)
    assert set(FRAME_COLUMNS) == set(res.frames)
    assert all(len(v) == 51 for v in res.frames.values())
    assert res.frames["time_s"][1] == pytest.approx(0.02)


def test_activity_hysteresis_min_duration_and_gap_merging():
    p = AnalysisParams()
    level = np.full(200, -60.0, np.float32)
    level[50:100] = -30.0   # a 1 s event
    level[70:75] = -58.0    # a 0.1 s dip: merged
    level[150:153] = -30.0  # 60 ms blip: too short
    act = detect_activity(level, p, 50.0)
    assert act[50:100].all() and not act[:50].any() and not act[140:].any()


def test_whole_clip_sound_is_active_quiet_clip_is_not():
    p = AnalysisParams()
    assert detect_activity(np.full(100, -20.0, np.float32), p, 50.0).all()
    assert not detect_activity(np.full(100, -90.0, np.float32), p, 50.0).any()


def test_bad_shapes_and_params():
    with pytest.raises(ParameterError, match="shape"):
        analyze_samples(np.zeros((3, 100), np.float32), 16000)
    with pytest.raises(ParameterError, match="psi_max"):
        AnalysisParams(psi_max=0.0)
    with pytest.raises(ParameterError, match="unknown analysis parameters"):
        AnalysisParams.from_dict({"nope": 1})


@settings(max_examples=8)
@given(st.floats(-180, 180), st.floats(-45, 45), st.floats(-180, 180))
def test_rotating_the_scene_rotates_event_azimuths(az, el, rot):
    """Rotating X/Y about the vertical moves every event's azimuth by the rotation."""
    x = plane_wave_scene([(az, el, 0.4, 2.0)], duration=2.5, snr_db=25, seed=3)
    r = np.deg2rad(rot)
    w, y, z, xx = x
    rotated = np.stack([w, np.sin(r) * xx + np.cos(r) * y, z,
                        np.cos(r) * xx - np.sin(r) * y]).astype(np.float32)
    e0 = analyze_samples(x, 16000).events[0]
    e1 = analyze_samples(rotated, 16000).events[0]
    assert abs(((e1.azimuth_deg - e0.azimuth_deg - rot) + 180) % 360 - 180) < 1.0
    assert abs(e1.elevation_deg - e0.elevation_deg) < 1.0
    assert abs(e1.onset_s - e0.onset_s) < 0.05


def test_known_scene_from_synth_with_reverberation():
    """A near source in a lively room (built-in ISM engine): direction and timing."""
    from foakit.synth import Scene, Source, render_scene

    scene = Scene(sources=[Source(azimuth_deg=-60.0, elevation_deg=10.0, distance_m=1.0,
                                  onset_s=1.0, offset_s=4.0, label="speech")],
                  duration_s=5.0, snr_db=25.0, rt60_s=0.3, seed=4)
    res = analyze_samples(render_scene(scene, engine="ism"), 16000)
    best = max(res.events, key=lambda e: e.confidence)
    assert angular_distance(best.azimuth_deg, best.elevation_deg, -60, 10) < 15
    assert abs(best.onset_s - 1.0) < 0.2 and abs(best.offset_s - 4.0) < 0.4
    # a room: the diffuseness proxy gives a distance (1 m, under the room's r_c)
    assert best.distance_proxy == "diffuseness" and 0.3 <= best.distance_m <= 2.0


def test_known_anechoic_scene_three_sources_from_synth():
    from foakit.synth import Scene, Source, render_scene

    truth = [(100.0, 20.0, 0.5, 3.0, "dog"), (-30.0, -10.0, 2.0, 5.0, "speech"),
             (-150.0, 30.0, 4.0, 7.0, "alarm")]
    scene = Scene(sources=[Source(azimuth_deg=a, elevation_deg=e, distance_m=1.5, onset_s=on,
                                  offset_s=off, label=lab) for a, e, on, off, lab in truth],
                  duration_s=8.0, snr_db=20.0, seed=5)
    res = analyze_samples(render_scene(scene), 16000)
    assert res.n_sources == 3
    for a, e, on, _, _ in truth:
        ev = min(res.events, key=lambda v: angular_distance(v.azimuth_deg, v.elevation_deg, a, e))
        assert angular_distance(ev.azimuth_deg, ev.elevation_deg, a, e) < 3
        assert abs(ev.onset_s - on) < 0.2
        # no reverberation, nothing to weigh the direct sound against: no distance
        assert ev.distance_m is None and ev.distance_proxy == NO_DISTANCE
    # distance_min_psi = 0 gives the proxy's reading anyway (of the noise, here)
    forced = analyze_samples(render_scene(scene), 16000,
                             params=AnalysisParams(distance_min_psi=0.0))
    assert all(e.distance_proxy == "diffuseness" and e.distance_m is not None
               for e in forced.events)


@given(st.integers(1, 700), st.sampled_from([(10.0, 95.0), (0.0, 100.0), (3.7, 50.0)]),
       st.integers(0, 40))
def test_percentile_pair_is_numpys(n, qs, seed):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3) - 60.0).astype(np.float32)
    x[rng.random(n) < 0.3] = np.float32(-120.0)  # ties
    got = percentile_pair(x, *qs)
    assert got == tuple(float(np.percentile(x, q)) for q in qs)


@given(st.integers(1, 600), st.integers(0, 40))
def test_median_f32_is_numpys(n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3) - 60.0).astype(np.float32)
    x[rng.random(n) < 0.3] = np.float32(-120.0)
    assert median_f32(x) == float(np.median(x))


@given(st.integers(1, 5), st.integers(1, 400), st.integers(0, 40))
def test_cone_levels_are_numpys_row_percentiles_and_medians(n_cones, n, seed):
    rng = np.random.default_rng(seed)
    level = (rng.normal(size=(n_cones, n)) * 20.0 - 60.0).astype(np.float32)
    span = rng.random((n_cones, n)) < rng.uniform(0.0, 1.2, size=(n_cones, 1))
    quiet = rng.random(n) < rng.uniform(0.0, 1.0)
    ref, noise = np.empty(n_cones, np.float32), np.empty(n_cones)
    cone_levels(level, span, quiet, 10, 95.0, ref, noise)
    want_ref = [np.percentile(level[k, span[k]], 95) if span[k].any() else -200.0
                for k in range(n_cones)]
    want_noise = [float(np.median(level[k, quiet])) if quiet.sum() >= 10 else -200.0
                  for k in range(n_cones)]
    assert np.array_equal(ref, np.array(want_ref, np.float32))
    assert noise.tolist() == want_noise
