import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.conventions import encode_plane_wave, vector_to_direction
from foakit.errors import ParameterError
from foakit.kernels.spatial import (
    diffuseness,
    frame_power,
    intensity_energy,
    smooth_frames,
)
from foakit.kernels.stft import hann, stft

from .naive import slow_smooth
from .scenes import diffuse_field


def spectra(x):
    return stft(np.asarray(x, np.float64), win_length=256, hop_length=128)


@given(st.floats(-179, 179), st.floats(-85, 85))
def test_plane_wave_intensity_points_at_source_and_psi_is_zero(az, el):
    s = np.random.default_rng(0).normal(size=4000)
    spec = spectra(encode_plane_wave(s, az, el))
    intensity, energy = intensity_energy(spec)
    # ||I|| = E bin by bin for one plane wave in SN3D
    assert np.allclose(np.linalg.norm(intensity, axis=0), energy, rtol=1e-9, atol=1e-12)
    psi = diffuseness(intensity, energy, n_smooth=5)
    assert psi[energy > 1e-6 * energy.max()].max() < 1e-6
    eaz, eel = vector_to_direction(intensity.sum(axis=(1, 2)))
    assert abs((eaz - az + 180) % 360 - 180) < 1e-6 and abs(eel - el) < 1e-6


def test_diffuse_field_psi_is_about_one():
    x = diffuse_field(48000, np.random.default_rng(3), n_dirs=200)
    intensity, energy = intensity_energy(spectra(x))
    psi_long = diffuseness(intensity, energy, n_smooth=51)
    assert np.median(psi_long) > 0.85
    i_all = intensity.sum(axis=(1, 2))
    assert 1 - np.linalg.norm(i_all) / energy.sum() > 0.95


@given(st.floats(-170, 170), st.floats(-60, 60), st.floats(-90, 90))
def test_rotating_x_y_rotates_azimuth(az, el, rot):
    """Rotating the scene's X/Y channels about the vertical rotates the azimuth by the angle."""
    s = np.random.default_rng(1).normal(size=2000)
    x = encode_plane_wave(s, az, el)
    r = np.deg2rad(rot)
    w, y, z, xx = x
    rotated = np.stack([w, np.sin(r) * xx + np.cos(r) * y, z, np.cos(r) * xx - np.sin(r) * y])
    i0, _ = intensity_energy(spectra(x))
    i1, _ = intensity_energy(spectra(rotated))
    a0, e0 = vector_to_direction(i0.sum(axis=(1, 2)))
    a1, e1 = vector_to_direction(i1.sum(axis=(1, 2)))
    assert abs((a1 - a0 - rot + 180) % 360 - 180) < 1e-6
    assert abs(e1 - e0) < 1e-6


def test_smooth_frames_is_a_centred_mean():
    a = np.arange(10, dtype=float)[None, :, None]
    s = smooth_frames(a, 3, axis=-2)[0, :, 0]
    # every frame averages three: the edge windows are shifted inward, not cut
    assert s[0] == pytest.approx(1.0) and s[5] == pytest.approx(5.0) and s[-1] == pytest.approx(8.0)
    assert s[1] == s[0] and s[-2] == s[-1]


@given(st.integers(1, 12), st.integers(1, 7), st.integers(0, 3))
def test_smooth_frames_equals_slow_reference(n_frames, n, seed):
    a = np.random.default_rng(seed).normal(size=(n_frames, 3))
    assert np.allclose(smooth_frames(a, n, axis=0), slow_smooth(a, n), atol=1e-12)


def test_frame_power_is_parseval():
    rng = np.random.default_rng(0)
    x = rng.normal(size=16000) * 0.5
    spec = stft(x, win_length=512, hop_length=256)
    p = frame_power(np.abs(spec) ** 2, 512, float(np.sum(hann(512, dtype=np.float64) ** 2)))
    assert np.median(p[2:-2]) == pytest.approx(0.25, rel=0.1)


def test_intensity_needs_four_channels():
    with pytest.raises(ParameterError, match="4 FOA channels"):
        intensity_energy(np.zeros((3, 5, 7), complex))
