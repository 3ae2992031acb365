import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.conventions import (
    angular_distance,
    azimuth_difference,
    direction_to_vector,
    encode_plane_wave,
    from_internal,
    to_internal,
    vector_to_direction,
    wrap_azimuth,
)
from foakit.errors import ParameterError

angles = st.tuples(st.floats(-179.9, 179.9), st.floats(-89.0, 89.0))


def test_ambix_plane_wave_follows_formats_md():
    s = np.ones(3)
    w, y, z, x = encode_plane_wave(s, 90.0, 0.0)
    # +90 azimuth is the left: all on Y, nothing on X
    assert np.allclose(w, 1) and np.allclose(y, 1) and np.allclose(x, 0, atol=1e-12)
    w, y, z, x = encode_plane_wave(s, 0.0, 90.0)
    assert np.allclose(z, 1) and np.allclose(x, 0, atol=1e-12)


@given(angles, st.integers(1, 40))
def test_fuma_ambix_round_trip(direction, n):
    rng = np.random.default_rng(n)
    a = encode_plane_wave(rng.normal(size=n), *direction)
    fuma = from_internal(a, "fuma")
    assert np.allclose(fuma[0], a[0] / np.sqrt(2))  # FuMa W carries -3 dB
    assert np.allclose(fuma[1], a[3]) and np.allclose(fuma[2], a[1]) and np.allclose(fuma[3], a[2])
    assert np.allclose(to_internal(fuma, "fuma"), a)


def test_ambix_is_not_copied():
    a = np.zeros((4, 5))
    assert to_internal(a, "ambix") is a


@given(angles)
def test_direction_vector_round_trip(direction):
    az, el = vector_to_direction(direction_to_vector(*direction))
    assert abs(float(azimuth_difference(az, direction[0]))) < 1e-6
    assert abs(float(el) - direction[1]) < 1e-6


def test_wrap_and_distance():
    assert wrap_azimuth(180.0) == -180.0
    assert wrap_azimuth(350.0) == -10.0
    assert abs(float(azimuth_difference(350, 10)) + 20) < 1e-9
    assert abs(float(angular_distance(350, 0, 10, 0)) - 20) < 1e-9


@pytest.mark.parametrize("order", ["AmbiX", "FUMA"])
def test_channel_order_case_insensitive(order):
    assert to_internal(np.zeros((4, 2)), order).shape == (4, 2)


def test_bad_channel_order_and_shape():
    with pytest.raises(ParameterError, match="channel_order='acn'"):
        to_internal(np.zeros((4, 2)), "acn")
    with pytest.raises(ParameterError, match="4 channels"):
        to_internal(np.zeros((3, 2)), "fuma")
