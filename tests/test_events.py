"""Host-side event steps: the fast forms equal the NumPy calls they stand for."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.conventions import angular_distance, direction_to_vector, vector_to_direction
from foakit.events import (
    Event,
    Track,
    _clip,
    _close,
    _smooth3_rows,
    link_tracks,
    moving_tracks,
)
from foakit.params import AnalysisParams
from foakit.sources import frame_motion, label_frame_motion, onset_line, onset_motion


@given(st.integers(1, 6), st.integers(1, 60), st.integers(0, 30))
def test_smooth3_rows_equals_np_convolve(n_rows, n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n_rows, n)) * 30.0 - 60.0).astype(np.float32)
    x[:, rng.random(n) < 0.3] = -200.0
    kern = np.array([0.25, 0.5, 0.25])
    ref = np.stack([np.convolve(np.pad(r, 1, mode="edge"), kern, mode="valid") for r in x])
    assert np.array_equal(_smooth3_rows(x), ref.astype(np.float32))


def test_clip_equals_np_clip_with_nan_and_signed_zeros():
    vals = [-0.0, 0.0, 0.5, 1.0, -1.0, 2.0, 0.3, 10.0, 11.0, math.nan, math.inf, -math.inf]
    for lo, hi in [(0.0, 1.0), (-0.0, 1.0), (0.3, 10.0), (1.0, 1.0)]:
        for x in vals:
            ref, got = float(np.clip(x, lo, hi)), _clip(x, lo, hi)
            assert (math.isnan(ref) and math.isnan(got)) or (
                ref == got and math.copysign(1.0, ref) == math.copysign(1.0, got))


def test_event_to_dict_rounds_floats_and_drops_non_finite():
    ev = Event(onset_s=0.1234567, offset_s=np.float32(1.5), azimuth_deg=math.nan,
               elevation_deg=np.float64(-3.33333), distance_m=math.inf, motion="stationary",
               source=2)
    d = ev.to_dict()
    assert list(d) == [f.name for f in dataclasses.fields(Event)
                       if f.name not in ("peak_axis", "cone")]
    assert d["onset_s"] == 0.1235 and d["offset_s"] == 1.5 and d["elevation_deg"] == -3.3333
    assert d["azimuth_deg"] is None and d["distance_m"] is None and d["diffuseness"] is None
    assert d["motion"] == "stationary" and d["source"] == 2
    assert all(type(v) in (float, int, str, type(None)) for v in d.values())


def test_link_tracks_follows_sources_within_the_gate():
    params = AnalysisParams()
    peaks = np.zeros((6, 4, 4), np.float32)
    for w in range(6):
        a = np.deg2rad(10.0 * w)  # a source moving 10 degrees per window: one track
        peaks[w, 0] = [np.cos(a), np.sin(a), 0.0, 2.0]
        peaks[w, 1] = [-1.0, 0.0, 0.0, 1.0] if w != 2 else 0.0  # a gap of one window
    tracks = link_tracks(peaks, params)
    assert [tr.windows for tr in tracks] == [list(range(6)), [0, 1, 3, 4, 5]]
    assert tracks[0].weight == 12.0 and tracks[1].vecs[2].dtype == np.float64


def _moving_by_fit(tracks, params):
    """moving_tracks without its shortcut: the straight-line fit of every track."""
    out = []
    for tr in tracks:
        if len(tr.windows) < 4:
            continue
        az, _ = vector_to_direction(np.asarray(tr.vecs))
        az = np.rad2deg(np.unwrap(np.deg2rad(az)))
        w = np.asarray(tr.windows, dtype=float)
        slope, icpt = np.polyfit(w, az, 1, w=np.sqrt(np.asarray(tr.weights)))
        resid = np.median(np.abs(az - (icpt + slope * w)))
        if (abs(slope * (w[-1] - w[0])) >= 2 * params.motion_min_deg
                and resid < params.track_gate_deg / 2):
            out.append(tr)
    return out


@settings(max_examples=300)
@given(st.integers(4, 26), st.sampled_from([0.0, 1.0, 3.0, 10.0, 30.0]),
       st.sampled_from([0.5, 5.0, 20.0, 60.0]), st.integers(0, 10_000))
def test_moving_tracks_shortcut_keeps_the_fits_decisions(m, rate, noise, seed):
    rng = np.random.default_rng(seed)
    windows = sorted(rng.choice(40, size=m, replace=False).tolist())
    az = rng.uniform(-180, 180) + rate * np.asarray(windows) + rng.normal(size=m) * noise
    el = rng.uniform(-80, 80) + rng.normal(size=m) * 3.0
    vecs = direction_to_vector(az, el).astype(np.float32).astype(np.float64)
    weights = (rng.random(m) ** 2 * 10 + 1e-6).astype(np.float32).astype(float).tolist()
    tracks = [Track(windows, list(vecs), weights)]
    params = AnalysisParams()
    assert len(moving_tracks(tracks, params)) == len(_moving_by_fit(tracks, params))


@given(st.floats(-180, 180), st.floats(-90, 90), st.floats(-40, 40), st.floats(-20, 20))
def test_close_is_angular_distance_within_the_gate(az, el, daz, del_):
    a, b = Event(0.0, 1.0, az, el), Event(0.0, 1.0, az + daz, max(-90.0, min(90.0, el + del_)))
    d = float(angular_distance(a.azimuth_deg, a.elevation_deg, b.azimuth_deg, b.elevation_deg))
    for deg in (d, float(np.nextafter(d, -1.0)), 30.0):
        assert _close(a, b, deg) == (d <= deg)


@given(st.lists(st.floats(0.0, 1e6, width=32), max_size=200))
def test_track_weight_is_np_sum(values):
    got = Track(list(range(len(values))), [], values).weight
    ref = float(np.sum(values))
    assert got == ref and math.copysign(1.0, got) == math.copysign(1.0, ref)


def _frame_doa(az, el=0.0, weight=1.0):
    doa = np.zeros((len(az), 4))
    doa[:, :3] = direction_to_vector(az, el)
    doa[:, 3] = weight
    return doa


def test_frame_motion_finds_a_steady_sweep_and_its_ends():
    """50 frames/s, 3 s sweeping 60 deg with +-5 deg jitter: right_to_left (azimuth rising)."""
    rng = np.random.default_rng(0)
    n = 150
    az = np.linspace(-30, 30, n) + rng.uniform(-5, 5, n)
    fit = frame_motion(_frame_doa(az), direction_to_vector(0.0, 0.0), frame_rate=50.0,
                       params=AnalysisParams(motion_frame_cone_deg=40.0))
    assert fit is not None
    start, change = fit
    assert abs(start + 30) < 4 and abs(change - 60) < 6
    # the cone keeps out another source's frames: every third frame, louder, from a
    # direction that moves the other way
    az2 = az.copy()
    az2[::3] = np.linspace(150, 90, n)[::3]
    doa2 = _frame_doa(az2)
    doa2[::3, 3] = 3.0
    fit2 = frame_motion(doa2, direction_to_vector(0.0, 0.0), frame_rate=50.0,
                        params=AnalysisParams(motion_frame_cone_deg=40.0))
    assert fit2 is not None and abs(fit2[1] - 60) < 8


@given(st.floats(-180, 180), st.floats(0, 12), st.integers(0, 50))
@settings(max_examples=30)
def test_frame_motion_leaves_a_scattered_stationary_source(az0, jitter, seed):
    rng = np.random.default_rng(seed)
    az = az0 + rng.uniform(-jitter, jitter, 200)
    assert frame_motion(_frame_doa(az), direction_to_vector(az0, 0.0), frame_rate=50.0,
                        params=AnalysisParams()) is None


def test_frame_motion_needs_a_fit_and_enough_frames():
    p = AnalysisParams(motion_frame_cone_deg=60.0)
    axis = direction_to_vector(0.0, 0.0)
    # a 40 deg change whose blocks jump about it by +-40 deg: no straight line
    rng = np.random.default_rng(3)
    az = np.linspace(-20, 20, 200) + np.repeat(rng.choice([-40.0, 40.0], 20), 10)
    assert frame_motion(_frame_doa(az), axis, frame_rate=50.0, params=p) is None
    # a clean sweep of 14 frames (under 1.5 blocks) or with no voted frames: too little
    assert frame_motion(_frame_doa(np.linspace(-30, 30, 14)), axis, frame_rate=50.0,
                        params=p) is None
    assert frame_motion(_frame_doa(np.linspace(-30, 30, 100), weight=0.0), axis,
                        frame_rate=50.0, params=p) is None
    # and a change below motion_frame_min_deg
    assert frame_motion(_frame_doa(np.linspace(-10, 10, 100)), axis, frame_rate=50.0,
                        params=p) is None


def test_label_frame_motion_relabels_only_stationary_events():
    doa = _frame_doa(np.concatenate([np.zeros(50), np.linspace(60, -20, 150)]))
    still = Event(0.0, 1.0, 0.0, 0.0, motion="stationary")
    sweep = Event(1.0, 4.0, 20.0, 0.0, motion="stationary")
    moving = Event(1.0, 4.0, 20.0, 0.0, motion="right_to_left", azimuth_start_deg=0.0,
                   azimuth_end_deg=40.0)
    p = AnalysisParams(motion_frame_cone_deg=50.0)
    label_frame_motion([still, sweep, moving], doa, frame_rate=50.0, params=p)
    assert still.motion == "stationary"
    assert sweep.motion == "left_to_right"
    assert abs(sweep.azimuth_start_deg - 60) < 3 and abs(sweep.azimuth_end_deg + 20) < 3
    assert moving.motion == "right_to_left" and moving.azimuth_end_deg == 40.0
    off = Event(1.0, 4.0, 20.0, 0.0, motion="stationary")
    label_frame_motion([off], doa, frame_rate=50.0,
                       params=AnalysisParams(motion_frame_min_deg=0.0))
    assert off.motion == "stationary"


def test_label_frame_motion_looks_around_the_peak_axis_which_is_not_output():
    """An event reported away from its clip peak (its onset bins point elsewhere) is tested
    around the peak, where the frames sweep."""
    doa = _frame_doa(np.linspace(60, -20, 150))
    p = AnalysisParams(motion_frame_cone_deg=50.0)
    away = Event(0.0, 3.0, 120.0, 40.0, motion="stationary")
    label_frame_motion([away], doa, frame_rate=50.0, params=p)
    assert away.motion == "stationary"  # no frame within 50 deg of (120, 40)
    peak = Event(0.0, 3.0, 120.0, 40.0, motion="stationary",
                 peak_axis=direction_to_vector(20.0, 0.0))
    label_frame_motion([peak], doa, frame_rate=50.0, params=p)
    assert peak.motion == "left_to_right"
    assert "peak_axis" not in peak.to_dict() and "motion" in peak.to_dict()


@given(st.floats(-180, 180), st.floats(30, 120), st.sampled_from([-1, 1]), st.integers(0, 20))
@settings(max_examples=40)
def test_frame_motion_is_rotation_invariant_across_the_wrap(rot, span, sign, seed):
    """Rotating the frames and the event's direction together (paths crossing +-180 deg
    included) moves the fitted start by the rotation and keeps the change."""
    rng = np.random.default_rng(seed)
    az = sign * np.linspace(-span / 2, span / 2, 200) + rng.uniform(-3, 3, 200)
    p = AnalysisParams(motion_frame_cone_deg=70.0)
    ref = frame_motion(_frame_doa(az), direction_to_vector(0.0, 0.0), frame_rate=50.0,
                       params=p)
    got = frame_motion(_frame_doa((az + rot + 180) % 360 - 180), direction_to_vector(rot, 0.0),
                       frame_rate=50.0, params=p)
    assert ref is not None and got is not None
    assert abs(got[1] - ref[1]) < 1e-6 * max(1.0, abs(ref[1]))
    assert abs((got[0] - ref[0] - rot + 180) % 360 - 180) < 1e-6
    assert np.sign(ref[1]) == sign


def _onset_bins(az, n_bins=4.0, el=0.0):
    """Cone channels 5-8 of frames whose onset bins point at ``az`` (NaN: no onset bin)."""
    az = np.asarray(az, dtype=np.float64)
    on = np.isfinite(az)
    vec = np.zeros((len(az), 3))
    vec[on] = n_bins * direction_to_vector(az[on], el)
    return vec, np.where(on, n_bins, 0.0)


def test_onset_motion_finds_a_steady_sweep_and_its_ends():
    """50 frames/s, 4 s crossing the cone from -20 to +20 deg, onset bins in a third of the
    frames with +-4 deg jitter: right_to_left (azimuth rising) from about -20 deg."""
    rng = np.random.default_rng(1)
    n = 200
    az = np.linspace(-20, 20, n) + rng.uniform(-4, 4, n)
    az[rng.random(n) < 2 / 3] = np.nan
    vec, cnt = _onset_bins(az)
    fit = onset_motion(vec, cnt, frame_rate=50.0, params=AnalysisParams())
    assert fit is not None
    start, change = fit
    assert abs(start + 20) < 4 and abs(change - 40) < 6
    # the other way round, through +-180 deg
    vec, cnt = _onset_bins((170 - np.linspace(0, 40, n) + 180) % 360 - 180)
    start, change = onset_motion(vec, cnt, frame_rate=50.0, params=AnalysisParams())
    assert abs(start - 170) < 2 and abs(change + 40) < 2


@given(st.floats(-180, 180), st.floats(0, 10), st.floats(0.1, 1.0), st.integers(0, 50))
@settings(max_examples=30)
def test_onset_motion_leaves_a_scattered_stationary_source(az0, jitter, share, seed):
    rng = np.random.default_rng(seed)
    az = az0 + rng.uniform(-jitter, jitter, 250)
    az[rng.random(250) > share] = np.nan
    vec, cnt = _onset_bins(az)
    assert onset_motion(vec, cnt, frame_rate=50.0, params=AnalysisParams()) is None


def test_onset_motion_needs_blocks_with_enough_onset_bins_and_a_large_change():
    p = AnalysisParams()  # 0.4 s blocks (20 frames), 3 onset bins, 35 deg at 3 blocks
    sweep = np.linspace(-30, 30, 200)
    # a sweep over only 2.2 s: 5 blocks, fine; over 1.1 s: 2 blocks, too few
    assert onset_motion(*_onset_bins(sweep[:110]), frame_rate=50.0, params=p) is not None
    assert onset_motion(*_onset_bins(sweep[:55]), frame_rate=50.0, params=p) is None
    # onset bins in only two blocks: no line
    sparse = np.full(200, np.nan)
    sparse[:20], sparse[180:] = -30.0, 30.0
    assert onset_motion(*_onset_bins(sparse), frame_rate=50.0, params=p) is None
    # one onset bin per block, under motion_onset_min_bins
    one = np.full(200, np.nan)
    one[::20] = sweep[::20]
    assert onset_motion(*_onset_bins(one, n_bins=1.0), frame_rate=50.0, params=p) is None
    assert onset_motion(*_onset_bins(one, n_bins=1.0), frame_rate=50.0,
                        params=AnalysisParams(motion_onset_min_bins=1)) is not None
    # the change needed falls as 1 / sqrt(blocks): 35 deg over 3 blocks, 19.2 over 10
    for frames, change, moving in ((60, 30.0, False), (60, 36.0, True), (200, 18.0, False),
                                   (200, 20.0, True)):
        sweep = np.linspace(-change / 2, change / 2, frames)
        fit = onset_motion(*_onset_bins(sweep), frame_rate=50.0, params=p)
        assert (fit is not None) == moving, (frames, change)
        if moving:
            assert abs(fit[1] - change) < 0.05 * change  # over n frames, not n - 1
    small = np.linspace(-9, 9, 200)
    assert onset_motion(*_onset_bins(small), frame_rate=50.0,
                        params=AnalysisParams(motion_onset_min_deg=30.0)) is not None
    # blocks count up to 25 (a 10 s event): 13 deg over 10 s is motion, 10 deg over 60 s not
    assert onset_motion(*_onset_bins(np.linspace(0, 13, 500)), frame_rate=50.0,
                        params=p) is not None
    assert onset_motion(*_onset_bins(np.linspace(0, 10, 3000)), frame_rate=50.0,
                        params=p) is None


@given(st.floats(-180, 180), st.floats(0, 60), st.sampled_from([-1, 1]), st.floats(0, 8),
       st.integers(30, 600), st.integers(0, 50))
@settings(max_examples=40)
def test_onset_motion_is_the_onset_line_past_its_threshold(az0, span, sign, jitter, n, seed):
    rng = np.random.default_rng(seed)
    az = az0 + sign * np.linspace(0, span, n) + rng.uniform(-jitter, jitter, n)
    az[rng.random(n) < 0.5] = np.nan
    vec, cnt = _onset_bins((az + 180) % 360 - 180)
    p = AnalysisParams()
    line = onset_line(vec, cnt, frame_rate=50.0, params=p)
    fit = onset_motion(vec, cnt, frame_rate=50.0, params=p)
    if line is None or abs(line[1]) < line[2]:
        assert fit is None
    else:
        assert fit == line[:2]
    # 0.4 s blocks (20 frames) with an onset bin (4 each); the threshold 35 deg x
    # sqrt(3 / k) for k such blocks, counted up to 25
    nb = n // 20
    k = int(np.isfinite(az[: nb * 20]).reshape(nb, 20).any(axis=1).sum())
    assert (line is None) == (k < 3)
    if line is not None:
        assert line[2] == pytest.approx(35.0 * math.sqrt(3.0 / min(k, 25)))


def test_frame_motion_takes_a_threshold_of_its_own():
    axis = direction_to_vector(0.0, 0.0)
    doa = _frame_doa(np.linspace(-10, 10, 150))
    p = AnalysisParams()
    assert frame_motion(doa, axis, frame_rate=50.0, params=p) is None
    fit = frame_motion(doa, axis, frame_rate=50.0, params=p, min_deg=15.0)
    assert fit is not None and abs(fit[1] - 20) < 1
    assert frame_motion(doa, axis, frame_rate=50.0, params=p, min_deg=21.0) is None
    tiny = _frame_doa(np.linspace(-2, 2, 150))
    assert frame_motion(tiny, axis, frame_rate=50.0, params=p, min_deg=0.0) is not None


def test_onset_motion_skips_blocks_with_non_finite_bins():
    vec, cnt = _onset_bins(np.linspace(-30, 30, 200))
    vec[5] = np.nan
    vec[47, 1] = np.inf
    fit = onset_motion(vec, cnt, frame_rate=50.0, params=AnalysisParams())
    assert fit is not None and np.isfinite(fit).all() and abs(fit[1] - 60) < 4


def _cones_with_onsets(*paths):
    """Cones (n_cones, n_frames, 10) whose channels 5-8 hold onset bins along ``paths``."""
    n = len(paths[0])
    cones = np.zeros((len(paths), n, 10), np.float32)
    for k, az in enumerate(paths):
        vec, cnt = _onset_bins(az)
        cones[k, :, 5:8], cones[k, :, 8] = vec, cnt
    return cones


def test_label_frame_motion_reads_the_onset_bins_of_the_event_cone():
    """A clip peak's event whose frames show nothing (no frame voted) gets the motion of
    its cone's onset bins; a moving track's event (no peak axis), an event without a cone,
    cones without the onset channels, none, and ``motion_onset_min_deg = 0`` leave it
    stationary."""
    n = 200
    cones = _cones_with_onsets(np.full(n, 90.0), np.linspace(20, -20, n))
    doa = np.zeros((n, 4))
    axis = direction_to_vector(0.0, 0.0)

    def event(**kw):
        return Event(0.0, 4.0, 0.0, 0.0, motion="stationary", **kw)

    p = AnalysisParams()
    ev, still, track, lost = (event(peak_axis=axis, cone=1), event(peak_axis=axis, cone=0),
                              event(cone=1), event(peak_axis=axis))
    label_frame_motion([ev, still, track, lost], doa, frame_rate=50.0, params=p, cones=cones)
    assert ev.motion == "left_to_right"
    assert abs(ev.azimuth_start_deg - 20) < 2 and abs(ev.azimuth_end_deg + 20) < 2
    assert still.motion == track.motion == lost.motion == "stationary"
    assert "cone" not in ev.to_dict()
    for params, c in ((AnalysisParams(motion_onset_min_deg=0.0), cones), (p, cones[..., :8]),
                      (p, None)):
        ev = event(peak_axis=axis, cone=1)
        label_frame_motion([ev], doa, frame_rate=50.0, params=params, cones=c)
        assert ev.motion == "stationary"
    # the onset bins come first; the frames are read when the bins give no line (cone 2)
    # or one that changes the frames' way (below); a line that stays put (cone 0) votes the
    # frames' motion down
    frames = _frame_doa(np.linspace(-40, 40, n))
    cones = _cones_with_onsets(np.full(n, 90.0), np.linspace(20, -20, n), np.full(n, np.nan))
    for k, want in ((1, "left_to_right"), (2, "right_to_left"), (0, "stationary")):
        ev = event(peak_axis=axis, cone=k)
        label_frame_motion([ev], frames, frame_rate=50.0,
                           params=AnalysisParams(motion_frame_cone_deg=50.0), cones=cones)
        assert ev.motion == want, k


def test_label_frame_motion_frames_need_the_onset_line_to_agree():
    """A cone whose onset bins give a line (10 blocks: motion at 19.2 deg) that falls short
    votes on the frames' motion: it stands only when the line changes the same way by at
    least 0.4 x 19.2 = 7.7 deg, and then 15 deg of frame change is enough, not 25."""
    n = 200
    axis = direction_to_vector(0.0, 0.0)
    lines = {"none": np.full(n, np.nan), "still": np.zeros(n),
             "agrees": np.linspace(5, -5, n), "opposes": np.linspace(-5, 5, n),
             "too small": np.linspace(2, -2, n)}
    cones = _cones_with_onsets(*lines.values())

    def label(frame_az, params=None):
        params = params or AnalysisParams()
        out = {}
        for k, name in enumerate(lines):
            ev = Event(0.0, 4.0, 0.0, 0.0, motion="stationary", peak_axis=axis, cone=k)
            label_frame_motion([ev], _frame_doa(frame_az), frame_rate=50.0, params=params,
                               cones=cones)
            out[name] = ev.motion
        return out

    # frames moving 28 deg left to right: the bins without a line or agreeing let it stand
    big = label(np.linspace(14, -14, n))
    assert big == {"none": "left_to_right", "still": "stationary", "agrees": "left_to_right",
                   "opposes": "stationary", "too small": "stationary"}
    # 20 deg: under motion_frame_min_deg, over motion_frame_agreed_deg
    small = label(np.linspace(10, -10, n))
    assert small == {"none": "stationary", "still": "stationary", "agrees": "left_to_right",
                     "opposes": "stationary", "too small": "stationary"}
    # motion_frame_agreed_deg counts up to motion_frame_min_deg only: 28 deg as before
    assert label(np.linspace(14, -14, n), AnalysisParams(motion_frame_agreed_deg=30.0)) == big
    # motion_onset_agree = 0: the line's sense alone
    loose = label(np.linspace(14, -14, n), AnalysisParams(motion_onset_agree=0.0))
    assert loose["too small"] == "left_to_right" and loose["opposes"] == "stationary"
    # the onset bins off: the frames alone, at motion_frame_min_deg
    off = label(np.linspace(14, -14, n), AnalysisParams(motion_onset_min_deg=0.0))
    assert off == {k: "left_to_right" for k in lines}
    assert label(np.linspace(10, -10, n), AnalysisParams(motion_onset_min_deg=0.0)) == {
        k: "stationary" for k in lines}


def test_events_from_cones_record_their_cone():
    from foakit.events import events_from_cones

    n = 100
    cones = np.zeros((2, n, 10), np.float32)
    cones[1, 20:70, 0] = 1.0
    cones[1, 20:70, 3] = 1.0
    axes = np.zeros((2, n, 3), np.float32)
    axes[:, :, 0] = 1.0
    axes[0, :, :] = direction_to_vector(90.0, 0.0)
    events = events_from_cones(cones, axes, np.zeros(n, bool), np.zeros((n, 4)),
                               frame_rate=50.0, power_scale=1.0, params=AnalysisParams(),
                               onset_support=False)
    assert [e.cone for e in events] == [1]


def test_merged_duplicates_keep_the_cone_of_the_direction_they_keep():
    from foakit.events import _merge_duplicates

    a = Event(1.0, 3.0, 0.0, 0.0, motion="stationary", confidence=0.2,
              peak_axis=direction_to_vector(0.0, 0.0), cone=0)
    b = Event(2.0, 6.0, 10.0, 0.0, motion="stationary", confidence=0.8,
              peak_axis=direction_to_vector(10.0, 0.0), cone=1)
    (m,) = _merge_duplicates([a, b], AnalysisParams())
    assert m.azimuth_deg == 10.0 and m.cone == 1 and m.offset_s == 6.0
