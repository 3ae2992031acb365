"""FOA normalisations (SN3D, N3D, FuMa): conversion, reading, errors."""

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.conventions import (
    CHANNEL_ORDERS,
    NORMALISATIONS,
    PLANE_WAVE_RATIO,
    X,
    Y,
    Z,
    check_normalisation,
    encode_plane_wave,
    from_internal,
    resolve_normalisation,
    to_internal,
)
from foakit.errors import AudioError, ParameterError
from foakit.io import read_audio

angles = st.tuples(st.floats(-179.9, 179.9), st.floats(-89.0, 89.0))
layouts = st.tuples(st.sampled_from(CHANNEL_ORDERS), st.sampled_from(NORMALISATIONS))


@settings(derandomize=True, max_examples=60)
@given(angles, layouts, st.integers(1, 40))
def test_round_trip_every_order_and_normalisation(direction, layout, n):
    order, norm = layout
    rng = np.random.default_rng(n)
    a = encode_plane_wave(rng.normal(size=n), *direction)
    raw = from_internal(a, order, normalisation=norm)
    assert np.allclose(to_internal(raw, order, normalisation=norm), a)
    noise = rng.normal(size=(4, n))  # any signal, not only plane waves
    assert np.allclose(from_internal(to_internal(noise, order, normalisation=norm), order,
                                     normalisation=norm), noise)


@settings(derandomize=True, max_examples=60)
@given(angles, layouts)
def test_plane_wave_ratio_tells_the_normalisation(direction, layout):
    order, norm = layout
    s = np.random.default_rng(0).normal(size=64)
    raw = from_internal(encode_plane_wave(s, *direction), order, normalisation=norm)
    omni = np.sum(raw[0] ** 2)
    dipoles = np.sum(raw[1:] ** 2)
    assert dipoles / omni == pytest.approx(PLANE_WAVE_RATIO[norm], rel=1e-9)
    assert PLANE_WAVE_RATIO == {"sn3d": 1.0, "n3d": 3.0, "fuma": 2.0}


def test_definitions_by_hand():
    a = encode_plane_wave(np.ones(2), 30.0, 20.0)
    n3d = from_internal(a, "ambix", normalisation="n3d")
    assert np.allclose(n3d[0], a[0]) and np.allclose(n3d[1:], np.sqrt(3) * a[1:])
    fuma = from_internal(a, "fuma", normalisation="fuma")  # W, X, Y, Z; W at -3 dB
    assert np.allclose(fuma[0], a[0] / np.sqrt(2))
    assert np.allclose(fuma[1:], a[[X, Y, Z]])
    # order and normalisation are separate: FuMa order with SN3D gains, ACN order with FuMa W
    assert np.allclose(from_internal(a, "fuma", normalisation="sn3d"), a[[0, X, Y, Z]])
    acn_fuma = from_internal(a, "ambix", normalisation="fuma")
    assert np.allclose(acn_fuma[0], a[0] / np.sqrt(2)) and np.allclose(acn_fuma[1:], a[1:])


def test_default_is_the_orders_own():
    assert resolve_normalisation("ambix") == "sn3d"
    assert resolve_normalisation("FuMa") == "fuma"
    assert resolve_normalisation("ambix", "N3D") == "n3d"
    a = np.random.default_rng(1).normal(size=(4, 8))
    assert np.array_equal(to_internal(a, "fuma"), to_internal(a, "fuma", normalisation="fuma"))
    assert to_internal(a, "ambix", normalisation="sn3d") is a


@pytest.mark.parametrize("call", [
    lambda: check_normalisation("maxn"),
    lambda: resolve_normalisation("ambix", "maxn"),
    lambda: to_internal(np.zeros((4, 2)), "ambix", normalisation="maxn"),
    lambda: from_internal(np.zeros((4, 2)), "fuma", normalisation="maxn"),
])
def test_bad_normalisation_names_the_value(call):
    with pytest.raises(ParameterError, match="normalisation='maxn'"):
        call()


def test_bad_order_with_normalisation_names_the_order():
    with pytest.raises(ParameterError, match="channel_order='acn'"):
        resolve_normalisation("acn", "sn3d")


def _write(path, raw, subtype="FLOAT"):
    sf.write(path, np.ascontiguousarray(raw.T), 16000, subtype=subtype)
    return path


@pytest.mark.parametrize("order", CHANNEL_ORDERS)
@pytest.mark.parametrize("norm", NORMALISATIONS)
def test_read_audio_converts_to_sn3d(tmp_path, order, norm):
    rng = np.random.default_rng(3)
    a = (0.1 * encode_plane_wave(rng.normal(size=800), 70.0, -10.0)).astype(np.float32)
    p = _write(tmp_path / "c.wav", from_internal(a, order, normalisation=norm))
    clip = read_audio(p, channel_order=order, normalisation=norm)
    assert clip.normalisation == norm and clip.channel_order == order
    assert np.allclose(clip.samples, a, atol=1e-6)
    p16 = _write(tmp_path / "c16.wav", from_internal(a, order, normalisation=norm), "PCM_16")
    # the int16 fast path (peaks stay below full scale: N3D dipoles are sqrt(3) x SN3D)
    c16 = read_audio(p16, channel_order=order, normalisation=norm)
    assert np.allclose(c16.samples, a, atol=2e-4)


def test_read_audio_default_and_errors(tmp_path):
    a = encode_plane_wave(np.full(100, 0.1), 0.0, 0.0).astype(np.float32)
    p = _write(tmp_path / "c.wav", a)
    assert read_audio(p).normalisation == "sn3d"
    assert read_audio(p, channel_order="fuma").normalisation == "fuma"
    with pytest.raises(ParameterError, match="normalisation='sn2d'"):
        read_audio(p, normalisation="sn2d")
    with pytest.raises(AudioError, match="no such file"):
        read_audio(tmp_path / "missing.wav", normalisation="n3d")
