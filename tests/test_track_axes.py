"""Stationary window-peak tracks as constant cone axes (``track_axis_windows``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from foakit.analysis import _with_track_axes
from foakit.conventions import direction_to_vector, vector_to_direction
from foakit.errors import ParameterError
from foakit.events import Track
from foakit.params import AnalysisParams

N_FRAMES = 240
P = AnalysisParams(track_axis_windows=5, track_axis_sep_deg=40.0)


def _vec(az: float, el: float = 0.0) -> np.ndarray:
    return np.asarray(direction_to_vector(az, el), dtype=np.float64)


def _track(az: float, n: int, *, start: int = 0, el: float = 0.0) -> Track:
    return Track(list(range(start, start + n)), [_vec(az, el) for _ in range(n)], [1.0] * n)


def _axes(*azimuths: float) -> np.ndarray:
    return np.stack([np.broadcast_to(_vec(az).astype(np.float32), (N_FRAMES, 3))
                     for az in azimuths]) if azimuths else np.zeros((0, N_FRAMES, 3), np.float32)


def _azimuths(axes: np.ndarray) -> list[float]:
    az, _ = vector_to_direction(axes[:, 0].astype(np.float64))
    return [round(float(a), 3) for a in np.atleast_1d(az)]


def test_a_long_stationary_track_away_from_the_axes_becomes_a_constant_axis():
    axes = _axes(0.0)
    out = _with_track_axes(axes, [_track(90.0, 5)], [], P)
    assert out.shape == (2, N_FRAMES, 3) and out.dtype == np.float32
    np.testing.assert_array_equal(out[0], axes[0])  # after the others: the weakest
    assert _azimuths(out) == [0.0, 90.0]
    # the same direction over the whole clip, not only the track's windows
    np.testing.assert_allclose(out[1], np.broadcast_to(_vec(90.0), (N_FRAMES, 3)), atol=1e-6)


def test_short_moving_or_close_tracks_add_nothing():
    axes = _axes(0.0)
    assert _with_track_axes(axes, [_track(90.0, 4)], [], P) is axes
    moving = _track(90.0, 8)
    assert _with_track_axes(axes, [moving], [moving], P) is axes
    assert _with_track_axes(axes, [_track(35.0, 8)], [], P) is axes
    assert _azimuths(_with_track_axes(axes, [_track(45.0, 8)], [], P)) == [0.0, 45.0]
    # elevation counts too: 30 deg up from the axis is close, 50 deg is not
    assert _with_track_axes(axes, [_track(0.0, 8, el=30.0)], [], P) is axes
    assert len(_with_track_axes(axes, [_track(0.0, 8, el=50.0)], [], P)) == 2


def test_a_moving_axis_is_compared_by_its_mean_direction_over_its_span():
    moving = np.zeros((1, N_FRAMES, 3), np.float32)
    for f, az in zip(range(60, 180), np.linspace(0.0, 60.0, 120), strict=True):
        moving[0, f] = _vec(az)
    assert _with_track_axes(moving, [_track(60.0, 8)], [], P) is moving  # 30 deg from 30
    assert _azimuths(_with_track_axes(moving, [_track(80.0, 8)], [], P))[1:] == [80.0]


def test_the_longest_of_close_tracks_is_taken_and_weights_set_its_direction():
    weighted = Track([0, 1, 2, 3, 4, 5], [_vec(a) for a in (100, 100, 100, 100, 140, 140)],
                     [1.0, 1.0, 1.0, 1.0, 2.0, 2.0])
    out = _with_track_axes(_axes(), [_track(95.0, 5), weighted], [], P)
    assert len(out) == 1
    az, _ = vector_to_direction(out[0, 0].astype(np.float64))
    assert float(az) == pytest.approx(120.0, abs=0.01)  # 4 x 100 and 4 x 140 (weights 2)


def test_a_clip_without_axes_and_the_switch():
    tracks = [_track(90.0, 6), _track(-90.0, 5)]
    assert _azimuths(_with_track_axes(_axes(), tracks, [], P)) == [90.0, -90.0]
    off = dataclasses.replace(P, track_axis_windows=0)
    axes = _axes(0.0)
    assert _with_track_axes(axes, tracks, [], off) is axes


@pytest.mark.parametrize("kw", [dict(track_axis_windows=-1), dict(track_axis_sep_deg=0.0),
                                dict(track_axis_sep_deg=181.0)])
def test_bad_track_axis_settings_are_refused(kw):
    name = next(iter(kw))
    with pytest.raises(ParameterError, match=name):
        AnalysisParams(**kw)


def test_the_audits_run_without_track_axes():
    from foakit.audit.preset import AUDIT_PARAMS

    assert AUDIT_PARAMS.track_axis_windows == 0


def test_a_rendered_room_finds_the_source_the_clip_histogram_outvotes(bench_script):
    """Clip 8 of the tuned fan / yaw set with a fifth moving (pyroomacoustics, seed 2): two
    sources 40 deg apart, at (-129, 35) from 2.1 s and (-95, -10) from 4.4 s.  The clip
    histogram holds one peak between them; the second source's window peaks make a track."""
    from foakit.analysis import analyze_samples
    from foakit.evaluate import match_clip
    from foakit.synth.render import yawed_truth

    acc = bench_script("accuracy")
    scene, _, yaw, x, _ = acc.render_clip(8, 2, "pyroomacoustics", (0.2, 0.9), sources=(1, 4),
                                          fan=0.5, yaw=True, moving=0.2)
    truth = [yawed_truth(s.to_dict(), yaw) for s in scene.sources]
    assert sorted(round(t["onset_s"], 1) for t in truth) == [2.1, 4.4]
    found = {}
    for windows in (5, 0):
        res = analyze_samples(x, scene.sample_rate,
                              params=dataclasses.replace(AnalysisParams(),
                                                         track_axis_windows=windows))
        matches = match_clip("8", truth, [e.to_dict() for e in res.events])
        found[windows] = ([m for m in matches if m.detected], res.n_sources)
    detected, n_sources = found[5]
    assert len(detected) == 2 and n_sources == 2
    assert all(abs(m.azimuth_error_deg) <= 20.0 for m in detected)
    assert found[0][0] == [] and found[0][1] == 1
