"""A stationary source's event direction from its own onset bins (params.onset_direction_bins)."""

import dataclasses

import numpy as np
import pytest

from foakit.analysis import analyze_samples
from foakit.conventions import direction_to_vector, encode_plane_wave
from foakit.errors import ParameterError
from foakit.events import events_from_cones
from foakit.kernels.cone import CONE_CHANNELS
from foakit.params import AnalysisParams
from foakit.synth import source_signal


def _one_cone(onset_dir, n_onset_bins_per_frame):
    """A fixed axis at (30, 0) whose cone holds steady energy and, in frames 10-29, onset
    bins pointing at ``onset_dir`` (one unit vote each)."""
    n = 60
    axis = direction_to_vector(30.0, 0.0).astype(np.float32)
    axes = np.broadcast_to(axis, (1, n, 3)).copy()
    cones = np.zeros((1, n, CONE_CHANNELS), np.float32)
    cones[0, 10:40, :3] = axis
    cones[0, 10:40, 3] = 1.0
    cones[0, 10:30, 4] = 1.0
    u = direction_to_vector(*onset_dir)
    cones[0, 10:30, 5:8] = u * n_onset_bins_per_frame
    cones[0, 10:30, 8] = n_onset_bins_per_frame
    active = np.zeros(n, bool)
    active[10:40] = True
    iv = np.zeros((n, 4), np.float32)
    iv[10:40, :3] = axis
    iv[10:40, 3] = 1.2
    return cones, axes, active, iv


@pytest.mark.parametrize(("bins", "per_frame", "expect"), [
    (5, 1.0, (32.0, 7.0)),  # 20 onset bins >= 5: the onset bins' direction
    (30, 1.0, (30.0, 0.0)),  # 20 < 30: the axis
    (0, 1.0, (30.0, 0.0)),  # off: the axis
])
def test_event_points_where_its_onset_bins_point_when_it_has_enough(bins, per_frame, expect):
    params = dataclasses.replace(AnalysisParams(), onset_direction_bins=bins)
    cones, axes, active, iv = _one_cone((32.0, 7.0), per_frame)
    ev = events_from_cones(cones, axes, active, iv, frame_rate=50.0, power_scale=1.0,
                           params=params, onset_support=False)
    assert len(ev) == 1
    assert ev[0].azimuth_deg == pytest.approx(expect[0], abs=1e-3)
    assert ev[0].elevation_deg == pytest.approx(expect[1], abs=1e-3)


def test_a_cone_array_without_onset_vectors_keeps_the_axis():
    cones, axes, active, iv = _one_cone((32.0, 7.0), 1.0)
    ev = events_from_cones(cones[..., :5], axes, active, iv, frame_rate=50.0, power_scale=1.0,
                           params=AnalysisParams(), onset_support=False)
    assert (ev[0].azimuth_deg, ev[0].elevation_deg) == pytest.approx((30.0, 0.0), abs=1e-3)


def test_negative_onset_direction_bins_is_refused():
    with pytest.raises(ParameterError, match="onset_direction_bins"):
        AnalysisParams(onset_direction_bins=-1)


@pytest.mark.parametrize(("seed", "kind"), [(1, "speechlike"), (2, "impacts"),
                                            (3, "harmonic")])
def test_a_coherent_floor_reflection_pulls_the_onset_bins_less_than_the_peak(seed, kind):
    """A source at +10 deg and its floor reflection 4 ms later at -35 deg, 3 dB down: the
    clip peak of energy-weighted votes leans toward the reflection more than the event's
    onset bins do."""
    sr = 16000
    rng = np.random.default_rng(seed)
    s = np.concatenate([np.zeros(sr), source_signal(kind, 6 * sr, sr, rng), np.zeros(sr)])
    lag = int(0.004 * sr)
    refl = np.concatenate([np.zeros(lag), s[:-lag]])
    x = encode_plane_wave(s, 40.0, 10.0) + 0.7 * encode_plane_wave(refl, 40.0, -35.0)
    x += 0.003 * rng.standard_normal(x.shape)
    err = {}
    for bins in (5, 0):
        res = analyze_samples(x, sr, params=dataclasses.replace(AnalysisParams(),
                                                                onset_direction_bins=bins))
        assert len(res.events) == 1
        assert abs(res.events[0].azimuth_deg - 40.0) < 3.0
        err[bins] = abs(res.events[0].elevation_deg - 10.0)
    assert err[5] < err[0] - 2.0
    assert err[5] < 11.0


def test_cone_energy_refuses_an_output_without_room_for_every_channel():
    from foakit.kernels.cone import cone_energy

    n_frames, n_bins = 4, 8
    intensity = np.zeros((3, n_frames, n_bins), np.float32)
    intensity[0] = 1.0  # every bin a plane wave from +x, the cone's axis
    energy = np.ones((n_frames, n_bins), np.float32)
    dirs = np.zeros((1, n_frames, 3), np.float32)
    dirs[..., 0] = 1.0
    with pytest.raises(ValueError, match="CONE_CHANNELS"):
        cone_energy(intensity, energy, energy, energy * 0, 0, n_bins, np.float32(0.5), dirs,
                    0.9, 8.0, 2, n_frames, np.zeros((1, n_frames, 5), np.float32))
    out = np.zeros((1, n_frames, CONE_CHANNELS), np.float32)
    cone_energy(intensity, energy, energy, energy * 0, 0, n_bins, np.float32(0.5), dirs, 0.9,
                8.0, 2, n_frames, out)
    assert np.all(out[0, :, 8] == n_bins)  # every bin an onset bin inside the cone
    # a steady level rises only out of the silence before the clip
    assert out[0, 0, 9] == n_bins and np.all(out[0, 1:, 9] == 0)
