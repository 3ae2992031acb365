"""Host-side event steps: the fast forms equal the NumPy calls they stand for."""

import dataclasses
import math

import numpy as np
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
    assert list(d) == [f.name for f in dataclasses.fields(Event)]
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
